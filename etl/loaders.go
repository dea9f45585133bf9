package etl

import (
	"container/heap"
	"math"
	"runtime"
	"sync"
)

// loaders runs a Reader's buffer loads on at most n goroutines, most
// urgent first: a load's need is the time (FILETIME) at which the merge
// will want the buffer, which is when its stream's previous buffer ends
// (the previous buffer's flush time), or now for a stream's first buffer.
// Loads in the order they were asked for would let buffers wanted later
// (a quiet processor's next one) delay the one the reading goroutine
// waits for (the busy processor's); in FileOrder the need is the order
// of the requests.
//
// The goroutines start with the first loads and end when none is
// pending: a Reader that is not read holds none.
type loaders struct {
	mu      sync.Mutex
	pending loadHeap   // by (need, seq)
	free    []*loadReq // requests done, for reuse: a long trace has many buffers
	running int
	n       int
	seq     int64
	prep    Preparer
	at      int // the checkpoint of Reader.window, or 0
}

type loadReq struct {
	ref   bufRef
	need  int64
	seq   int64
	ch    chan loadResult
	again bool // a parked stream's buffer, loaded before: not reported to the read hook
}

// add queues a load of ref whose result comes on ch (buffered, empty);
// again says the reader loaded it before (park.go).
func (l *loaders) add(ref bufRef, need int64, ch chan loadResult, again bool) {
	l.mu.Lock()
	l.seq++
	var q *loadReq
	if k := len(l.free); k > 0 {
		q = l.free[k-1]
		l.free = l.free[:k-1]
	} else {
		q = new(loadReq)
	}
	*q = loadReq{ref: ref, need: need, seq: l.seq, ch: ch, again: again}
	heap.Push(&l.pending, q)
	if l.running < l.n {
		l.running++
		go l.work()
	}
	l.mu.Unlock()
}

// work loads pending buffers, most urgent first, until none is left.
func (l *loaders) work() {
	for {
		l.mu.Lock()
		if len(l.pending) == 0 {
			l.running--
			l.mu.Unlock()
			return
		}
		q := heap.Pop(&l.pending).(*loadReq)
		ref, ch, again := q.ref, q.ch, q.again
		*q = loadReq{}
		l.free = append(l.free, q)
		l.mu.Unlock()
		ch <- load(ref, l.prep, l.at, !again)
		// The goroutine waiting for that buffer, if any, was readied to
		// run next on this processor: yield to it. Otherwise it waits
		// until this loop runs out of loads, even with the other
		// processor idle, if that processor runs the collector's idle
		// worker (which looks for work only in its own run queue and the
		// global one): ~11 ms a run of stats on two cores, in an
		// execution trace of the reading goroutine, runnable but not
		// running.
		runtime.Gosched()
	}
}

// cancel drops the loads not yet started: each one's channel gets an
// empty result at once (Reader.Close then waits only for the loads under
// way, not for buffers nobody will read).
func (l *loaders) cancel() {
	l.mu.Lock()
	for i, q := range l.pending {
		q.ch <- loadResult{}
		l.pending[i] = nil
	}
	l.pending = l.pending[:0]
	l.mu.Unlock()
}

// loadHeap is a min-heap of loads by (need, seq) (container/heap).
type loadHeap []*loadReq

func (h loadHeap) Len() int { return len(h) }

func (h loadHeap) Less(i, j int) bool {
	if h[i].need != h[j].need {
		return h[i].need < h[j].need
	}
	return h[i].seq < h[j].seq
}

func (h loadHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }

func (h *loadHeap) Push(x any) { *h = append(*h, x.(*loadReq)) }

func (h *loadHeap) Pop() any {
	old := *h
	n := len(old) - 1
	q := old[n]
	old[n] = nil
	*h = old[:n]
	return q
}

// need returns when the merge will want s's buffer k: when the buffer
// before it in the stream ends, as its flush time says; a stream's first
// buffer is wanted at once. In FileOrder the requests' order is the need.
func (r *Reader) need(s *stream, k int) int64 {
	if r.order == FileOrder || k == 0 {
		return math.MinInt64
	}
	prev := s.bufs[k-1]
	return r.files[prev.file].Clock.FileTime(r.index[prev.file][prev.buf].Header.TimeStamp)
}
