package parquetout

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/google/uuid"

	"github.com/etwkit/etw/eventjson"
)

// testRecord returns a record with every other string present and two
// frames, the second without a method, of stack identity 7, then tail.
func testRecord(tail []byte) []byte { return testRecordID(tail, 7) }

// testRecordID is testRecord with stack identity id.
func testRecordID(tail []byte, id uint64) []byte {
	b := make([]byte, fixedSize)
	putU64(b, offTime, 133_000_000_000_000_000)
	putU32(b, offPresent, hasHook|hasRelMS)
	for i := range nStrings {
		if i%2 == 0 {
			b = appendStr(b, bytes.Repeat([]byte{'a' + byte(i)}, i+1))
		} else {
			b = appendAbsent(b)
		}
	}
	b = binary.LittleEndian.AppendUint32(b, 2)
	b = binary.LittleEndian.AppendUint64(b, id)
	b = binary.LittleEndian.AppendUint32(b, 0)
	frames := len(b)
	b = binary.LittleEndian.AppendUint64(b, 0x7ff0_1234)
	b = binary.LittleEndian.AppendUint64(b, 0x34)
	b = append(b, frameHasModule|frameHasMethod)
	b = appendStr(b, "mod.dll")
	b = appendStr(b, "Ns.Method")
	b = binary.LittleEndian.AppendUint64(b, 0xfffff800_0000_1000)
	b = binary.LittleEndian.AppendUint64(b, 0)
	b = append(b, frameHasModule)
	b = appendStr(b, "ntoskrnl.exe")
	b = appendAbsent(b)
	putU32(b, frames-4, uint32(len(b)-frames))
	b = append(b, tail...)
	putU32(b, 0, uint32(len(b)))
	return b
}

// checkSame checks that rowSet.addRecord, which convertWrite uses, reads
// record b at offset off of raw as rec.parse does: the same strings, the
// same frames, the same fixed part.
func checkSame(t *testing.T, raw []byte, off int) {
	t.Helper()
	b := raw[off:]
	var r recFrames
	if err := r.parse(b); err != nil {
		t.Fatalf("parse: %v", err)
	}
	var s rowSet
	s.reset(raw)
	var scratch recFrames
	frames, err := s.addRecord(b, off, 42, &scratch)
	if err != nil {
		t.Fatalf("addRecord: %v", err)
	}
	if s.n != 1 || !bytes.Equal(s.fixed[:fixedSize], r.fixed) || binary.LittleEndian.Uint64(s.fixed[fixedSize:]) != 42 {
		t.Fatalf("fixed part: %d rows, %x", s.n, s.fixed)
	}
	for i := range nStrings {
		ref := s.str[i]
		switch {
		case !r.has[i]:
			if ref != absentRef {
				t.Errorf("string %d: absent in parse, ref %x", i, ref)
			}
		case ref == absentRef:
			t.Errorf("string %d: %q in parse, absent in addRecord", i, r.str[i])
		default:
			at, n := ref>>32, ref&0xFFFFFFFF
			if got := raw[at : at+n]; !bytes.Equal(got, r.str[i]) {
				t.Errorf("string %d: %q, parse %q", i, got, r.str[i])
			}
		}
	}
	if len(frames) != len(r.frames) {
		t.Fatalf("%d frames, parse %d", len(frames), len(r.frames))
	}
	for i := range frames {
		f, g := frames[i], r.frames[i]
		if f.address != g.address || f.offset != g.offset || f.flags != g.flags || !bytes.Equal(f.module, g.module) || !bytes.Equal(f.method, g.method) {
			t.Errorf("frame %d: %+v, parse %+v", i, f, g)
		}
	}
}

func TestAddRecordMatchesParse(t *testing.T) {
	b := testRecord(nil)
	checkSame(t, b, 0)
	// At an offset in the chunk's records: the references count from
	// the start of raw.
	checkSame(t, append(append([]byte(nil), testRecord(nil)...), b...), len(b))
	var r recFrames
	if err := r.parse(b); err != nil {
		t.Fatal(err)
	}
	if string(r.str[sProcessName]) != "a" || r.has[sProviderGUID] || string(r.frames[0].method) != "Ns.Method" || r.frames[1].method != nil {
		t.Errorf("parse: %q %v %q %q", r.str[sProcessName], r.has[sProviderGUID], r.frames[0].method, r.frames[1].method)
	}
	// Typed values after the frames (a split dump's record) are parsed
	// and checked by addRecord too.
	typed := binary.LittleEndian.AppendUint16(nil, 1)
	typed = append(typed, tagInt, 0)
	typed = binary.LittleEndian.AppendUint64(typed, 7)
	checkSame(t, testRecord(typed), 0)
}

// TestMalformedRecords cuts a record short and breaks its lengths: each
// reader returns errRecord, without a panic.
func TestMalformedRecords(t *testing.T) {
	whole := testRecord(nil)
	var bad [][]byte
	for n := range len(whole) {
		bad = append(bad, whole[:n:n])
	}
	// A string longer than the record.
	long := append([]byte(nil), whole...)
	putU32(long, fixedSize, uint32(len(long)))
	// More frames than the record can hold.
	many := append([]byte(nil), whole...)
	var r recFrames
	if err := r.parse(whole); err != nil {
		t.Fatal(err)
	}
	putU32(many, int(r.at[nStrings-1])+len(r.str[nStrings-1]), 1<<30)
	// A bad tag in the typed values.
	tag := testRecord([]byte{1, 0, 99, 0})
	bad = append(bad, long, many, tag)
	for i, b := range bad {
		if err := r.parse(b); err != errRecord {
			t.Errorf("%d: parse: %v", i, err)
		}
		var s rowSet
		s.reset(b)
		if _, err := s.addRecord(b, 0, 0, &r); err != errRecord {
			t.Errorf("%d: addRecord: %v", i, err)
		}
		// A record it rejects adds nothing to the row set.
		if s.n != 0 || len(s.str) != 0 || len(s.fixed) != 0 {
			t.Errorf("%d: a rejected record left %d rows, %d string refs, %d fixed bytes", i, s.n, len(s.str), len(s.fixed))
		}
	}
}

// FuzzRecord checks that rowSet.addRecord and rec.parse agree on any
// bytes: both reject them, or both read the same record.
func FuzzRecord(f *testing.F) {
	f.Add(testRecord(nil))
	f.Add(testRecord([]byte{1, 0, tagBytes, 1, 2, 0, 0, 0, 'h', 'i', 0xFF, 0xFF, 0xFF, 0xFF}))
	f.Fuzz(func(t *testing.T, b []byte) {
		var r rec
		perr := r.parse(b)
		var s rowSet
		s.reset(b)
		_, aerr := s.addRecord(b, 0, 0, new(recFrames))
		if (perr == nil) != (aerr == nil) {
			t.Fatalf("parse: %v, addRecord: %v", perr, aerr)
		}
		if perr == nil {
			checkSame(t, b, 0)
		}
	})
}

// TestProviderTexts checks the provider GUIDs' texts against
// eventjson.AppendGUID over GUIDs taking turns, more of them than the
// entries kept.
func TestProviderTexts(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	ids := make([]uuid.UUID, 12)
	for i := range ids {
		for j := range ids[i] {
			ids[i][j] = byte(rng.IntN(256))
		}
	}
	var p providerTexts
	for range 2000 {
		g := ids[rng.IntN(len(ids))]
		if rng.IntN(3) == 0 {
			g = ids[0]
		}
		if got, want := p.text(g)[:], eventjson.AppendGUID(nil, g); !bytes.Equal(got, want) {
			t.Fatalf("text of %v is %s, want %s", g, got, want)
		}
	}
}
