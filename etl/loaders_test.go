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

// openCompressed opens testdata's compressed.etl for t (closed when t
// ends).
func openCompressed(t *testing.T) *File {
	f, err := Open(filepath.Join("..", "testdata", "etl", "compressed.etl"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// TestLoadersMostUrgentFirst: pending loads run by need, then by the
// order they were asked for, whatever that order was.
func TestLoadersMostUrgentFirst(t *testing.T) {
	f := openCompressed(t)
	bufs := f.Buffers()
	if len(bufs) < 6 {
		t.Fatalf("%d buffers: the test wants 6", len(bufs))
	}
	var o loadOrder
	l := &loaders{n: 0, prep: &o} // no worker starts: the loads stay pending
	needs := []int64{50, 10, 30, 10, -5, 40}
	var chs []chan loadResult
	for i, need := range needs {
		chs = append(chs, make(chan loadResult, 1))
		l.add(bufRef{file: f, info: bufs[i]}, need, chs[i], false)
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

// TestLoadersCancel: the loads not yet started end at once with an empty
// result, and none of them is read.
func TestLoadersCancel(t *testing.T) {
	f := openCompressed(t)
	bufs := f.Buffers()
	var o loadOrder
	l := &loaders{n: 0, prep: &o} // no worker starts: the loads stay pending
	var chs []chan loadResult
	for i := range min(len(bufs), 4) {
		chs = append(chs, make(chan loadResult, 1))
		l.add(bufRef{file: f, info: bufs[i]}, int64(i), chs[i], false)
	}
	l.cancel()
	for i, ch := range chs {
		select {
		case res := <-ch:
			if res.buf != nil || res.prep != nil || res.err != nil {
				t.Errorf("load %d after cancel: %+v, want an empty result", i, res)
			}
		default:
			t.Fatalf("load %d: no result after cancel", i)
		}
	}
	if len(l.pending) != 0 || len(o.order) != 0 {
		t.Errorf("after cancel: %d pending, %d loaded", len(l.pending), len(o.order))
	}
}
