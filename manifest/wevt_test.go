package manifest

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/etwkit/etw/tdh"
	"github.com/google/uuid"
)

// The schema corpus holds EventTraceKit's test vectors: manifests next to
// the WEVT_TEMPLATE resource that mc.exe compiled from them. Reading the
// compiled events and templates gives ground truth for the numbers this
// package resolves: channel values assigned by mc, task-local opcodes,
// keyword masks, TDH in-/out-types (with defaults), length/count flags and
// property indexes, and the flattened struct order.
//
// Layout (decoding.md §1.9, libfwevt): CRIM header {magic, u32 size, u16
// major, u16 minor, u32 providers, then {GUID, u32 offset} per provider};
// WEVT {magic, u32 size, u32 message id, u32 elements, then {u32 kind, u32
// offset}}; EVNT {magic, u32 size, u32 count, u32 ?, then 48-byte events:
// u16 id, u8 version, u8 channel, u8 level, u8 opcode, u16 task, u64
// keywords, u32 message, u32 template offset, …}; TEMP {magic, u32 size,
// u32 top-level properties, u32 properties, u32 property offset, …} with 20-byte property
// descriptors {u32 flags, u8 in-type, u8 out-type (for a struct: u16 first
// member, u16 member count), u32 map offset, u16 count, u16 length, u32
// name offset}; flags: struct 1, fixed length 2, var length 4, fixed count
// 8, var count 0x10.

type wevtProp struct {
	flags        uint32
	in, out      uint8
	first, nmemb uint16
	mapOff       uint32
	count, lng   uint16
	name         string
}

type wevtEvent struct {
	id                      uint16
	version, channel, level uint8
	opcode                  uint8
	task                    uint16
	keywords                uint64
	props                   []wevtProp // all properties, TDH order
	topLevel                int        // how many are top-level
	hasTemplate             bool
}

type wevtReader struct {
	b   []byte
	err error
}

func (r *wevtReader) u8(off uint32) uint8 {
	if r.err == nil && uint64(off)+1 > uint64(len(r.b)) {
		r.err = fmt.Errorf("offset %#x out of range", off)
	}
	if r.err != nil {
		return 0
	}
	return r.b[off]
}

func (r *wevtReader) u16(off uint32) uint16 {
	return uint16(r.u8(off)) | uint16(r.u8(off+1))<<8
}

func (r *wevtReader) u32(off uint32) uint32 {
	return uint32(r.u16(off)) | uint32(r.u16(off+2))<<16
}

func (r *wevtReader) u64(off uint32) uint64 {
	return uint64(r.u32(off)) | uint64(r.u32(off+4))<<32
}

func (r *wevtReader) magic(off uint32, want string) {
	if r.err == nil && (uint64(off)+4 > uint64(len(r.b)) || string(r.b[off:off+4]) != want) {
		r.err = fmt.Errorf("no %s at %#x", want, off)
	}
}

// str reads a u32-size-prefixed UTF-16LE string.
func (r *wevtReader) str(off uint32) string {
	size := r.u32(off)
	if r.err != nil || size < 4 || uint64(off)+uint64(size) > uint64(len(r.b)) {
		r.err = fmt.Errorf("bad string at %#x", off)
		return ""
	}
	raw := r.b[off+4 : off+size]
	u := make([]uint16, len(raw)/2)
	for i := range u {
		u[i] = binary.LittleEndian.Uint16(raw[2*i:])
	}
	return strings.TrimRight(string(utf16.Decode(u)), "\x00")
}

func (r *wevtReader) guid(off uint32) uuid.UUID {
	var g uuid.UUID
	if r.err != nil || uint64(off)+16 > uint64(len(r.b)) {
		r.err = fmt.Errorf("GUID at %#x out of range", off)
		return g
	}
	b := r.b[off:]
	binary.BigEndian.PutUint32(g[0:], binary.LittleEndian.Uint32(b))
	binary.BigEndian.PutUint16(g[4:], binary.LittleEndian.Uint16(b[4:]))
	binary.BigEndian.PutUint16(g[6:], binary.LittleEndian.Uint16(b[6:]))
	copy(g[8:], b[8:16])
	return g
}

// readWEVT returns the compiled events of each provider.
func readWEVT(b []byte) (map[uuid.UUID][]wevtEvent, error) {
	r := &wevtReader{b: b}
	r.magic(0, "CRIM")
	n := r.u32(12)
	out := map[uuid.UUID][]wevtEvent{}
	for i := uint32(0); i < n && r.err == nil; i++ {
		g := r.guid(16 + 20*i)
		w := r.u32(16 + 20*i + 16)
		r.magic(w, "WEVT")
		var events []wevtEvent
		for k := uint32(0); k < r.u32(w+12) && r.err == nil; k++ {
			if r.u32(w+16+8*k) != 4 {
				continue
			}
			ev := r.u32(w + 16 + 8*k + 4)
			r.magic(ev, "EVNT")
			for j := uint32(0); j < r.u32(ev+8) && r.err == nil; j++ {
				e := ev + 16 + 48*j
				we := wevtEvent{id: r.u16(e), version: r.u8(e + 2), channel: r.u8(e + 3), level: r.u8(e + 4),
					opcode: r.u8(e + 5), task: r.u16(e + 6), keywords: r.u64(e + 8)}
				if t := r.u32(e + 20); t != 0 {
					we.hasTemplate = true
					r.magic(t, "TEMP")
					we.topLevel = int(r.u32(t + 8))
					desc := r.u32(t + 16)
					// All properties: the top-level ones, then struct members.
					for p := uint32(0); p < r.u32(t+12) && r.err == nil; p++ {
						d := desc + 20*p
						we.props = append(we.props, wevtProp{flags: r.u32(d), in: r.u8(d + 4), out: r.u8(d + 5),
							first: r.u16(d + 4), nmemb: r.u16(d + 6), mapOff: r.u32(d + 8), count: r.u16(d + 12),
							lng: r.u16(d + 14), name: r.str(r.u32(d + 16))})
					}
				}
				events = append(events, we)
			}
		}
		out[g] = events
	}
	return out, r.err
}

// TestCompiledVectors compares every event and template of the manifests
// in EventTraceKit's test cases with what mc.exe compiled from them.
func TestCompiledVectors(t *testing.T) {
	dir := filepath.Join(schemasDir(t), "authored", "gix-event-trace-kit", "TestCases")
	bins, _ := filepath.Glob(filepath.Join(dir, "*.wevt.v5.bin"))
	if len(bins) == 0 {
		t.Fatalf("%s holds no compiled test vectors (*.wevt.v5.bin)", dir)
	}
	var nEvents, nProps int
	for _, bin := range bins {
		man := strings.TrimSuffix(bin, ".wevt.v5.bin") + ".man"
		base := filepath.Base(man)
		raw, err := os.ReadFile(bin)
		if err != nil {
			t.Fatal(err)
		}
		compiled, err := readWEVT(raw)
		if err != nil {
			t.Errorf("%s: %v", filepath.Base(bin), err)
			continue
		}
		m, err := ParseFile(man)
		if err != nil {
			t.Errorf("%s: %v", base, err)
			continue
		}
		for g, events := range compiled {
			p := m.Provider(g)
			if p == nil {
				t.Errorf("%s: provider %s missing", base, g)
				continue
			}
			for _, we := range events {
				nEvents++
				nProps += len(we.props)
				compareEvent(t, base, p, we)
			}
		}
	}
	t.Logf("%d compiled files: %d events and %d template properties compared with mc.exe output", len(bins), nEvents, nProps)
	if nEvents < 450 || nProps < 600 {
		t.Errorf("only %d events / %d properties compared", nEvents, nProps)
	}
}

func compareEvent(t *testing.T, file string, p *Provider, we wevtEvent) {
	t.Helper()
	e := p.Event(we.id, we.version)
	where := fmt.Sprintf("%s: %s event %d v%d", file, p.Name, we.id, we.version)
	if e == nil {
		t.Errorf("%s: missing", where)
		return
	}
	var ch uint8
	if e.HasChannel {
		ch = e.Channel
	}
	// mc.exe adds channel bits in the reserved keywords 56–63.
	const chanBits = 0xFF00000000000000
	if ch != we.channel || e.Level != we.level || e.Opcode != we.opcode || e.Task != we.task ||
		e.Keywords&^chanBits != we.keywords&^chanBits {
		t.Errorf("%s: channel %d level %d opcode %d task %d keywords %#x; mc.exe %d %d %d %d %#x", where,
			ch, e.Level, e.Opcode, e.Task, e.Keywords, we.channel, we.level, we.opcode, we.task, we.keywords)
	}
	var props []*Field
	if e.Template != nil {
		props = e.Template.Properties
	}
	if e.Template != nil && len(e.Template.Fields) != we.topLevel {
		t.Errorf("%s: %d top-level fields, mc.exe %d", where, len(e.Template.Fields), we.topLevel)
	}
	if len(props) != len(we.props) {
		t.Errorf("%s: %d properties, mc.exe %d", where, len(props), len(we.props))
		return
	}
	for i, f := range props {
		compareProp(t, fmt.Sprintf("%s property %d (%s)", where, i, f.Name), f, we.props[i])
	}
}

func compareProp(t *testing.T, where string, f *Field, w wevtProp) {
	t.Helper()
	if f.Name != w.name {
		t.Errorf("%s: name, mc.exe %q", where, w.name)
	}
	if f.IsStruct() != (w.flags&1 != 0) {
		t.Errorf("%s: struct %v, mc.exe flags %#x", where, f.IsStruct(), w.flags)
		return
	}
	if f.IsStruct() {
		first := uint16(0)
		if len(f.Struct) > 0 {
			first = uint16(f.Struct[0].Index)
		}
		if int(w.nmemb) != len(f.Struct) || (len(f.Struct) > 0 && w.first != first) {
			t.Errorf("%s: members %d from %d, mc.exe %d from %d", where, len(f.Struct), first, w.nmemb, w.first)
		}
	} else {
		out := f.OutType
		if out == 0 {
			out = f.InType.DefaultOutType()
		}
		if tdh.InType(w.in) != f.InType || tdh.OutType(w.out) != out {
			t.Errorf("%s: in %d out %d, mc.exe %d %d", where, f.InType, out, w.in, w.out)
		}
		if (w.mapOff != 0) != (f.Map != nil) {
			t.Errorf("%s: map %v, mc.exe map offset %#x", where, f.Map != nil, w.mapOff)
		}
	}
	// Counts: mc.exe drops count="0".
	switch {
	case w.flags&0x10 != 0:
		if f.CountIndex != int(w.count) {
			t.Errorf("%s: count index %d, mc.exe %d", where, f.CountIndex, w.count)
		}
	case w.flags&0x8 != 0:
		if !f.HasCount || f.CountField != "" || f.Count != w.count {
			t.Errorf("%s: count %v %d, mc.exe fixed %d", where, f.HasCount, f.Count, w.count)
		}
	default:
		if f.HasCount && (f.CountField != "" || f.Count != 0) {
			t.Errorf("%s: count %d %q, mc.exe none", where, f.Count, f.CountField)
		}
	}
	// Lengths: mc.exe drops length="0" and any length on a SID.
	switch {
	case w.flags&0x4 != 0:
		if f.LengthIndex != int(w.lng) {
			t.Errorf("%s: length index %d, mc.exe %d", where, f.LengthIndex, w.lng)
		}
	case w.flags&0x2 != 0:
		if f.LengthField != "" || f.Length != w.lng {
			t.Errorf("%s: length %d %q, mc.exe fixed %d", where, f.Length, f.LengthField, w.lng)
		}
	default:
		if f.InType != tdh.InTypeSID && (f.LengthField != "" || f.Length != 0) {
			t.Errorf("%s: length %d %q, mc.exe none", where, f.Length, f.LengthField)
		}
	}
}
