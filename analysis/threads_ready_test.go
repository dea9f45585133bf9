package analysis

import "testing"

// TestReadyFirstSeen: a thread first seen (or seen again after its state
// was dropped) in a ReadyThread event starts its ready state through
// enter, like every other state: no readier (NoID, not thread 0, which
// is the idle thread) and the time it became ready. Its wait, once it
// waits and is readied, names the readier.
func TestReadyFirstSeen(t *testing.T) {
	tt := NewThreadTime(nil, 0)
	tt.ready(100, 7, 5)
	r := tt.threads[7]
	if r == nil || !r.open || r.state != StateReady || r.since != 100 || r.readier != NoID || r.readyTime != 0 {
		t.Fatalf("thread first seen ready: %+v", r)
	}
	r.open = false // a dropped state (a lost switch-out)
	r.readier = 9
	tt.ready(150, 7, 5)
	if !r.open || r.state != StateReady || r.since != 150 || r.readier != NoID {
		t.Fatalf("thread ready again after a dropped state: %+v", r)
	}
	tt.cswitch(200, 0, 7, 0, 0, 0)
	tt.cswitch(300, 0, 0, 7, 4, kstateWaiting)
	tt.ready(400, 7, 5)
	if len(r.Intervals) != 3 { // ready (the dropped one is not counted), running, waiting
		t.Fatalf("intervals %+v", r.Intervals)
	}
	if w := r.Intervals[2]; w.State != StateWaiting || w.ReadierTID != 5 || w.ReadyTime != 400 {
		t.Errorf("the wait: %+v, want readied by thread 5 at 400", w)
	}
	if r.readier != NoID {
		t.Errorf("readier %d after the wait ended, want NoID", r.readier)
	}
}
