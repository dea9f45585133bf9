package analysis

import (
	"math/rand/v2"
	"testing"
)

// TestFindSpan: at every time of the span findSpan gives, find gives the
// same answer, whatever the holders' lifetimes (overlapping, nested,
// repeated, open-ended, the same method logged by several files'
// rundowns).
func TestFindSpan(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 11))
	times := []int64{minTime, -5, 0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100, maxTime}
	pick := func() int64 { return times[rng.IntN(len(times))] }
	narrowed, checked := 0, 0
	for round := range 3000 {
		var l methodList
		n := 1 + rng.IntN(6)
		if round%5 == 0 {
			n = 1
		}
		for range n {
			load, unload := pick(), pick()
			if load > unload && rng.IntN(4) > 0 {
				load, unload = unload, load
			}
			start := 0x1000 + uint64(rng.IntN(3))*0x10
			l.add(&Method{Start: start, Size: uint32(0x10 + rng.IntN(3)*0x10), load: load, unload: unload})
		}
		addr := uint64(0x1000 + rng.IntN(0x40))
		for range 8 {
			ft := int64(rng.IntN(120)) - 10
			best, lo, hi := l.findSpan(addr, ft)
			if lo > ft || hi < ft {
				t.Fatalf("round %d: span [%d, %d] leaves out ft %d", round, lo, hi, ft)
			}
			if lo != minTime || hi != maxTime {
				narrowed++
			}
			// Event times, not the extremes that stand for "unknown"
			// (a gap from maxTime to minTime is beyond any FILETIME).
			for _, at := range []int64{lo, hi, lo/2 + hi/2, ft - 3, ft + 3, -20, 130} {
				if at < lo || at > hi || at < -20 || at > 130 {
					continue
				}
				checked++
				if got, _ := l.find(addr, at); got != best {
					t.Fatalf("round %d: addr %#x: findSpan at %d gave %p over [%d, %d], find at %d gives %p",
						round, addr, ft, best, lo, hi, at, got)
				}
			}
		}
	}
	if narrowed == 0 || checked == 0 {
		t.Fatalf("no span narrower than all times (%d) or no time checked (%d): the test tests nothing", narrowed, checked)
	}
}
