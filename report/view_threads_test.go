package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/etwkit/etw/analysis/analysistest"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
)

// TestThreadsView: a trace with context switches (CSwitch v2, ReadyThread
// v2 as the kernel MOF lays them out) gets the thread-time section; its
// running times are the switch-in to switch-out spans written.
func TestThreadsView(t *testing.T) {
	d := mustBuild(t, []*etl.File{openBytes(threadsTrace(t))}, decode.New())
	th := d.Threads
	if th == nil || th.ContextSwitches != 4 || th.ReadyThreads != 1 {
		t.Fatalf("threads %+v", th)
	}
	if len(th.Processes) != 1 || th.Processes[0].Name != "app" || !near(th.Processes[0].RunningMS, 3.5) {
		t.Errorf("processes %+v", th.Processes)
	}
	if len(th.Threads) < 2 || th.Threads[0].TID != 101 || !near(th.Threads[0].RunningMS, 2) || th.Threads[1].TID != 100 || !near(th.Threads[1].RunningMS, 1.5) {
		t.Fatalf("threads %+v", th.Threads)
	}
	var wait *ThreadState
	for i, s := range th.Threads[1].States {
		if s.State == "waiting" {
			wait = &th.Threads[1].States[i]
			break
		}
	}
	if wait == nil || wait.WaitReason != "UserRequest" || wait.Readier == nil || *wait.Readier != 101 || !near(wait.EndMS-wait.StartMS, 0.4) {
		t.Errorf("wait %+v", wait)
	}
	js, err := json.Marshal(d)
	if err != nil || !strings.Contains(string(js), `"threads":{"context_switches":4`) {
		t.Errorf("JSON %v: %.200s", err, js)
	}
	var page bytes.Buffer
	if err := d.WriteHTML(&page); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page.String(), `id="thread-states"`) || !strings.Contains(page.String(), `<section id="threads"`) {
		t.Error("no thread-time section in the page")
	}
}

// threadsTrace is a one-processor trace of two threads of app.exe
// switching (CSwitch v2) and one readying the other (ReadyThread v2).
func threadsTrace(t testing.TB) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := etl.NewWriter(&buf, &etl.WriterOptions{Header: etl.LogfileHeader{
		StartTime: filetime(synthStart), Is64: true, NumberOfProcessors: 1, LoggerName: "threads"}})
	if err != nil {
		t.Fatal(err)
	}
	tw := &analysistest.Writer{W: w, Start: synthStart}
	tw.Kernel(0, 0x03, 3, 3, 10, 100, analysistest.ProcessPayload(10, 4, "app.exe", "app.exe"))
	tw.Kernel(0, 0x05, 3, 2, 10, 100, analysistest.ThreadPayload(10, 100))
	tw.Kernel(0, 0x05, 3, 2, 10, 101, analysistest.ThreadPayload(10, 101))
	sw := func(us int, newT, oldT uint32, reason, state byte) {
		p := (&analysistest.Payload{}).U32(newT).U32(oldT)
		p.B = append(p.B, 9, 8, 0, 0, reason, 0, state, 0)
		tw.Kernel(us, 0x05, 36, 2, 0, oldT, p.U32(0).U32(0).B)
	}
	sw(100, 100, 0, 0, 1)
	sw(1100, 101, 100, 6, 5) // 100 ran 1 ms, waits (UserRequest)
	tw.Kernel(1500, 0x05, 50, 2, 10, 101, (&analysistest.Payload{}).U32(100).U32(0).B)
	sw(3100, 100, 101, 32, 1) // 101 ran 2 ms
	sw(3600, 0, 100, 15, 5)   // 100 ran 0.5 ms
	if tw.Err != nil {
		t.Fatal(tw.Err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
