// Package memgoal keeps a process's memory near a target without letting
// the garbage collector run without pause.
//
// Go's collector starts a cycle when the heap has grown by GOGC percent
// (100) over what the last cycle found live, so a process peaks near
// twice its live heap. A soft memory limit (debug.SetMemoryLimit) caps
// that peak, but when the live heap comes near the limit the collector
// runs back to back and can take half the CPU. Start sets the limit to a
// target and, after every collection, raises it to leave the heap at
// least a quarter of its live size to grow into: while the live heap is
// small the process keeps under the target at the cost of a few more
// collections, and when it is large the collector does at most about
// four times its usual work (GOGC 25), never more.
package memgoal

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// MinHeadroom is the least growth, as a fraction of the live heap, that
// the tuned limit leaves before the next collection.
const MinHeadroom = 0.25

// Tuner holds the state of a running goal; Stop ends it.
type Tuner struct {
	target uint64
	mu     sync.Mutex
	done   bool
	prev   int64 // memory limit before Start
	limit  uint64
	need   uint64 // the live heap's need at the last collection (Limit without a target)
	sample []metrics.Sample
}

// Start keeps the Go runtime's memory near target bytes (heap, stacks and
// the runtime's own structures, as debug.SetMemoryLimit counts them) for
// the rest of the process or until Stop. It returns nil, and changes
// nothing, when GOMEMLIMIT or GOGC is set in the environment: the
// user's settings win.
func Start(target uint64) *Tuner {
	if os.Getenv("GOMEMLIMIT") != "" || os.Getenv("GOGC") != "" {
		return nil
	}
	t := &Tuner{target: target, sample: []metrics.Sample{
		{Name: "/gc/heap/live:bytes"},
		{Name: "/memory/classes/total:bytes"},
		{Name: "/memory/classes/heap/released:bytes"},
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/memory/classes/heap/unused:bytes"},
		{Name: "/memory/classes/heap/free:bytes"},
	}}
	t.limit = target
	t.prev = debug.SetMemoryLimit(int64(target))
	t.arm()
	return t
}

// Limit returns the memory limit the tuner set last.
func (t *Tuner) Limit() uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.limit
}

// SetTarget changes the target, for the rest of the process: a command
// whose memory is mostly what it holds live, and that allocates little
// while it runs, may keep nearer to it at the cost of a few more
// collections. The limit follows at once (with the live heap of the last
// collection) and after every collection. SetTarget on a nil Tuner does
// nothing.
func (t *Tuner) SetTarget(target uint64) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.done {
		return
	}
	t.target = target
	t.limit = max(target, t.need)
	debug.SetMemoryLimit(int64(t.limit))
}

// Stop ends the tuning and restores the limit that was in force before
// Start. Stop on a nil Tuner does nothing.
func (t *Tuner) Stop() {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.done = true
	debug.SetMemoryLimit(t.prev)
}

// sentinel is garbage as soon as it is made; its finalizer runs after the
// next collection and arms a new one, so adjust follows every cycle.
type sentinel struct{ t *Tuner }

func (t *Tuner) arm() {
	s := &sentinel{t}
	runtime.SetFinalizer(s, func(s *sentinel) {
		if s.t.adjust() {
			s.t.arm()
		}
	})
}

// adjust sets the limit after a collection: the target, or the live heap
// plus MinHeadroom of it plus the memory outside the heap's objects,
// whichever is larger. It reports whether tuning goes on.
func (t *Tuner) adjust() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.done {
		return false
	}
	metrics.Read(t.sample)
	v := func(i int) uint64 {
		if t.sample[i].Value.Kind() != metrics.KindUint64 {
			return 0
		}
		return t.sample[i].Value.Uint64()
	}
	live, total, released := v(0), v(1), v(2)
	heap := v(3) + v(4) + v(5)
	var other uint64 // stacks, runtime metadata, buffers outside the heap
	if total > released+heap {
		other = total - released - heap
	}
	t.need = Limit(0, live, other)
	t.limit = max(t.target, t.need)
	debug.SetMemoryLimit(int64(t.limit))
	return true
}

// Limit returns the memory limit for a live heap of live bytes and other
// bytes of runtime memory outside the heap: target, unless that would
// leave the heap less than MinHeadroom of its live size to grow into.
func Limit(target, live, other uint64) uint64 {
	need := float64(other) + float64(live)*(1+MinHeadroom)
	if need >= math.MaxInt64 {
		return math.MaxInt64
	}
	return max(target, uint64(need))
}
