package analysis

import "testing"

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
