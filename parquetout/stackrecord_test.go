package parquetout

import (
	"bytes"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/etwkit/etw/analysis"
)

// checkStackRecord checks that chunk.stackRecord and skipFrames accept
// the frames of record b at at when parseFrames does and end where it
// does, and that stackRecord makes the
// values of the frames it reads: per frame, the address (definition level
// 2), the module and offset (3 when the frame has a module, else null at
// 2) and the method (3 or null at 2), the first of a row at repetition
// level 0, the others at 1; a row without frames is null in each column.
func checkStackRecord(t *testing.T, b []byte, at int, borrow bool) {
	t.Helper()
	frames, wantNext, wantOK := parseFrames(b, at, nil)
	if next, ok := skipFrames(b, at); ok != wantOK || (ok && next != wantNext) {
		t.Fatalf("skipFrames: next %d, ok %v; parseFrames: %d, %v", next, ok, wantNext, wantOK)
	}
	cols := stackColumns{0, 1, 2, 3}
	k := &chunk{cols: make([][]parquet.Value, 4), borrow: borrow}
	const rows = 2 // a chunk holds many
	for range rows {
		next, ok := k.stackRecord(cols, b, at)
		if ok != wantOK || (ok && next != wantNext) {
			t.Fatalf("stackRecord: next %d, ok %v; parseFrames: %d, %v", next, ok, wantNext, wantOK)
		}
		if !ok {
			return
		}
	}
	per := max(len(frames), 1)
	if k.values != rows*len(frames) {
		t.Errorf("stack values %d, want %d", k.values, rows*len(frames))
	}
	for c, col := range k.cols {
		if len(col) != rows*per {
			t.Fatalf("column %d: %d values, want %d", c, len(col), rows*per)
		}
	}
	check := func(what string, v parquet.Value, def, rep int, present bool, n uint64, isBytes bool, s []byte) {
		t.Helper()
		switch {
		case v.DefinitionLevel() != def || v.RepetitionLevel() != rep || v.IsNull() == present:
			t.Errorf("%s: %v at levels %d, %d; want present %v at %d, %d", what, v, v.DefinitionLevel(), v.RepetitionLevel(), present, def, rep)
		case !present:
		case isBytes && (v.Kind() != parquet.ByteArray || !bytes.Equal(v.ByteArray(), s)):
			t.Errorf("%s: %v, want %q", what, v, s)
		case !isBytes && (v.Kind() != parquet.Int64 || v.Uint64() != n):
			t.Errorf("%s: %v, want %d", what, v, n)
		}
	}
	for row := range rows {
		if len(frames) == 0 {
			for c := range k.cols {
				check("null row", k.cols[c][row], 0, 0, false, 0, false, nil)
			}
			continue
		}
		for i, f := range frames {
			j := row*per + i
			rep := min(i, 1)
			mod, meth := f.flags&frameHasModule != 0, f.flags&frameHasMethod != 0
			check("address", k.cols[0][j], 2, rep, true, f.address, false, nil)
			check("module", k.cols[1][j], 2+int(btob(mod)), rep, mod, 0, true, f.module)
			check("offset", k.cols[2][j], 2+int(btob(mod)), rep, mod, f.offset, false, nil)
			check("method", k.cols[3][j], 2+int(btob(meth)), rep, meth, 0, true, f.method)
			if !borrow && mod && len(f.module) > 0 && &k.cols[1][j].ByteArray()[0] == &f.module[0] {
				t.Errorf("frame %d: module points into the record in a chunk that copies its values", i)
			}
		}
	}
}

// framesAt is where the frames of record b start (b's strings read).
func framesAt(t *testing.T, b []byte) int {
	var r rec
	if err := r.parse(b); err != nil {
		t.Fatal(err)
	}
	return r.framesAt
}

func TestStackRecord(t *testing.T) {
	b := testRecord(nil)
	at := framesAt(t, b)
	checkStackRecord(t, b, at, true)
	checkStackRecord(t, b, at, false)
	// Cut anywhere in the frames: both readers refuse it.
	for n := at; n < len(b); n++ {
		checkStackRecord(t, b[:n:n], at, true)
	}
	// No frames: a null row in each column.
	none := append(append([]byte(nil), b[:at]...), 0, 0, 0, 0)
	putU32(none, 0, uint32(len(none)))
	checkStackRecord(t, none, at, true)
}

// FuzzStackRecord checks that chunk.stackRecord, skipFrames and
// parseFrames agree on any bytes after a record's strings.
func FuzzStackRecord(f *testing.F) {
	b := testRecord(nil)
	var r rec
	if err := r.parse(b); err != nil {
		f.Fatal(err)
	}
	f.Add(b[r.framesAt:])
	f.Fuzz(func(t *testing.T, frames []byte) {
		checkStackRecord(t, frames, 0, true)
	})
}

// TestChunkStacks: rows whose stacks have one identity get the values of
// the chunk's first row with it; stacks of another identity in the same
// slot, of another length, without identity, in a chunk that copies its
// values, or after the chunk was emptied, are read from their frames.
func TestChunkStacks(t *testing.T) {
	img := &analysis.Image{Base: 0x10000, Size: 0x1000, Path: `C:\a.dll`}
	meth := &analysis.Method{Start: 0x10100, Size: 0x10, Namespace: "N", Name: "M"}
	stack := func(n int, first uint64) []analysis.Frame {
		s := make([]analysis.Frame, n)
		for i := range s {
			a := first + uint64(i)
			s[i] = analysis.Frame{Address: a, Image: img, Offset: a - img.Base}
			if i%2 == 1 {
				s[i].Method = meth
			}
		}
		return s
	}
	rec := func(s []analysis.Frame, id uint64) []byte { return appendFrames(nil, s, id) }
	a, b := rec(stack(3, 0x10000), 7), rec(stack(5, 0x10100), 7+chunkStacks)
	short := rec(stack(2, 0x10050), 7) // not expected: another length under a known identity
	none := rec(stack(4, 0x10200), 0)
	cols := stackColumns{0, 1, 2, 3}
	// want returns the values of record r read alone.
	want := func(r []byte) [][]parquet.Value {
		k := &chunk{cols: make([][]parquet.Value, 4), borrow: true}
		if _, ok := k.stackRecord(cols, r, 0); !ok {
			t.Fatal("a record was refused")
		}
		return k.cols
	}
	for _, borrow := range []bool{true, false} {
		k := &chunk{cols: make([][]parquet.Value, 4), borrow: borrow}
		// a and b share a slot; short has a's identity.
		seq := [][]byte{a, a, b, b, a, a, short, short, a, none, none}
		for round := range 2 {
			for i, r := range seq {
				at := len(k.cols[0])
				next, ok := k.stackRecord(cols, r, 0)
				if !ok || next != len(r) {
					t.Fatalf("borrow %v, round %d, row %d: next %d, ok %v", borrow, round, i, next, ok)
				}
				w := want(r)
				for c := range k.cols {
					got := k.cols[c][at:]
					if len(got) != len(w[c]) {
						t.Fatalf("borrow %v, round %d, row %d, column %d: %d values, want %d", borrow, round, i, c, len(got), len(w[c]))
					}
					for j := range got {
						if !parquet.DeepEqual(got[j], w[c][j]) || got[j].DefinitionLevel() != w[c][j].DefinitionLevel() || got[j].RepetitionLevel() != w[c][j].RepetitionLevel() {
							t.Fatalf("borrow %v, round %d, row %d, column %d, value %d: %v, want %v", borrow, round, i, c, j, got[j], w[c][j])
						}
					}
				}
			}
			k.reset() // the next round starts from empty columns
			if k.stacks != ([chunkStacks]chunkStack{}) {
				t.Fatal("reset kept the chunk's stacks")
			}
		}
	}
}
