package analysis_test

import (
	"testing"

	"github.com/etwkit/etw/analysis"
	"github.com/etwkit/etw/analysis/analysistest"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
)

// cs is one context switch of the thread-time fixture.
type cs struct {
	us         int
	cpu        uint16
	newT, oldT uint32
	reason, st int8
	ready      bool // a ReadyThread event instead: newT readied by oldT
}

// cswitchPayload is a CSwitch payload in the layout of version v (the
// kernel MOF's Thread_V1..V4 CSwitch).
func cswitchPayload(v uint16, c cs) []byte {
	p := (&analysistest.Payload{}).U32(c.newT).U32(c.oldT)
	p.B = append(p.B, 9, 8, 0, 0, byte(c.reason), 1, byte(c.st), 0)
	if v >= 2 {
		p.U32(100).U32(0)
	}
	return p.B
}

// threadTrace writes the fixture's events as a trace of version-v
// CSwitch events and ReadyThread (v2) events, with thread rundowns
// naming the processes: threads 100, 101 in process 10, 200 in 20.
func threadTrace(t testing.TB, v uint16, evs []cs) ([]*etl.File, *decode.Decoder, *analysis.Model) {
	t.Helper()
	return kernelTrace(t, 2, "thread time", func(tw *traceWriter) {
		tw.Kernel(0, hookProcess, 3, 3, 10, 100, analysistest.ProcessPayload(10, 4, "app.exe", "app.exe"))
		tw.Kernel(0, hookProcess, 3, 3, 20, 200, analysistest.ProcessPayload(20, 4, "db.exe", "db.exe"))
		for _, th := range [][2]uint32{{10, 100}, {10, 101}, {20, 200}} {
			tw.Kernel(0, hookThread, 3, 2, th[0], th[1], analysistest.ThreadPayload(th[0], th[1]))
		}
		for _, c := range evs {
			ev := etl.Event{Header: etl.HeaderSystem64, ProcessID: 0, ThreadID: c.oldT, Processor: c.cpu, Timestamp: tw.Raw(c.us)}
			if c.ready {
				ev.HookID, ev.ClassVersion = hookThread<<8|50, 2
				ev.UserData = (&analysistest.Payload{}).U32(c.newT).U32(0).B
			} else {
				ev.HookID, ev.ClassVersion = hookThread<<8|36, v
				ev.UserData = cswitchPayload(v, c)
			}
			tw.Write(ev)
		}
	})
}

// threadFixture: two processors; 100 waits on a UserRequest and is
// readied by 200; 101 is preempted; 200 waits on WrQueue.
var threadFixture = []cs{
	{us: 10, cpu: 0, newT: 100, oldT: 0, st: 1},
	{us: 12, cpu: 1, newT: 200, oldT: 0, st: 1},
	{us: 30, cpu: 0, newT: 101, oldT: 100, reason: 6, st: 5},  // 100 waits: UserRequest
	{us: 35, cpu: 1, newT: 100, oldT: 200, ready: true},       // 200 readies 100
	{us: 40, cpu: 1, newT: 100, oldT: 200, reason: 15, st: 5}, // 200 waits: WrQueue
	{us: 55, cpu: 0, newT: 0, oldT: 101, reason: 32, st: 1},   // 101 preempted (ready)
	{us: 70, cpu: 1, newT: 101, oldT: 100, reason: 4, st: 5},  // 100 waits: DelayExecution
	{us: 90, cpu: 1, newT: 0, oldT: 101, reason: 13, st: 5},
}

// precise computes each thread's running time from the fixture alone:
// on each processor, the thread switched in runs until the next switch
// there.
func precise(evs []cs) map[uint32]int64 {
	last := map[uint16]cs{}
	run := map[uint32]int64{}
	for _, c := range evs {
		if c.ready {
			continue
		}
		if p, ok := last[c.cpu]; ok && p.newT == c.oldT {
			run[c.oldT] += int64(c.us-p.us) * 10 // µs to 100 ns
		}
		last[c.cpu] = c
	}
	return run
}

func TestThreadTime(t *testing.T) {
	want := precise(threadFixture)
	for _, v := range []uint16{1, 2, 3, 4} {
		files, dec, m := threadTrace(t, v, threadFixture)
		tt := analysis.NewThreadTime(m, 0)
		if _, _, err := m.Collect(files, dec, &analysis.CollectOptions{Observe: tt.Observe, Decode: tt.Wants}); err != nil {
			t.Fatal(err)
		}
		if n, r := tt.Switches(); n != 7 || r != 1 {
			t.Fatalf("v%d: %d switches, %d readies seen, want 7, 1", v, n, r)
		}
		got := map[uint32]analysis.ThreadTimes{}
		for _, th := range tt.Threads(0) {
			got[th.TID] = th
			var sum int64
			for _, iv := range th.Intervals {
				if iv.State == analysis.StateRunning {
					sum += iv.End - iv.Start
				}
			}
			if sum != th.Running {
				t.Errorf("v%d thread %d: intervals sum to %d, total %d", v, th.TID, sum, th.Running)
			}
		}
		for tid, w := range want {
			if got[tid].Running != w {
				t.Errorf("v%d thread %d: running %d, want %d", v, tid, got[tid].Running, w)
			}
		}
		if got[100].PID != 10 || got[200].PID != 20 {
			t.Errorf("v%d pids: %d %d", v, got[100].PID, got[200].PID)
		}
		// 100's first wait: UserRequest, readied by 200 at 35 µs.
		var waits []analysis.ThreadInterval
		for _, iv := range got[100].Intervals {
			if iv.State == analysis.StateWaiting {
				waits = append(waits, iv)
			}
		}
		// The second, DelayExecution from 70 µs, is still open at the
		// last event (90 µs): no readier.
		if len(waits) != 2 || analysis.WaitReasonName(waits[0].WaitReason) != "UserRequest" || waits[0].ReadierTID != 200 ||
			waits[0].End-waits[0].Start != 50 || analysis.WaitReasonName(waits[1].WaitReason) != "DelayExecution" ||
			waits[1].ReadierTID != analysis.NoID || waits[1].End-waits[1].Start != 200 {
			t.Errorf("v%d 100's waits %+v", v, waits)
		}
		// 101 was preempted: ready from 55 µs to its switch-in at 70 µs.
		if th := got[101]; th.Ready != 150 {
			t.Errorf("v%d 101 ready %d, want 150", v, th.Ready)
		}
		procs := tt.Processes()
		if len(procs) != 2 || procs[0].PID != 10 || procs[0].Name != "app" || procs[0].Running != want[100]+want[101] ||
			procs[1].Running != want[200] {
			t.Errorf("v%d processes %+v", v, procs)
		}
	}
}

func TestWaitReasonNames(t *testing.T) {
	for r, name := range map[int8]string{0: "Executive", 6: "UserRequest", 13: "WrUserRequest", 15: "WrQueue",
		28: "WrPushLock", 32: "WrPreempted", 36: "WrRundown", 37: "MaximumWaitReason", 38: "WaitReason(38)", -1: "WaitReason(-1)"} {
		if got := analysis.WaitReasonName(r); got != name {
			t.Errorf("WaitReasonName(%d) = %q, want %q", r, got, name)
		}
	}
}

func BenchmarkThreadTime(b *testing.B) {
	var evs []cs
	tids := []uint32{100, 101, 200, 0}
	cur := [2]uint32{0, 0}
	for i := range 20000 {
		cpu := uint16(i % 2)
		n := tids[(i/2)%len(tids)]
		if n == cur[1-cpu] && n != 0 {
			n = 0
		}
		evs = append(evs, cs{us: 10 + i, cpu: cpu, newT: n, oldT: cur[cpu], reason: int8(i % 37), st: 5})
		cur[cpu] = n
	}
	files, dec, m := threadTrace(b, 2, evs)
	b.ReportAllocs()
	for b.Loop() {
		tt := analysis.NewThreadTime(m, 0)
		if _, _, err := m.Collect(files, dec, &analysis.CollectOptions{Observe: tt.Observe, Decode: tt.Wants}); err != nil {
			b.Fatal(err)
		}
	}
}
