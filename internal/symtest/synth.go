package symtest

import (
	"encoding/binary"
)

// MSFBlock is the block size of the MSF files the tests write.
const MSFBlock = 512

// MSF writes an MSF 7.0 container holding streams (nil: a nil
// stream). Layout: block 0 superblock, 1 free block map, 2 the block map,
// then the directory, then the streams.
func MSF(streams [][]byte) []byte {
	le := binary.LittleEndian
	next := uint32(3)
	alloc := func(n int) []uint32 {
		var out []uint32
		for i := 0; i < (n+MSFBlock-1)/MSFBlock; i++ {
			out = append(out, next)
			next++
		}
		return out
	}
	// Directory size first, to place it before the streams.
	dirSize := 4 + 4*len(streams)
	for _, s := range streams {
		dirSize += 4 * ((len(s) + MSFBlock - 1) / MSFBlock)
	}
	dirBlocks := alloc(dirSize)
	dir := le.AppendUint32(nil, uint32(len(streams)))
	var blocks [][]uint32
	for _, s := range streams {
		if s == nil {
			dir = le.AppendUint32(dir, 0xFFFFFFFF)
		} else {
			dir = le.AppendUint32(dir, uint32(len(s)))
		}
		blocks = append(blocks, alloc(len(s)))
	}
	for _, bl := range blocks {
		for _, b := range bl {
			dir = le.AppendUint32(dir, b)
		}
	}
	out := make([]byte, int(next)*MSFBlock)
	copy(out, "Microsoft C/C++ MSF 7.00\r\n\x1aDS\x00\x00\x00")
	le.PutUint32(out[32:], MSFBlock)
	le.PutUint32(out[36:], 1)
	le.PutUint32(out[40:], next)
	le.PutUint32(out[44:], uint32(len(dir)))
	le.PutUint32(out[52:], 2)
	for i, b := range dirBlocks {
		le.PutUint32(out[2*MSFBlock+4*i:], b)
		copy(out[int(b)*MSFBlock:], dir[i*MSFBlock:min(len(dir), (i+1)*MSFBlock)])
	}
	for i, s := range streams {
		for j, b := range blocks[i] {
			copy(out[int(b)*MSFBlock:], s[j*MSFBlock:min(len(s), (j+1)*MSFBlock)])
		}
	}
	return out
}

// SynthGUID is the GUID of the tests' synthetic PDB:
// {12DC0A4F-BD7D-4F2A-A9BE-263BACAEB467}.
var SynthGUID = [16]byte{0x4F, 0x0A, 0xDC, 0x12, 0x7D, 0xBD, 0x2A, 0x4F, 0xA9, 0xBE, 0x26, 0x3B, 0xAC, 0xAE, 0xB4, 0x67}

// appendRecord appends a symbol record {len, kind, payload} padded to 4 bytes.
func appendRecord(b []byte, kind uint16, payload []byte) []byte {
	for (len(payload)+4)%4 != 0 {
		payload = append(payload, 0)
	}
	b = binary.LittleEndian.AppendUint16(b, uint16(2+len(payload)))
	b = binary.LittleEndian.AppendUint16(b, kind)
	return append(b, payload...)
}

// SynthPDB builds a small PDB by hand, of identity guid and age: one module with a function
// "work" at 0001:0x10 (size 0x20, lines 10 and 12 of "c:\src\work.c"), an
// S_ANNOTATION, and publics "?helper@@YAXXZ" at 0001:0x40 and "data" in
// section 2 (and an S_PUB32 record "?stale@@YAXXZ" at 0001:0x80 that the
// publics stream does not list); work's separated code (S_SEPCODE) at
// 0001:0x90, 0x10 bytes; sections .text at RVA 0x1000 and .data at 0x2000.
func SynthPDB(guid [16]byte, age uint32) []byte { return MSF(synthStreams(guid, age, nil)) }

// SynthPDBAnnotations is [SynthPDB] with these S_ANNOTATION records
// (each one's strings, at 0001:0x18) instead of its own one.
func SynthPDBAnnotations(guid [16]byte, age uint32, annotations [][]string) []byte {
	return MSF(synthStreams(guid, age, annotations))
}

// synthStreams returns the streams of [SynthPDB].
func synthStreams(guid [16]byte, age uint32, annotations [][]string) [][]byte {
	le := binary.LittleEndian
	// /names: signature, version, size, strings ("" at 0, the file at 1).
	strs := []byte("\x00c:\\src\\work.c\x00")
	names := le.AppendUint32(nil, 0xEFFEEFFE)
	names = le.AppendUint32(names, 1)
	names = le.AppendUint32(names, uint32(len(strs)))
	names = append(names, strs...)
	names = le.AppendUint32(names, 0) // hash buckets
	names = le.AppendUint32(names, 1) // name count

	// PDB info: version, signature, age, GUID, named streams {"/names": 5}.
	info := le.AppendUint32(nil, 20000404)
	info = le.AppendUint32(info, 0x12345678)
	info = le.AppendUint32(info, age)
	info = append(info, guid[:]...)
	nm := []byte("/names\x00")
	info = le.AppendUint32(info, uint32(len(nm)))
	info = append(info, nm...)
	info = le.AppendUint32(info, 1) // size
	info = le.AppendUint32(info, 2) // capacity
	info = le.AppendUint32(info, 1) // present words
	info = le.AppendUint32(info, 1)
	info = le.AppendUint32(info, 0) // deleted words
	info = le.AppendUint32(info, 0) // key: offset of "/names"
	info = le.AppendUint32(info, 5) // value: stream 5
	info = le.AppendUint32(info, 20140508)

	// Module symbols: signature 4, S_GPROC32 "work", S_ANNOTATION.
	proc := make([]byte, 35)
	le.PutUint32(proc[12:], 0x20) // code size
	le.PutUint32(proc[28:], 0x10) // offset
	le.PutUint16(proc[32:], 1)    // section
	proc = append(proc, "work\x00"...)
	syms := le.AppendUint32(nil, 4)
	syms = appendRecord(syms, 0x1110, proc)
	if annotations == nil {
		annotations = [][]string{{"TMF:", "hello %d"}}
	}
	for _, strs := range annotations {
		ann := le.AppendUint32(nil, 0x18)
		ann = le.AppendUint16(ann, 1)
		ann = le.AppendUint16(ann, uint16(len(strs)))
		for _, str := range strs {
			ann = append(append(ann, str...), 0)
		}
		syms = appendRecord(syms, 0x1019, ann)
	}
	// S_SEPCODE: work's separated code at 0001:0x90, 0x10 bytes.
	sep := le.AppendUint32(nil, 4) // parent: the S_GPROC32 at offset 4
	sep = le.AppendUint32(sep, 0)
	sep = le.AppendUint32(sep, 0x10)
	sep = le.AppendUint32(sep, 0)
	sep = le.AppendUint32(sep, 0x90)
	sep = le.AppendUint32(sep, 0x10)
	sep = le.AppendUint16(sep, 1)
	sep = le.AppendUint16(sep, 1)
	syms = appendRecord(syms, 0x1132, sep)
	// C13: file checksums (one entry: name offset 1, no checksum), lines.
	chk := le.AppendUint32(nil, 1)
	chk = append(chk, 0, 0, 0, 0)
	lines := le.AppendUint32(nil, 0x10)
	lines = le.AppendUint16(lines, 1)
	lines = le.AppendUint16(lines, 0)
	lines = le.AppendUint32(lines, 0x20)
	lines = le.AppendUint32(lines, 0)  // file: checksum entry 0
	lines = le.AppendUint32(lines, 2)  // lines
	lines = le.AppendUint32(lines, 28) // block size
	lines = le.AppendUint32(lines, 0)
	lines = le.AppendUint32(lines, 10|0x80000000)
	lines = le.AppendUint32(lines, 8)
	lines = le.AppendUint32(lines, 12|0x80000000)
	var c13 []byte
	for _, sub := range []struct {
		kind uint32
		data []byte
	}{{0xF4, chk}, {0xF2, lines}} {
		c13 = le.AppendUint32(c13, sub.kind)
		c13 = le.AppendUint32(c13, uint32(len(sub.data)))
		c13 = append(c13, sub.data...)
	}
	mod := append(append([]byte(nil), syms...), c13...)

	// Symbol records: two publics.
	pub := func(flags, off uint32, sec uint16, name string) []byte {
		p := le.AppendUint32(nil, flags)
		p = le.AppendUint32(p, off)
		p = le.AppendUint16(p, sec)
		return append(p, name+"\x00"...)
	}
	symrec := appendRecord(nil, 0x110E, pub(2, 0x40, 1, "?helper@@YAXXZ"))
	dataOff := len(symrec)
	symrec = appendRecord(symrec, 0x110E, pub(0, 0x8, 2, "data"))
	// A record no hash table refers to (what incremental linking leaves):
	// not a public.
	symrec = appendRecord(symrec, 0x110E, pub(2, 0x80, 1, "?stale@@YAXXZ"))

	// Publics stream: header, an empty GSI hash, the address map (the
	// record offsets of helper and data, in address order).
	pubs := make([]byte, 28)
	le.PutUint32(pubs, 16)    // GSI hash bytes
	le.PutUint32(pubs[4:], 8) // address map bytes
	pubs = le.AppendUint32(pubs, 0xFFFFFFFF)
	pubs = le.AppendUint32(pubs, 0xeffe0000+19990810)
	pubs = le.AppendUint32(pubs, 0)
	pubs = le.AppendUint32(pubs, 0)
	pubs = le.AppendUint32(pubs, 0)
	pubs = le.AppendUint32(pubs, uint32(dataOff))

	// Section headers.
	var sh []byte
	for i, s := range []struct {
		name     string
		va, size uint32
	}{{".text", 0x1000, 0x100}, {".data", 0x2000, 0x40}} {
		h := make([]byte, 40)
		copy(h, s.name)
		le.PutUint32(h[8:], s.size)
		le.PutUint32(h[12:], s.va)
		le.PutUint32(h[16:], s.size)
		le.PutUint32(h[36:], uint32(0x60000020-i*0x20000000))
		sh = append(sh, h...)
	}

	// DBI: header, one module, section contributions, debug header.
	mi := make([]byte, 64)
	le.PutUint16(mi[4:], 1)     // contribution: section
	le.PutUint32(mi[8:], 0x10)  // offset
	le.PutUint32(mi[12:], 0x20) // size
	le.PutUint16(mi[34:], 4)    // symbol stream
	le.PutUint32(mi[36:], uint32(len(syms)))
	le.PutUint32(mi[44:], uint32(len(c13)))
	mi = append(mi, "work.obj\x00work.obj\x00"...)
	for len(mi)%4 != 0 {
		mi = append(mi, 0)
	}
	sc := le.AppendUint32(nil, 0xeffe0000+19970605)
	for _, c := range [][2]uint32{{0x10, 0x20}, {0x90, 0x10}} {
		e := make([]byte, 28)
		le.PutUint16(e, 1)
		le.PutUint32(e[4:], c[0])
		le.PutUint32(e[8:], c[1])
		sc = append(sc, e...)
	}
	dbg := make([]byte, 22)
	for i := range 11 {
		le.PutUint16(dbg[2*i:], 0xFFFF)
	}
	le.PutUint16(dbg[10:], 7) // section headers: stream 7
	dbi := make([]byte, 64)
	le.PutUint32(dbi, 0xFFFFFFFF)
	le.PutUint32(dbi[4:], 19990903)
	le.PutUint32(dbi[8:], age)
	le.PutUint16(dbi[12:], 0xFFFF)
	le.PutUint16(dbi[16:], 8) // publics
	le.PutUint16(dbi[20:], 6) // symbol records
	le.PutUint32(dbi[24:], uint32(len(mi)))
	le.PutUint32(dbi[28:], uint32(len(sc)))
	le.PutUint32(dbi[48:], uint32(len(dbg)))
	le.PutUint16(dbi[58:], 0x8664)
	dbi = append(append(append(dbi, mi...), sc...), dbg...)

	return [][]byte{{}, info, nil, dbi, mod, names, symrec, sh, pubs}
}

// SynthOMAPPDB is [SynthPDB] for an image rearranged after linking: its
// symbols keep the addresses above (the original section headers are
// SynthPDB's), and OMAP tables move them. Source → image: 0x1010–0x103F →
// 0x1050–0x107F (work), 0x1040–0x104F → 0x1010–0x101F (helper),
// 0x2000… unchanged; everything else is unmapped.
func SynthOMAPPDB(guid [16]byte, age uint32) []byte {
	le := binary.LittleEndian
	st := synthStreams(guid, age, nil)
	table := func(pairs ...uint32) []byte {
		var b []byte
		for _, v := range pairs {
			b = le.AppendUint32(b, v)
		}
		return b
	}
	toSrc := table(0x1000, 0, 0x1010, 0x1040, 0x1020, 0, 0x1050, 0x1010, 0x1080, 0, 0x2000, 0x2000)
	fromSrc := table(0x1000, 0, 0x1010, 0x1050, 0x1040, 0x1010, 0x1050, 0, 0x2000, 0x2000)
	st = append(st, toSrc, fromSrc, st[7]) // streams 9, 10, 11: the original headers
	dbi := append([]byte(nil), st[3]...)
	dbg := dbi[len(dbi)-22:]
	le.PutUint16(dbg[2*3:], 9)
	le.PutUint16(dbg[2*4:], 10)
	le.PutUint16(dbg[2*10:], 11)
	st[3] = dbi
	return MSF(st)
}

// StreamOffset returns the file offset of the first block of stream i of
// an MSF file written by [MSF] (for tests that damage a stream).
func StreamOffset(data []byte, i int) int {
	le := binary.LittleEndian
	dir := int(le.Uint32(data[2*MSFBlock:])) * MSFBlock
	n := int(le.Uint32(data[dir:]))
	pos := dir + 4 + 4*n
	for k := 0; k < i; k++ {
		size := le.Uint32(data[dir+4+4*k:])
		if size == 0xFFFFFFFF {
			size = 0
		}
		pos += 4 * int((size+MSFBlock-1)/MSFBlock)
	}
	return int(le.Uint32(data[pos:])) * MSFBlock
}
