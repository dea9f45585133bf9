package parquetout

import (
	"io"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
)

// TestGroupPoolBound: encoders that take row groups in turn, finish them
// in any order and commit them in sequence never hold more than max
// writers, reuse them, and do not deadlock, with row groups of any size
// (a row group may be finished before an earlier one is begun).
func TestGroupPoolBound(t *testing.T) {
	schema := parquet.NewSchema("t", newGroup([]field{{"x", parquet.Int(64)}}))
	pw := parquet.NewGenericWriter[any](io.Discard, schema)
	for _, c := range []struct{ encoders, max int }{{1, 1}, {2, 2}, {4, 4}, {4, 2}, {3, 1}} {
		var p groupPool
		p.init(pw, c.max, 1)
		const groups = 200
		done := make(chan rgDone, c.encoders)
		var mu sync.Mutex
		seen := map[rowGroupWriter]bool{}
		held := 0
		var wg sync.WaitGroup
		for e := range c.encoders {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for seq := e; seq < groups; seq += c.encoders {
					g := p.get(seq)
					if len(g.cols) != 1 {
						t.Errorf("%+v: values for %d columns, want 1", c, len(g.cols))
					}
					mu.Lock()
					seen[g.crg] = true
					held++
					if held > c.max {
						t.Errorf("%+v: %d writers held", c, held)
					}
					mu.Unlock()
					// Row groups of different sizes finish out of order.
					time.Sleep(time.Duration((seq*7919)%5) * 100 * time.Microsecond)
					done <- rgDone{seq: seq, g: g}
				}
			}()
		}
		go func() { wg.Wait(); close(done) }()
		finished := make(chan struct{})
		go func() {
			defer close(finished)
			next := 0
			pending := map[int]rgDone{}
			for d := range done {
				pending[d.seq] = d
				for {
					d, ok := pending[next]
					if !ok {
						break
					}
					delete(pending, next)
					next++
					mu.Lock()
					held--
					mu.Unlock()
					p.put(d.g, true)
				}
			}
		}()
		select {
		case <-finished:
		case <-time.After(30 * time.Second):
			t.Fatalf("%+v: deadlock", c)
		}
		if len(seen) > c.max {
			t.Errorf("%+v: %d writers made for %d row groups, want at most %d", c, len(seen), groups, c.max)
		}
	}
}

// TestChunksInFlight: an async table has an encoder per row group in
// flight and a chunk of records (up to 1 MiB) for each, the one filling
// and one queued, whatever the number of processors: a second encoder
// with one row group in flight only held a chunk for the next row group
// (1 MB of the Parquet dump's live heap).
func TestChunksInFlight(t *testing.T) {
	for _, procs := range []int{1, 2, 8} {
		prev := runtime.GOMAXPROCS(procs)
		tb := newTable(io.Discard, "event", mainFields(), nil, metadata(), true)
		runtime.GOMAXPROCS(prev)
		if got, want := len(tb.enc), min(procs, rowGroupsInFlight); got != want {
			t.Errorf("GOMAXPROCS %d: %d encoders, want %d", procs, got, want)
		}
		if got, want := cap(tb.free), len(tb.enc)+2; got != want {
			t.Errorf("GOMAXPROCS %d: %d chunks, want %d", procs, got, want)
		}
		if err := tb.close(); err != nil {
			t.Fatal(err)
		}
	}
}
