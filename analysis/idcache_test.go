package analysis_test

import (
	"testing"

	"github.com/etwkit/etw/analysis/analysistest"
	"github.com/etwkit/etw/etl"
)

// TestReusedIDs: a pid and a tid that the trace reuses (a process ends,
// another starts under its pid; a thread of a third process gets the
// ended thread's id) are looked up by the model pass, through its cache
// of the records by id, and by an enricher as the record of their time:
// each CPU sample (which names only its thread) counts for the process
// its thread was in then.
func TestReusedIDs(t *testing.T) {
	const none = analysistest.None
	const pid, tidOld, tidNew, pidOther = 300, 301, 302, 400
	process, thread := analysistest.ProcessPayload, analysistest.ThreadPayload
	files, dec, m := kernelTrace(t, 1, "reused ids", func(tw *traceWriter) {
		sample := func(us int, tid uint32) {
			tw.Kernel(us, hookPerfInfo, 46, 2, none, none, (&payload{}).U64(appBase).U32(tid).U16(1).U16(0).B)
		}
		tw.Kernel(0, hookProcess, 1, 3, pid, tidOld, process(pid, 4, "first.exe", "first.exe"))
		tw.Kernel(0, hookThread, 1, 2, pid, tidOld, thread(pid, tidOld))
		sample(5, tidOld)
		tw.Kernel(10, hookThread, 2, 2, pid, tidOld, thread(pid, tidOld))
		tw.Kernel(10, hookProcess, 2, 3, pid, tidOld, process(pid, 4, "first.exe", "first.exe"))
		tw.Kernel(20, hookProcess, 1, 3, pid, tidNew, process(pid, 4, "second.exe", "second.exe"))
		tw.Kernel(20, hookThread, 1, 2, pid, tidNew, thread(pid, tidNew))
		tw.Kernel(20, hookProcess, 1, 3, pidOther, tidOld, process(pidOther, 4, "other.exe", "other.exe"))
		tw.Kernel(20, hookThread, 1, 2, pidOther, tidOld, thread(pidOther, tidOld))
		sample(30, tidOld)
		sample(31, tidNew)
		sample(32, tidNew)
	})
	want := map[string]int{"first.exe": 1, "second.exe": 2, "other.exe": 1}
	for _, p := range m.Processes() {
		n, ok := want[p.ImageFileName]
		if !ok {
			continue
		}
		delete(want, p.ImageFileName)
		if p.CPUSamples != n {
			t.Errorf("%s (pid %d): %d CPU samples, want %d", p.ImageFileName, p.PID, p.CPUSamples, n)
		}
	}
	if len(want) > 0 {
		t.Errorf("no record of %v", want)
	}
	// The enricher's attribution, sample by sample.
	names := []string{"first.exe", "other.exe", "second.exe", "second.exe"}
	e := m.NewEnricher(nil)
	r := etl.NewReader(files, nil)
	defer r.Close()
	i := 0
	for r.Next() {
		ev := r.Event()
		_, a := e.PushDecoding(ev, dec)
		if ev.HookID != hookPerfInfo<<8|46 { // SampleProf
			continue
		}
		if i < len(names) && (a.Process == nil || a.Process.ImageFileName != names[i]) {
			t.Errorf("sample %d: process %v, want %s", i, a.Process, names[i])
		}
		i++
	}
	if i != len(names) {
		t.Errorf("%d samples read, want %d", i, len(names))
	}
}
