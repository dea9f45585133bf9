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

// TestBuildNoMethods: a model built with Options.NoMethods (stats) has no
// .NET method, and every process, its counts, GCs and threads as the full
// model has them, on every corpus trace at one and two cores.
func TestBuildNoMethods(t *testing.T) {
	dec := clrDecoder(t)
	methods := 0
	for _, procs := range []int{1, 2} {
		prev := runtime.GOMAXPROCS(procs)
		eachCorpusTrace(t, func(t *testing.T, files []*etl.File) {
			full, _ := Build(files, dec, nil)
			none, _ := Build(files, dec, &Options{NoMethods: true})
			if len(full.procs) != len(none.procs) || full.CPUSamples != none.CPUSamples {
				t.Fatalf("GOMAXPROCS %d: %d processes, %d samples without methods; %d, %d with", procs,
					len(none.procs), none.CPUSamples, len(full.procs), full.CPUSamples)
			}
			for i, p := range full.procs {
				q := none.procs[i]
				methods += len(p.Methods())
				if n := len(q.Methods()); n != 0 {
					t.Errorf("process %d: %d methods with NoMethods", q.PID, n)
				}
				if p.PID != q.PID || p.Name != q.Name || p.CommandLine != q.CommandLine || p.Events != q.Events ||
					p.CPUSamples != q.CPUSamples || p.start != q.start || p.end != q.end || len(p.threads) != len(q.threads) ||
					(p.GC == nil) != (q.GC == nil) || p.GC != nil && (p.GC.Count != q.GC.Count || p.GC.PauseTotal != q.GC.PauseTotal) {
					t.Errorf("GOMAXPROCS %d, process %d: %+v without methods, %+v with", procs, p.PID, *q, *p)
				}
			}
		})
		runtime.GOMAXPROCS(prev)
	}
	if methods == 0 {
		t.Error("no trace had a .NET method: the test compared nothing")
	}
}
