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
//
// The tuner also keeps the collector from starting while the heap is
// small next to the target: Go's first cycle comes at 4 MB and each next
// one when the heap has doubled, so a command that holds a few megabytes
// collects every few megabytes it allocates, each cycle taking a
// processor from the work for its marking. With a goal the heap may grow
// to MinGoal of the target before a cycle (the GC percentage raised while
// the live heap is below half of that), which costs no more memory than
// the target allows.
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

// MinGoal is the fraction of the target that the heap may reach before a
// collection, however small the live heap (Percent), unless
// Tuner.SetMinGoal says otherwise. A quarter (18 MiB of the CLI's 72, 10
// of the text dumps' 40) took stats on net.4.5.2 from 4 collections to
// none and 56.5 to 47.0 ms on one core, 43.8 to 33.8 on two
// (BenchmarkCommandsNet, 2026-11-27); a half took CSV's peak at ×16 from
// 44-50 to 52 MiB for no faster run.
const MinGoal = 0.25

// runtimeMargin and runtimeMinMargin are what the runtime keeps back of
// the heap's goal under a memory limit (memoryLimitHeapGoalHeadroomPercent
// and memoryLimitMinHeapGoalHeadroom, runtime/mgcpacer.go).
const (
	runtimeMargin    = 0.03
	runtimeMinMargin = 1 << 20
)

// goPercent is the GC percentage when the live heap is large enough
// (Go's default).
const goPercent = 100

// runtimeMinHeap is the heap size of Go's first cycle at GOGC 100 (the
// runtime's heapMinimum, which scales with the percentage).
const runtimeMinHeap = 4 << 20

// Tuner holds the state of a running goal; Stop ends it.
type Tuner struct {
	target  uint64
	mu      sync.Mutex
	done    bool
	prev    int64   // memory limit before Start
	prevGC  int     // GC percentage before Start
	pct     int     // GC percentage set last
	minGoal float64 // the MinGoal in force (SetMinGoal)
	limit   uint64
	need    uint64 // the live heap's need at the last collection (Limit without a target)
	live    uint64 // the live heap at the last collection
	sample  []metrics.Sample
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
	t := &Tuner{target: target, minGoal: MinGoal, sample: []metrics.Sample{
		{Name: "/gc/heap/live:bytes"},
		{Name: "/memory/classes/total:bytes"},
		{Name: "/memory/classes/heap/released:bytes"},
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/memory/classes/heap/free:bytes"},
	}}
	t.limit = target
	t.prev = debug.SetMemoryLimit(int64(target))
	t.pct = Percent(target, 0, t.minGoal)
	t.prevGC = debug.SetGCPercent(t.pct)
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
	t.update(func() {
		t.target = target
		t.limit = max(target, t.need)
		debug.SetMemoryLimit(int64(t.limit))
		t.setPercent(Percent(target, t.live, t.minGoal))
	})
}

// update runs f under t's lock, unless t is nil or stopped.
func (t *Tuner) update(f func()) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.done {
		f()
	}
}

// SetMinGoal replaces MinGoal, for the rest of the process: the fraction
// of the target the heap may grow to before a collection while the live
// heap is small. A command whose heap grows by what it holds (a model
// and the passes over it) past MinGoal of the target without much
// garbage pays for each early collection with a processor taken from
// its work for the marking, and the write barriers meanwhile. It changes
// no limit: the target bounds the memory as before. SetMinGoal on a nil
// Tuner does nothing.
func (t *Tuner) SetMinGoal(frac float64) {
	t.update(func() {
		t.minGoal = frac
		t.setPercent(Percent(t.target, t.live, frac))
	})
}

// setPercent sets the GC percentage to pct if it is not that already.
func (t *Tuner) setPercent(pct int) {
	if pct != t.pct {
		t.pct = pct
		debug.SetGCPercent(pct)
	}
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
	debug.SetGCPercent(t.prevGC)
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

// adjust sets the limit after a collection: the target, or what the
// live heap needs (Limit), whichever is larger. It reports whether tuning
// goes on.
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
	// The runtime makes the heap's goal of the limit by taking away all
	// the memory it holds but the heap's objects and free pages
	// (memoryLimitHeapGoal, runtime/mgcpacer.go): the free slots of the
	// spans in use count against the goal as stacks and metadata do. Left
	// out of other, they took the headroom: a model pass whose live heap
	// grew past 28 MB under the text dumps' 40 MiB had goals 1-2 MB above
	// it, and a collection every few megabytes allocated.
	var other uint64
	if inHeap := v(3) + v(4); total > released+inHeap {
		other = total - released - inHeap
	}
	t.need = Limit(0, live, other)
	t.live = live
	t.limit = max(t.target, t.need)
	debug.SetMemoryLimit(int64(t.limit))
	t.setPercent(Percent(t.target, live, t.minGoal))
	return true
}

// Limit returns the memory limit for a live heap of live bytes and other
// bytes of memory that are neither the heap's objects nor its free pages:
// target, unless that would leave the heap less than MinHeadroom of its
// live size to grow into, after the runtime has kept back its own margin
// below the limit (3 % of the goal, at least 1 MiB: runtime/mgcpacer.go).
func Limit(target, live, other uint64) uint64 {
	goal := float64(live) * (1 + MinHeadroom)
	need := float64(other) + max(goal/(1-runtimeMargin), goal+runtimeMinMargin)
	if need >= math.MaxInt64 {
		return math.MaxInt64
	}
	return max(target, uint64(need))
}

// Percent returns the GC percentage for a live heap of live bytes (0
// before the first collection) under target: Go's default of 100, or
// more while the live heap is below half of minGoal of the target (a
// fraction, MinGoal unless a command set another), so that the heap's
// goal is minGoal of the target. Go's goal is the larger of live × (1 +
// percent/100) and its least heap, 4 MB × percent/100
// (runtime/mgcpacer.go): the percentage is bounded by both, else a live
// heap under a few megabytes would be given a goal above minGoal.
func Percent(target, live uint64, minGoal float64) int {
	goal := uint64(float64(target) * minGoal)
	if live*2 >= goal {
		return goPercent
	}
	p := goal * 100 / runtimeMinHeap
	if live > 0 {
		p = min(p, (goal-live)*100/live)
	}
	return max(goPercent, int(p))
}
