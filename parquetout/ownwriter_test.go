package parquetout

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestOwnWriterGenerated: the events file written by ownWriter is the
// one parquet-go's writer makes, byte for byte, over generated records
// (TestBulkColumnsGenerated's): default and small pages, small row groups
// by rows and by bytes, each codec, pages in a temporary file, the
// header columns in bulk and as values, on one goroutine and on several;
// and for a file without rows; NewWriter's and NewExtendedWriter's
// (files of 7,000 rows with two extension columns).
func TestOwnWriterGenerated(t *testing.T) {
	defer func(was bool) { ownFile = was }(ownFile)
	defer func(was func() int) { flushWorkers = was }(flushWorkers)
	rng := rand.New(rand.NewPCG(24, 2028))
	records := genRecords(rng, 12_000)
	for _, o := range []*Options{nil, {PageBufferSize: 4 << 10}, {RowGroupRows: 700, Compression: Zstd},
		{RowGroupBytes: 256 << 10, Compression: Uncompressed}, {TempDir: t.TempDir(), PageBufferSize: 16 << 10}} {
		for _, recs := range [][]byte{records, nil} {
			for _, extended := range []bool{false, true} {
				ownFile = false
				want := writeGen(t, recs, o, 1, false, extended)
				ownFile = true
				for _, cols := range []int{1, 2} {
					// The last pages of a row group on as many
					// goroutines as its chunks' columns.
					flushWorkers = func() int { return cols }
					for _, bulk := range []bool{true, false} {
						if got := writeGen(t, recs, o, cols, bulk, extended); !bytes.Equal(got, want) {
							t.Errorf("%+v, %d records' bytes, extended %v, %d goroutines, bulk %v: our writer makes %d bytes, parquet-go's %d (or the same size, other bytes)",
								o, len(recs), extended, cols, bulk, len(got), len(want))
						}
					}
				}
			}
		}
	}
}

// TestOwnWriterTaken: NewWriter's and NewExtendedWriter's files are
// written by ownWriter under the options it takes, split tables' by
// parquet-go.
func TestOwnWriterTaken(t *testing.T) {
	var out bytes.Buffer
	for _, o := range []*Options{nil, {TempDir: t.TempDir()}, {Compression: Zstd, PageBufferSize: 4 << 10}} {
		w := NewWriter(&out, NewEncoder(nil, false), o)
		if w.t.own == nil {
			t.Errorf("%+v: NewWriter's file not ours", o)
		}
		if w.t.pw != nil || w.t.groups.pw != nil {
			t.Errorf("%+v: parquet-go's unused writer kept", o)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if w := NewWriter(&out, NewEncoder(nil, false), &Options{RowGroupBytes: 1 << 30}); w.t.own != nil {
		t.Error("row groups of 1 GiB: NewWriter's file ours")
	}
	x := &Extension{Columns: []Column{{"trace", 32, false}}, Values: func([]int64) {}}
	w, err := NewExtendedWriter(&out, nil, x)
	if err != nil {
		t.Fatal(err)
	}
	if w.t.own == nil {
		t.Error("NewExtendedWriter's file not ours")
	}
	if s := newSyncWriter(&out, 0, nil); s.t.own != nil {
		t.Error("a split table's file ours")
	}
}

// TestLevelCounts: the counts of levels 0 to max are a histogram's, for
// random levels of every max up to 20, with levels above max among them
// (not counted); the rest of the counts are 0.
func TestLevelCounts(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 1129))
	for max := range byte(21) {
		for _, n := range []int{0, 1, 31, 32, 33, 1000} {
			levels := make([]byte, n)
			for i := range levels {
				levels[i] = byte(rng.IntN(int(max) + 3))
			}
			var want [256]int64
			for _, v := range levels {
				if v <= max {
					want[v]++
				}
			}
			if got := levelCounts(levels, max); got != want {
				t.Errorf("max %d, %d levels: counts %v, want %v", max, n, got[:max+3], want[:max+3])
			}
		}
	}
}

func BenchmarkLevelCounts(b *testing.B) {
	levels := make([]byte, 64<<10)
	for i := range levels {
		levels[i] = byte(i>>3) & 1
	}
	b.SetBytes(int64(len(levels)))
	for b.Loop() {
		levelCounts(levels, 1)
	}
}

// TestIndexNot: the first byte that is not c, against a byte loop, for
// runs of every length up to 40 followed by any byte, at any start.
func TestIndexNot(t *testing.T) {
	for n := range 41 {
		for _, c := range []byte{0, 1, 3, 255} {
			for _, after := range []byte{0, 1, 2, 254, 255} {
				b := append(bytes.Repeat([]byte{c}, n), after, c, c)
				for start := range min(len(b), 10) {
					want := start
					for want < len(b) && b[want] == c {
						want++
					}
					if got := start + indexNot(b[start:], c); got != want {
						t.Fatalf("%d bytes %d then %d, from %d: %d, want %d", n, c, after, start, got, want)
					}
				}
			}
		}
	}
}
