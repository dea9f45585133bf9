package etl

import (
	"path/filepath"
	"sync"
	"testing"
)

// loadOrder is a Preparer that records the order in which buffers are
// loaded.
type loadOrder struct {
	mu    sync.Mutex
	order []int
}

type noPrep struct{}

func (noPrep) Release() {}

func (o *loadOrder) Prepare(b *Buffer, file int) Prepared {
	o.mu.Lock()
	o.order = append(o.order, b.Index)
	o.mu.Unlock()
	return noPrep{}
}

// TestLoadersMostUrgentFirst: pending loads run by need, then by the
// order they were asked for, whatever that order was.
func TestLoadersMostUrgentFirst(t *testing.T) {
	f, err := Open(filepath.Join("..", "testdata", "etl", "compressed.etl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	bufs := f.Buffers()
	if len(bufs) < 6 {
		t.Fatalf("%d buffers: the test wants 6", len(bufs))
	}
	var o loadOrder
	l := &loaders{n: 0, prep: &o} // no worker starts: the loads stay pending
	needs := []int64{50, 10, 30, 10, -5, 40}
	var chs []chan loadResult
	for i, need := range needs {
		chs = append(chs, l.add(bufRef{file: f, info: bufs[i]}, need))
	}
	l.running = 1
	l.work()
	want := []int{bufs[4].Index, bufs[1].Index, bufs[3].Index, bufs[2].Index, bufs[5].Index, bufs[0].Index}
	if len(o.order) != len(want) {
		t.Fatalf("loaded %v, want %v", o.order, want)
	}
	for i := range want {
		if o.order[i] != want[i] {
			t.Fatalf("loaded %v, want %v", o.order, want)
		}
	}
	if l.running != 0 || len(l.pending) != 0 {
		t.Errorf("after the work: %d running, %d pending", l.running, len(l.pending))
	}
	for i, ch := range chs {
		res := <-ch
		if res.err != nil || res.buf == nil || res.buf.Index != bufs[i].Index {
			t.Fatalf("load %d: %v", i, res.err)
		}
		res.buf.Release()
	}
}
