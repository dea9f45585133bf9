// Package petest builds small PE files in memory for tests, fuzz seeds
// and examples: MS-DOS and PE headers (PE32 or PE32+), a .text section and
// a .rsrc section holding a resource tree, and RT_MESSAGETABLE data. The
// files are well formed enough for package pe and for Windows' resource
// loader, but hold no code.
//
// Layout: headers in the first 0x200 bytes (FileAlignment 0x200,
// SectionAlignment 0x1000), .text at RVA 0x1000 / file offset 0x200 (0x200
// bytes), .rsrc at RVA [RsrcRVA] / file offset [RsrcOffset]. The resource
// tree is laid out as the Microsoft linker does: the directories
// breadth first (root, type directories, name directories), then the data
// entries, then the name strings, then the data, each 8-byte aligned.
package petest

import (
	"encoding/binary"
	"sort"
	"strings"
	"unicode/utf16"

	"github.com/etwkit/etw/pe"
)

// Fixed places of the built files.
const (
	RsrcRVA    = 0x2000 // RVA of the .rsrc section
	RsrcOffset = 0x400  // file offset of the .rsrc section
	// TextOffset is the file offset of the .text section.
	TextOffset = 0x200
)

// Machine types.
const (
	MachineI386  = 0x14C
	MachineAMD64 = 0x8664
)

// Resource is one resource to put in the tree. Type and Name are names,
// or ids spelled "#11" as Windows does.
type Resource struct {
	Type, Name string
	Lang       uint16
	Data       []byte
}

// Options choose the header flavour.
type Options struct {
	// PE32Plus builds a 64-bit (PE32+) image for AMD64; otherwise a PE32
	// image for i386.
	PE32Plus bool
}

// Build returns a PE file holding the resources.
func Build(opts Options, res []Resource) []byte {
	rsrc := buildTree(res)
	const fileAlign, sectAlign = 0x200, 0x1000
	rawRsrc := align(len(rsrc), fileAlign)
	optSize := 224
	if opts.PE32Plus {
		optSize = 240
	}
	out := make([]byte, RsrcOffset+rawRsrc)
	le := binary.LittleEndian
	// MS-DOS header.
	out[0], out[1] = 'M', 'Z'
	le.PutUint32(out[0x3C:], 0x40)
	// PE signature and COFF header.
	copy(out[0x40:], "PE\x00\x00")
	coff := out[0x44:]
	machine, chars := uint16(MachineI386), uint16(0x0102) // executable, 32-bit
	if opts.PE32Plus {
		machine, chars = MachineAMD64, 0x0022 // executable, large address aware
	}
	le.PutUint16(coff[0:], machine)
	le.PutUint16(coff[2:], 2) // sections
	le.PutUint16(coff[16:], uint16(optSize))
	le.PutUint16(coff[18:], chars)
	// Optional header.
	opt := out[0x58:]
	imageSize := uint32(align(RsrcRVA+len(rsrc), sectAlign))
	if opts.PE32Plus {
		le.PutUint16(opt[0:], 0x20B)
		le.PutUint64(opt[24:], 0x140000000) // ImageBase
	} else {
		le.PutUint16(opt[0:], 0x10B)
		le.PutUint32(opt[28:], 0x400000) // ImageBase
	}
	le.PutUint32(opt[16:], 0x1000) // AddressOfEntryPoint
	le.PutUint32(opt[32:], sectAlign)
	le.PutUint32(opt[36:], fileAlign)
	le.PutUint16(opt[40:], 6) // OS version 6.0
	le.PutUint16(opt[48:], 6) // subsystem version 6.0
	le.PutUint32(opt[56:], imageSize)
	le.PutUint32(opt[60:], 0x200) // SizeOfHeaders
	le.PutUint16(opt[68:], 3)     // console subsystem
	dirs := 96
	if opts.PE32Plus {
		dirs = 112
	}
	le.PutUint32(opt[dirs-4:], 16) // NumberOfRvaAndSizes
	if len(res) > 0 {
		le.PutUint32(opt[dirs+16:], RsrcRVA)
		le.PutUint32(opt[dirs+20:], uint32(len(rsrc)))
	}
	// Section table.
	sec := out[0x58+optSize:]
	putSection(sec, ".text", 0x10, 0x1000, 0x200, TextOffset, 0x60000020)
	putSection(sec[40:], ".rsrc", uint32(len(rsrc)), RsrcRVA, uint32(rawRsrc), RsrcOffset, 0x40000040)
	out[TextOffset] = 0xC3 // ret
	copy(out[RsrcOffset:], rsrc)
	return out
}

func putSection(b []byte, name string, vsize, va, rawSize, rawPtr, chars uint32) {
	copy(b, name)
	le := binary.LittleEndian
	le.PutUint32(b[8:], vsize)
	le.PutUint32(b[12:], va)
	le.PutUint32(b[16:], rawSize)
	le.PutUint32(b[20:], rawPtr)
	le.PutUint32(b[36:], chars)
}

func align(n, a int) int { return (n + a - 1) / a * a }

// parseKey reads a type or name as [pe.ParseResID] does, names
// upper-cased as the linker stores them.
func parseKey(s string) pe.ResID {
	k := pe.ParseResID(s)
	k.Name = strings.ToUpper(k.Name)
	return k
}

// less orders entries as the linker does: names (compared upper-cased)
// before ids, ids ascending.
func less(a, b pe.ResID) bool {
	if (a.Name != "") != (b.Name != "") {
		return a.Name != ""
	}
	if a.Name != "" {
		return a.Name < b.Name
	}
	return a.ID < b.ID
}

type node struct {
	key      pe.ResID
	children []*node
	res      *Resource // leaf
	off      int       // directory or data entry offset
}

func (n *node) child(k pe.ResID) *node {
	for _, c := range n.children {
		if c.key == k {
			return c
		}
	}
	c := &node{key: k}
	n.children = append(n.children, c)
	return c
}

func (n *node) sort() {
	sort.SliceStable(n.children, func(i, j int) bool { return less(n.children[i].key, n.children[j].key) })
	for _, c := range n.children {
		c.sort()
	}
}

// buildTree lays out the resource tree with offsets relative to its start
// and data RVAs for a section at RsrcRVA.
func buildTree(res []Resource) []byte {
	root := &node{}
	for i := range res {
		r := &res[i]
		leaf := root.child(parseKey(r.Type)).child(parseKey(r.Name)).child(pe.ResID{ID: uint32(r.Lang)})
		leaf.res = r
	}
	root.sort()
	// Directories breadth first.
	levels := [][]*node{{root}}
	for l := 0; l < 2; l++ {
		var next []*node
		for _, n := range levels[l] {
			next = append(next, n.children...)
		}
		levels = append(levels, next)
	}
	off := 0
	for _, lv := range levels {
		for _, n := range lv {
			n.off = off
			off += 16 + 8*len(n.children)
		}
	}
	var leaves []*node
	for _, n := range levels[2] {
		leaves = append(leaves, n.children...)
	}
	for _, n := range leaves {
		n.off = off
		off += 16
	}
	// Name strings, each once.
	names := map[string]int{}
	var order []string
	for _, lv := range levels[1:] {
		for _, n := range lv {
			if n.key.Name != "" {
				if _, ok := names[n.key.Name]; !ok {
					names[n.key.Name] = off
					order = append(order, n.key.Name)
					off += 2 + 2*len(utf16.Encode([]rune(n.key.Name)))
				}
			}
		}
	}
	dataOff := make([]int, len(leaves))
	for i, n := range leaves {
		off = align(off, 8)
		dataOff[i] = off
		off += len(n.res.Data)
	}
	b := make([]byte, align(off, 8))
	le := binary.LittleEndian
	for _, lv := range levels {
		for _, n := range lv {
			d := b[n.off:]
			var named, ids uint16
			for i, c := range n.children {
				e := d[16+8*i:]
				if c.key.Name != "" {
					named++
					le.PutUint32(e, 1<<31|uint32(names[c.key.Name]))
				} else {
					ids++
					le.PutUint32(e, c.key.ID)
				}
				if c.res != nil {
					le.PutUint32(e[4:], uint32(c.off))
				} else {
					le.PutUint32(e[4:], 1<<31|uint32(c.off))
				}
			}
			le.PutUint16(d[12:], named)
			le.PutUint16(d[14:], ids)
		}
	}
	for i, n := range leaves {
		e := b[n.off:]
		le.PutUint32(e, uint32(RsrcRVA+dataOff[i]))
		le.PutUint32(e[4:], uint32(len(n.res.Data)))
		copy(b[dataOff[i]:], n.res.Data)
	}
	for _, s := range order {
		u := utf16.Encode([]rune(s))
		p := names[s]
		le.PutUint16(b[p:], uint16(len(u)))
		for i, c := range u {
			le.PutUint16(b[p+2+2*i:], c)
		}
	}
	return b
}

// Message is one message table entry.
type Message struct {
	ID   uint32
	Text string
	// Encoding is the entry's flags: 0 ANSI (the text must be ASCII or
	// Latin-1), 1 UTF-16LE, 2 UTF-8.
	Encoding uint16
}

// MessageTable returns a MESSAGE_RESOURCE_DATA holding the messages, one
// block per run of consecutive ids, entries padded to 4 bytes with NULs as
// mc.exe does.
func MessageTable(msgs []Message) []byte {
	ms := append([]Message(nil), msgs...)
	sort.SliceStable(ms, func(i, j int) bool { return ms[i].ID < ms[j].ID })
	var blocks [][]Message
	for i, m := range ms {
		if i > 0 && m.ID == ms[i-1].ID+1 {
			blocks[len(blocks)-1] = append(blocks[len(blocks)-1], m)
		} else {
			blocks = append(blocks, []Message{m})
		}
	}
	le := binary.LittleEndian
	hdr := make([]byte, 4+12*len(blocks))
	le.PutUint32(hdr, uint32(len(blocks)))
	var body []byte
	for i, blk := range blocks {
		h := hdr[4+12*i:]
		le.PutUint32(h, blk[0].ID)
		le.PutUint32(h[4:], blk[len(blk)-1].ID)
		le.PutUint32(h[8:], uint32(len(hdr)+len(body)))
		for _, m := range blk {
			var text []byte
			switch m.Encoding {
			case 1:
				for _, c := range utf16.Encode([]rune(m.Text)) {
					text = le.AppendUint16(text, c)
				}
				text = append(text, 0, 0)
			case 0:
				for _, r := range m.Text {
					text = append(text, byte(r))
				}
				text = append(text, 0)
			default:
				text = append([]byte(m.Text), 0)
			}
			for len(text)%4 != 0 {
				text = append(text, 0)
			}
			body = le.AppendUint16(body, uint16(4+len(text)))
			body = le.AppendUint16(body, m.Encoding)
			body = append(body, text...)
		}
	}
	return append(hdr, body...)
}
