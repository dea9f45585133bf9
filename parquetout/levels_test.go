package parquetout

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// TestAppendColumnLevels: the definition levels appendColumn leaves in
// s.defs (which ownColumn.writeRowLevels takes instead of the values') are
// the values' own, for every header column, over generated records in
// row sets of several sizes (columns null in every row, in none, and
// mixed among them).
func TestAppendColumnLevels(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 1128))
	raw := genRecords(rng, 5_000)
	// Where each record starts in raw, and where the last one ends.
	var starts []int
	for off := 0; off < len(raw); off += int(binary.LittleEndian.Uint32(raw[off:])) {
		starts = append(starts, off)
	}
	recs := len(starts)
	starts = append(starts, len(raw))
	k := &chunk{borrow: true}
	var s rowSet
	var r recFrames
	nulls, present := 0, 0
	for _, size := range []int{1, 7, 97, 500, recs} {
		for at := 0; at < recs; at += size {
			end := min(at+size, recs)
			b := raw[starts[at]:starts[end]] // the row set's records
			s.reset(b)
			for i := at; i < end; i++ {
				off := starts[i] - starts[at]
				if _, err := s.addRecord(b[off:starts[i+1]-starts[at]], off, 0, &r); err != nil {
					t.Fatalf("record at %d: %v", off, err)
				}
			}
			for col := range nMainColumns {
				if bulkColumns()[col] {
					continue // not written as values
				}
				vals := s.appendColumn(nil, col, k)
				if len(s.defs) != len(vals) {
					t.Fatalf("column %d: %d levels for %d values", col, len(s.defs), len(vals))
				}
				for i := range vals {
					if got, want := int(s.defs[i]), vals[i].DefinitionLevel(); got != want {
						t.Fatalf("rows %d–%d of %d, column %d, row %d: level %d made, the value's is %d",
							at, end, recs, col, i, got, want)
					}
					if vals[i].IsNull() {
						nulls++
					} else {
						present++
					}
				}
			}
		}
	}
	if nulls == 0 || present == 0 {
		t.Errorf("%d null and %d present values: the records do not test both", nulls, present)
	}
}

// TestStackLevels: the levels stackRecord keeps of the stack columns'
// values (chunk.defs, chunk.reps) are the values' own, for rows with and
// without frames and for stacks repeated in a chunk (sameStack), over
// chunks of several sizes.
func TestStackLevels(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 28))
	raw := genRecords(rng, 4_000)
	st := stackColumns{2, 0, 3, 1}
	for _, size := range []int{1, 50, 1_000} {
		c := &chunk{cols: make([][]parquet.Value, 4), borrow: true}
		var r rec
		rows := 0
		for off := 0; off < len(raw); {
			n := int(binary.LittleEndian.Uint32(raw[off:]))
			b := raw[off : off+n]
			off += n
			if err := r.parse(b); err != nil {
				t.Fatal(err)
			}
			if _, ok := c.stackRecord(st, b, r.framesAt); !ok {
				t.Fatalf("record at %d: frames not read", off-n)
			}
			if rows++; rows%size != 0 && off < len(raw) {
				continue
			}
			for _, col := range st.all() {
				vals := c.cols[col]
				if len(c.defs[col]) != len(vals) || len(c.reps[col]) != len(vals) {
					t.Fatalf("chunks of %d rows, column %d: %d definition and %d repetition levels for %d values",
						size, col, len(c.defs[col]), len(c.reps[col]), len(vals))
				}
				for i := range vals {
					if d, r := int(c.defs[col][i]), int(c.reps[col][i]); d != vals[i].DefinitionLevel() || r != vals[i].RepetitionLevel() {
						t.Fatalf("chunks of %d rows, column %d, value %d: levels %d/%d kept, the value's are %d/%d",
							size, col, i, d, r, vals[i].DefinitionLevel(), vals[i].RepetitionLevel())
					}
				}
			}
			c.reset()
		}
	}
}
