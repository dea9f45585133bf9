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

// BenchmarkFrameCacheManyRecords resolves, in time order, stacks of a
// process whose every method was logged by 64 files' rundowns (a record
// per file, each alive over its file's time), through a frame cache:
// each frame depends on the time, and is found again for the events of
// its file (rangeList.findSpan) instead of by a search of all 64
// records.
func BenchmarkFrameCacheManyRecords(b *testing.B) {
	const files, methods, events = 64, 256, 200 // events a file, 16 frames each
	m := newModel()
	m.ptrSize = 8
	p := m.newProcess(100, minTime)
	p.images.add(&Image{Base: 0x10000, Size: 0x1000000, PID: 100, Path: `C:\app.exe`, load: minTime, unload: maxTime})
	for f := range files {
		for i := range methods {
			p.methods.add(&Method{Start: 0x20000 + uint64(i)*0x100, Size: 0x100, Name: "M", load: int64(f * 1000), unload: int64(f*1000 + 999)})
		}
	}
	p.images.sorted()
	p.methods.sorted()
	addrs := make([]uint64, 16)
	var c frameCache
	dst := make([]Frame, 0, len(addrs))
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		for f := range files {
			for e := range events {
				ft := int64(f*1000 + e*4)
				for i := range addrs {
					addrs[i] = 0x20000 + uint64((e*7+i*13)%methods)*0x100 + 0x10
				}
				dst, _ = c.resolveAll(m, p, addrs, ft, dst[:0])
			}
		}
	}
	b.ReportMetric(float64(b.N*files*events*len(addrs))/b.Elapsed().Seconds(), "frames/s")
}
