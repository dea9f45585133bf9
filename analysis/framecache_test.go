package analysis

import (
	"math/rand/v2"
	"testing"
)

// TestFrameCacheAgreesWithResolve: the enricher's frame cache gives what
// Model.resolve gives, for addresses held by one image at any time
// (cached), by two images at different times (not cached: the answer
// depends on the time), and address 0 (which marks an empty slot).
func TestFrameCacheAgreesWithResolve(t *testing.T) {
	m := newModel()
	m.ptrSize = 8
	p := m.newProcess(100, minTime)
	zero := &Image{Base: 0, Size: 0x1000, PID: 100, load: minTime, unload: maxTime}
	stable := &Image{Base: 0x10000, Size: 0x1000, PID: 100, load: minTime, unload: maxTime}
	early := &Image{Base: 0x20000, Size: 0x1000, PID: 100, load: 100, unload: 200}
	late := &Image{Base: 0x20000, Size: 0x1000, PID: 100, load: 300, unload: 400}
	for _, im := range []*Image{zero, stable, early, late} {
		p.images.add(im)
	}
	p.images.sorted()
	var c frameCache
	for round := 0; round < 2; round++ { // the second round reads the cache
		for _, q := range []struct {
			addr uint64
			ft   int64
			want *Image
		}{{0, 150, zero}, {0x10010, 150, stable}, {0x10010, 350, stable}, {0x20010, 150, early}, {0x20010, 350, late}, {0x20010, 160, early}, {0x30000, 150, nil}} {
			got, gotStable := c.resolve(m, p, q.addr, q.ft)
			want, wantStable := m.resolveStable(p, q.addr, q.ft)
			if got != want || got.Image != q.want || gotStable != wantStable {
				t.Errorf("round %d: %#x at %d: cache %+v (stable %v), resolve %+v (%v), want image %p", round, q.addr, q.ft, got, gotStable, want, wantStable, q.want)
			}
		}
	}
}

// TestFrameCacheSpansAgree: with images and .NET methods whose records
// overlap in address and time (so that most frames depend on the time,
// and a frame's span is the meeting of its image's and its method's),
// the frame cache gives what Model.resolve gives for queries in any
// order of time, reading back frames it kept with their spans.
func TestFrameCacheSpansAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 12))
	times := []int64{minTime, 0, 10, 20, 30, 40, 50, 60, maxTime}
	pick := func() (int64, int64) {
		a, b := times[rng.IntN(len(times))], times[rng.IntN(len(times))]
		return min(a, b), max(a, b)
	}
	narrow := 0
	for round := range 200 {
		m := newModel()
		m.ptrSize = 8
		p := m.newProcess(100, minTime)
		for range 1 + rng.IntN(4) {
			load, unload := pick()
			p.images.add(&Image{Base: 0x10000 + uint64(rng.IntN(2))*0x800, Size: 0x1000, PID: 100, load: load, unload: unload})
		}
		for range rng.IntN(5) {
			load, unload := pick()
			p.methods.add(&Method{Start: 0x10100 + uint64(rng.IntN(3))*0x40, Size: 0x80, load: load, unload: unload})
		}
		p.images.sorted()
		p.methods.sorted()
		var c frameCache
		c.bits = 4
		for range 200 {
			addr := 0x10000 + uint64(rng.IntN(0x1800))
			ft := int64(rng.IntN(70)) - 5
			if rng.IntN(3) == 0 { // a query seen before, at another time
				addr = 0x10140
			}
			want, wantStable := m.resolveStable(p, addr, ft)
			got, gotStable := c.resolve(m, p, addr, ft)
			if got != want || gotStable != wantStable {
				t.Fatalf("round %d: %#x at %d: cache %+v (stable %v), resolve %+v (%v)", round, addr, ft, got, gotStable, want, wantStable)
			}
		}
		for _, s := range c.slots {
			if s.frame.Address != 0 && !allTimes(s.lo, s.hi) {
				narrow++
			}
		}
	}
	if narrow == 0 {
		t.Fatal("no frame kept with a span narrower than all times: the test tests nothing")
	}
}

// resolve is resolveTo returning the frame.
func (c *frameCache) resolve(m *Model, p *Process, addr uint64, ft int64) (Frame, bool) {
	var f Frame
	stable := c.resolveTo(&f, m, p, addr, ft)
	return f, stable
}
