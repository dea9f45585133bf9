package analysis

import (
	"fmt"
	"testing"
)

// TestCPUUsageTiesByRecord: processes that tie on weight, pid and name
// (records of one program under one pid: a pid reused, a trace written
// over again) come in the order their records were made, not in a map's:
// each of 30 usages, filled in a different order, gives the same series.
func TestCPUUsageTiesByRecord(t *testing.T) {
	axis := TimeAxis{Start: 0, Width: 10, Buckets: 8}
	procs := make([]*Process, 8)
	for i := range procs {
		procs[i] = &Process{PID: 100, Index: i, ImageFileName: "x.exe", Name: "x"}
	}
	want := ""
	for round := range 30 {
		u := NewCPUUsage(axis)
		for j := range procs {
			i := (j + round) % len(procs)
			// Each process's one sample in a bucket of its own: the same
			// weight, different series.
			u.Add(&Annotation{PID: 100, Process: procs[i], ft: int64(10*i + 1)}, 1)
		}
		got := fmt.Sprint(u.Series())
		if round == 0 {
			want = got
			for i, s := range u.Series() {
				if s.Samples[i] != 1 {
					t.Fatalf("series %d: %v, want the sample of the record made %dth", i, s.Samples, i)
				}
			}
		} else if got != want {
			t.Fatalf("filled from record %d: %s, want %s", round%len(procs), got, want)
		}
	}
}
