package analysis

import (
	"runtime"
	"testing"

	"github.com/etwkit/etw/etl"
)

// TestBuildMethodsSplit checks, on every corpus trace, that the model
// Build makes with more than one processor (the .NET methods added on a
// goroutine of their own) has the methods, in the same order and with
// the same fields, of the model built on one.
func TestBuildMethodsSplit(t *testing.T) {
	dec := clrDecoder(t)
	build := func(files []*etl.File, procs int) *Model {
		prev := runtime.GOMAXPROCS(procs)
		defer runtime.GOMAXPROCS(prev)
		m, _ := Build(files, dec, nil)
		return m
	}
	methods := 0
	eachCorpusTrace(t, func(t *testing.T, files []*etl.File) {
		one, two := build(files, 1), build(files, 2)
		if len(one.procs) != len(two.procs) {
			t.Fatalf("%d processes at GOMAXPROCS 2, %d at 1", len(two.procs), len(one.procs))
		}
		for i, p1 := range one.procs {
			l1, l2 := p1.Methods(), two.procs[i].Methods()
			methods += len(l1)
			if len(l1) != len(l2) {
				t.Errorf("process %d: %d methods at GOMAXPROCS 2, %d at 1", p1.PID, len(l2), len(l1))
				continue
			}
			for j := range l1 {
				if *l1[j] != *l2[j] {
					t.Errorf("process %d, method %d: %+v at GOMAXPROCS 2, %+v at 1", p1.PID, j, *l2[j], *l1[j])
				}
			}
		}
	})
	if methods == 0 {
		t.Error("no trace had a .NET method: the test compared nothing")
	}
}
