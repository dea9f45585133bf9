package analysis

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestFrameRing sets the inline frames of events' stack parts as stack
// walks do (an event's own kernel part, and user parts of earlier events
// still in the window, as parked parts are completed) and checks every
// slot's frames when it is handed out and just before it is overwritten:
// the ring never overwrites frames a slot may still hand out. The ring
// stays a few times the frames the window holds at once: the slots' own
// slices held the deepest stack each slot ever had (a dump's 2,049 slots
// held 1.5-2.2 MB), which would be 2,049 deep stacks here.
func TestFrameRing(t *testing.T) {
	for _, window := range []int{1, 2, 7, 64, DefaultWindow} {
		e := (&Model{}).NewEnricher(&EnrichOptions{Window: window})
		rng := rand.New(rand.NewPCG(uint64(window), 3))
		want := map[*part][]uint64{} // the frames each set part must hand out
		frames := func(seq int64, kind uint64) []uint64 {
			n := 1 + rng.IntN(12)
			if rng.IntN(64) == 0 {
				n = 150 + rng.IntN(100) // a deep stack now and then
			}
			f := make([]uint64, n)
			for i := range f {
				f[i] = uint64(seq)<<20 | kind<<16 | uint64(i)
			}
			return f
		}
		check := func(s *slot, when string) {
			t.Helper()
			for _, p := range []*part{&s.kern, &s.user} {
				w, ok := want[p]
				if !ok {
					if p.set {
						t.Fatalf("window %d, event %d (%s): a part never set holds %d frames", window, s.seq, when, p.n)
					}
					continue
				}
				if got := e.partFrames(p, 0, nil); !slices.Equal(got, w) {
					t.Fatalf("window %d, event %d (%s): frames %x, want %x", window, s.seq, when, got, w)
				}
			}
		}
		maxLive, live := 0, 0
		const events = 20_000
		for range events {
			if e.next >= int64(len(e.ring)) {
				// The slot advance overwrites: its frames are intact.
				old := e.slot(e.next)
				check(old, "overwritten")
				for _, p := range []*part{&old.kern, &old.user} {
					if w, ok := want[p]; ok {
						live -= len(w)
						delete(want, p)
					}
				}
			}
			seq, s := e.advance()
			// No part a slot may still hand out lies below what the
			// ring keeps (the window's oldest frames).
			floor := e.marks[e.oldestMark()]
			for p := range want {
				if p.n > 0 && p.at < floor {
					t.Fatalf("window %d, event %d: a live part's frames at %d, below the ring's floor %d", window, seq, p.at, floor)
				}
			}
			s.seq = seq
			s.kern.clear()
			s.user.clear()
			if rng.IntN(3) > 0 {
				f := frames(seq, 1)
				e.setFrames(&s.kern, f)
				want[&s.kern], live = f, live+len(f)
			}
			if rng.IntN(3) == 0 {
				// The user part of an event still in the window.
				back := min(int64(rng.IntN(len(e.ring))), seq)
				o := e.slot(seq - back)
				if _, ok := want[&o.user]; !ok {
					f := frames(seq-back, 2)
					e.setFrames(&o.user, f)
					want[&o.user], live = f, live+len(f)
				}
			}
			maxLive = max(maxLive, live)
			if rng.IntN(4) == 0 {
				check(s, "pushed")
			}
			for s := e.nextSlot(); s != nil; s = e.nextSlot() {
				check(s, "handed out")
			}
		}
		if bound := max(4*maxLive, 4*minFrameRing); len(e.stacks.buf) > bound {
			t.Errorf("window %d: the ring holds %d frames, want at most %d (4 times the %d live at most)", window, len(e.stacks.buf), bound, maxLive)
		}
	}
}
