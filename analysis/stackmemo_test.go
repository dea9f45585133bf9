package analysis

import (
	"slices"
	"testing"
)

// TestStackMemoNeverStale: a StackResolver's whole-stack memo gives the
// frames Model.resolve gives at the event's time, and a StackID names one
// content only, for stacks that must not be memoized (an image unloaded
// and another loaded at its base, a .NET method whose code moved, a
// kernel driver replaced), stacks of another process or model with the
// same addresses, and stacks evicted by many others.
func TestStackMemoNeverStale(t *testing.T) {
	mk := func() (*Model, *Process, *Process) {
		m := newModel()
		m.ptrSize = 8
		return m, m.newProcess(100, minTime), m.newProcess(200, minTime)
	}
	m, p1, p2 := mk()
	m2, q1, _ := mk()
	always := func(pid uint32, base uint64, path string) *Image {
		return &Image{Base: base, Size: 0x1000, PID: pid, Path: path, load: minTime, unload: maxTime}
	}
	// p1: a.dll always at 0x10000; b.dll at 0x20000 until 200, then
	// c.dll there from 300 (b.dll reloaded at 0x40000); a method at
	// 0x50000 until 200, another there from 300; app.exe holds the methods.
	p1.images.add(always(100, 0x10000, `C:\a.dll`))
	p1.images.add(&Image{Base: 0x20000, Size: 0x1000, PID: 100, Path: `C:\b.dll`, load: 100, unload: 200})
	p1.images.add(&Image{Base: 0x20000, Size: 0x1000, PID: 100, Path: `C:\c.dll`, load: 300, unload: maxTime})
	p1.images.add(&Image{Base: 0x40000, Size: 0x1000, PID: 100, Path: `C:\b.dll`, load: 300, unload: maxTime})
	p1.images.add(always(100, 0x50000, `C:\app.exe`))
	p1.methods.add(&Method{Start: 0x50100, Size: 0x100, Name: "Old", load: minTime, unload: 200})
	p1.methods.add(&Method{Start: 0x50100, Size: 0x100, Name: "New", load: 300, unload: maxTime})
	p1.methods.add(&Method{Start: 0x50800, Size: 0x100, Name: "Fixed", load: minTime, unload: maxTime})
	// p2 and the other model: other images at the same addresses.
	p2.images.add(always(200, 0x10000, `C:\other.dll`))
	q1.images.add(always(100, 0x10000, `C:\model2.dll`))
	// The kernel: ntoskrnl always, a driver replaced at 0xFFFFF80000100000.
	k := uint64(0xFFFFF80000000000)
	m.kernel.add(always(0, k, `ntoskrnl.exe`))
	m.kernel.add(&Image{Base: k + 0x100000, Size: 0x1000, Path: `old.sys`, load: minTime, unload: 200})
	m.kernel.add(&Image{Base: k + 0x100000, Size: 0x1000, Path: `new.sys`, load: 300, unload: maxTime})
	for _, l := range []*imageList{&p1.images, &p2.images, &q1.images, &m.kernel} {
		l.sorted()
	}
	p1.methods.sorted()

	stable := []uint64{k + 0x10, 0x10010, 0x50810, 0x10020}
	cases := []struct {
		m      *Model
		p      *Process
		ft     int64
		addrs  []uint64
		memoOK bool // every frame is the same at any time
	}{
		{m, p1, 150, stable, true},
		{m, p1, 350, stable, true},
		{m, p2, 150, stable, true},                      // other images at the same addresses
		{m2, q1, 150, stable, true},                     // another model, same pid and index
		{m, nil, 150, stable, true},                     // no process: the kernel frame only
		{m2, nil, 150, stable, true},                    // the other model has no kernel images
		{m, p1, 150, []uint64{0x10010, 0x20010}, false}, // b.dll then c.dll
		{m, p1, 350, []uint64{0x10010, 0x20010}, false},
		{m, p1, 150, []uint64{0x50110, 0x10010}, false}, // Old then New
		{m, p1, 350, []uint64{0x50110, 0x10010}, false},
		{m, p1, 150, []uint64{k + 0x100010, 0x10010}, false}, // old.sys then new.sys
		{m, p1, 350, []uint64{k + 0x100010, 0x10010}, false},
		{m, p1, 350, []uint64{0x40010, 0x10010}, true}, // b.dll's new base: one image
		{m, p1, 150, []uint64{0, 0x10010}, true},       // address 0
	}
	var r StackResolver
	byID := map[uint64][]Frame{}
	check := func(round int, c int, m *Model, p *Process, ft int64, addrs []uint64, memoOK bool) {
		t.Helper()
		a := Annotation{Process: p, m: m, ft: ft}
		got := r.Resolve(&a, addrs, nil)
		a.Stack = got
		var want []Frame
		for _, x := range addrs {
			want = append(want, m.resolve(p, x, ft))
		}
		if !slices.Equal(got, want) {
			t.Fatalf("round %d, case %d: frames %+v, want %+v", round, c, got, want)
		}
		id := a.StackID()
		if (id != 0) != memoOK {
			t.Errorf("round %d, case %d: StackID %d, want one: %v", round, c, id, memoOK)
		}
		if id == 0 {
			return
		}
		if old, ok := byID[id]; ok && !slices.Equal(old, got) {
			t.Fatalf("round %d, case %d: StackID %d named %+v, now %+v", round, c, id, old, got)
		}
		byID[id] = slices.Clone(got)
		part := a
		part.Stack = got[1:]
		if part.StackID() != 0 {
			t.Errorf("round %d, case %d: a part of the stack kept its StackID", round, c)
		}
	}
	for round := range 3 { // later rounds find the memoized stacks
		for i, c := range cases {
			check(round, i, c.m, c.p, c.ft, c.addrs, c.memoOK)
		}
		// Many other stacks (of addresses no image holds): the ring
		// overwrites the memoized ones, the first before the last are
		// found again.
		for i := range 2 * stackMemoFrames / 8 {
			addrs := make([]uint64, 8)
			for j := range addrs {
				addrs[j] = 0x100000 + uint64(i*8+j)
			}
			check(round, -1, m, p1, 150, addrs, true)
		}
	}
	if len(byID) < 3*2*stackMemoFrames/8 {
		t.Errorf("%d stack identities: evicted stacks were not given new ones", len(byID))
	}
}
