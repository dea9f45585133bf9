package memgoal

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

func TestLimit(t *testing.T) {
	const mib = 1 << 20
	want := func(other, goal float64) uint64 { return uint64(other + goal) }
	for _, c := range []struct{ target, live, other, want uint64 }{
		{72 * mib, 20 * mib, 8 * mib, 72 * mib},                      // small heap: the target
		{72 * mib, 49 * mib, 8 * mib, 72 * mib},                      // 49*1.25/0.97+8 = 71.1: still the target
		{72 * mib, 60 * mib, 8 * mib, want(8*mib, 60*mib*1.25/0.97)}, // 85.3: a quarter of headroom and the runtime's 3 %
		{72 * mib, 2 * mib, 70 * mib, 73*mib + mib/2},                // 70+2.5+1: the runtime's least margin, 1 MiB
		{0, 100 * mib, 0, want(0, 100*mib*1.25/0.97)},                // no target: headroom alone (128.9)
		{72 * mib, math.MaxUint64 / 2, 0, math.MaxInt64},             // no overflow
	} {
		if got := Limit(c.target, c.live, c.other); got != c.want {
			t.Errorf("Limit(%d, %d, %d) = %d, want %d", c.target/mib, c.live/mib, c.other/mib, got/mib, c.want/mib)
		}
	}
}

func TestPercent(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct {
		target, live uint64
		want         int
	}{
		{72 * mib, 0, 450},           // first cycle at 18 MiB, not 4
		{8 * mib, 0, 100},            // 4 MiB is past MinGoal of the target
		{72 * mib, 4 * mib, 350},     // 4 × (1 + 3.5) = 18
		{72 * mib, 6 * mib, 200},     // 6 × 3 = 18
		{72 * mib, 9 * mib, 100},     // 9 × 2 = 18: Go's default from here
		{72 * mib, 30 * mib, 100},    // the limit decides above
		{72 * mib, 1, 450},           // Go's least heap, 4 MiB × 4.5, is the goal
		{72 * mib, 3 * mib, 450},     // 3 × 5.5 = 16.5 under the least heap's 18
		{40 * mib, 5 * mib / 2, 250}, // the text dumps' 10 MiB: Go's least heap, 4 × 2.5
	} {
		if got := Percent(c.target, c.live, MinGoal); got != c.want {
			t.Errorf("Percent(%d MiB, %d) = %d, want %d", c.target/mib, c.live, got, c.want)
		}
	}
}

// TestPercentMinGoal: a command's own MinGoal moves the goal of a small
// live heap, and not Go's default above half of it.
func TestPercentMinGoal(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct {
		live uint64
		min  float64
		want int
	}{
		{0, 0.5, 900},        // first cycle at 36 MiB of 72
		{6 * mib, 0.5, 500},  // 6 × 6 = 36
		{18 * mib, 0.5, 100}, // 18 × 2 = 36: Go's default from here
		{6 * mib, 0.25, 200}, // MinGoal's 18
	} {
		if got := Percent(72*mib, c.live, c.min); got != c.want {
			t.Errorf("Percent(72 MiB, %d MiB, %v) = %d, want %d", c.live/mib, c.min, got, c.want)
		}
	}
}

// TestStartPercent: Start raises the GC percentage for a small heap,
// SetMinGoal sets the percentage of its fraction at once, and Stop
// restores the one before Start; a nil Tuner takes SetMinGoal.
func TestStartPercent(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	t.Setenv("GOGC", "")
	before := debug.SetGCPercent(70)
	defer debug.SetGCPercent(before)
	tu := Start(72 << 20)
	if tu == nil {
		t.Fatal("Start returned nil with no GOMEMLIMIT or GOGC")
	}
	tu.mu.Lock()
	got, want := debug.SetGCPercent(-1), tu.pct
	debug.SetGCPercent(got)
	tu.mu.Unlock()
	if got != want || got <= 100 {
		t.Errorf("GC percent after Start %d (tuner: %d), want above 100", got, want)
	}
	tu.SetMinGoal(0.5)
	tu.mu.Lock()
	got, live := debug.SetGCPercent(-1), tu.live
	debug.SetGCPercent(got)
	tu.mu.Unlock()
	if want := Percent(72<<20, live, 0.5); got != want || got <= Percent(72<<20, live, MinGoal) {
		t.Errorf("GC percent after SetMinGoal(0.5) %d, want %d (above MinGoal's)", got, want)
	}
	var none *Tuner
	none.SetMinGoal(0.5)
	tu.Stop()
	if got := debug.SetGCPercent(70); got != 70 {
		t.Errorf("GC percent after Stop %d, want the 70 before Start", got)
	}
}

func TestStartEnvironment(t *testing.T) {
	for _, env := range []string{"GOMEMLIMIT", "GOGC"} {
		t.Run(env, func(t *testing.T) {
			t.Setenv(env, "100")
			before := debug.SetMemoryLimit(-1)
			if tu := Start(1 << 20); tu != nil {
				tu.Stop()
				t.Fatalf("%s set: Start tuned", env)
			}
			if got := debug.SetMemoryLimit(-1); got != before {
				t.Errorf("%s set: limit changed to %d", env, got)
			}
		})
	}
}

// TestFollowsCollections keeps a live heap larger than the target and
// checks that the limit rises after collections to leave it headroom, and
// that Stop restores the limit in force before.
func TestFollowsCollections(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	t.Setenv("GOGC", "")
	before := debug.SetMemoryLimit(-1)
	const target = 8 << 20
	tu := Start(target)
	if tu == nil {
		t.Fatal("Start returned nil with no GOMEMLIMIT or GOGC")
	}
	if got := debug.SetMemoryLimit(-1); got != target {
		t.Fatalf("limit after Start %d, want the target %d", got, target)
	}
	live := make([][]byte, 32)
	for i := range live {
		live[i] = make([]byte, 1<<20)
	}
	deadline := time.Now().Add(5 * time.Second)
	for tu.Limit() < uint64(32<<20)*5/4 && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(time.Millisecond) // the finalizer runs on its own goroutine
	}
	if got := tu.Limit(); got < uint64(32<<20)*5/4 {
		t.Errorf("limit %d with 32 MiB live, want at least 40 MiB", got)
	}
	// Both read under the tuner's lock: a collection between the two
	// reads could move the limit.
	tu.mu.Lock()
	got, want := debug.SetMemoryLimit(-1), tu.limit
	tu.mu.Unlock()
	if uint64(got) != want {
		t.Errorf("runtime limit %d, tuner says %d", got, want)
	}
	runtime.KeepAlive(live)
	live = nil
	for tu.Limit() != target && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	if got := tu.Limit(); got != target {
		t.Errorf("limit %d after the heap was freed, want the target %d", got, target)
	}
	// A new target takes effect at once, and after collections.
	tu.SetTarget(2 * target)
	if got := debug.SetMemoryLimit(-1); got != 2*target {
		t.Errorf("limit after SetTarget %d, want %d", got, 2*target)
	}
	runtime.GC()
	time.Sleep(time.Millisecond)
	if got := tu.Limit(); got != 2*target {
		t.Errorf("limit %d after SetTarget and a collection, want %d", got, 2*target)
	}
	// A target below what the live heap needs: the limit is that need at
	// once (the last collection's), not the target.
	tu.SetTarget(1)
	if got := tu.Limit(); got <= 1 {
		t.Errorf("limit %d after SetTarget(1), want the live heap's need", got)
	}
	tu.Stop()
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("limit after Stop %d, want %d", got, before)
	}
	tu.SetTarget(target) // stopped: no effect
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("limit after Stop and SetTarget %d, want %d", got, before)
	}
	runtime.GC()
	runtime.GC()
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("limit after Stop and collections %d, want %d", got, before)
	}
	var nilTuner *Tuner
	nilTuner.Stop()
	nilTuner.SetTarget(target)
}

// TestGoalLeavesHeadroom: with a live heap of small objects that leave
// half of their spans' slots free (what a model built while other
// objects come and go looks like), the runtime's heap goal under the
// tuned limit still lies a quarter above the live heap. Counting those
// free slots as heap, as the tuner once did, left the goal at the live
// heap itself: a collection at every allocation.
func TestGoalLeavesHeadroom(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	t.Setenv("GOGC", "")
	before := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(before)
	tu := Start(8 << 20)
	if tu == nil {
		t.Fatal("Start returned nil with no GOMEMLIMIT or GOGC")
	}
	defer tu.Stop()
	type obj [64]byte
	all := make([]*obj, 1<<19) // 32 MiB of objects
	for i := range all {
		all[i] = new(obj)
	}
	for i := 0; i < len(all); i += 2 {
		all[i] = nil // every other slot free: 16 MiB live in 32 MiB of spans
	}
	s := []metrics.Sample{{Name: "/gc/heap/goal:bytes"}, {Name: "/gc/heap/live:bytes"}}
	var goal, live uint64
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(time.Millisecond) // the finalizer runs on its own goroutine
		runtime.GC()                 // a goal made with the limit adjust set
		metrics.Read(s)
		goal, live = s[0].Value.Uint64(), s[1].Value.Uint64()
		if goal*100 >= live*120 {
			break
		}
	}
	if goal*100 < live*120 {
		t.Errorf("heap goal %.1f MiB for a live heap of %.1f MiB (limit %.1f MiB), want at least 1.2 × live", float64(goal)/(1<<20), float64(live)/(1<<20), float64(tu.Limit())/(1<<20))
	}
	runtime.KeepAlive(all)
}
