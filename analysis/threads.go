package analysis

import (
	"cmp"
	"slices"
	"strconv"

	"github.com/etwkit/etw/catalog"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
)

// Thread opcodes of the kernel's context-switch events (Thread_V2..V4
// CSwitch and ReadyThread).
const (
	opCSwitch     = 36
	opReadyThread = 50
)

// ThreadState is a thread's scheduling state between two context-switch
// events.
type ThreadState uint8

// The states of [ThreadInterval].
const (
	StateRunning ThreadState = iota // on a processor
	StateReady                      // runnable, waiting for a processor
	StateWaiting                    // blocked, with a wait reason
)

// String names the state.
func (s ThreadState) String() string {
	switch s {
	case StateRunning:
		return "running"
	case StateReady:
		return "ready"
	case StateWaiting:
		return "waiting"
	}
	return "unknown"
}

// waitReasons are the KWAIT_REASON names, as the CSwitch class documents
// OldThreadWaitReason (0 Executive … 36 WrRundown, 37 MaximumWaitReason).
var waitReasons = [...]string{
	"Executive", "FreePage", "PageIn", "PoolAllocation", "DelayExecution", "Suspended", "UserRequest",
	"WrExecutive", "WrFreePage", "WrPageIn", "WrPoolAllocation", "WrDelayExecution", "WrSuspended",
	"WrUserRequest", "WrEventPair", "WrQueue", "WrLpcReceive", "WrLpcReply", "WrVirtualMemory",
	"WrPageOut", "WrRendezvous", "WrKeyedEvent", "WrTerminated", "WrProcessInSwap", "WrCpuRateControl",
	"WrCalloutStack", "WrKernel", "WrResource", "WrPushLock", "WrMutex", "WrQuantumEnd",
	"WrDispatchInt", "WrPreempted", "WrYieldExecution", "WrFastMutex", "WrGuardedMutex", "WrRundown",
	"MaximumWaitReason",
}

// WaitReasonName returns the documented name of a CSwitch
// OldThreadWaitReason, or "WaitReason(n)" for a value the documentation
// does not name.
func WaitReasonName(r int8) string {
	if r >= 0 && int(r) < len(waitReasons) {
		return waitReasons[r]
	}
	return "WaitReason(" + strconv.Itoa(int(r)) + ")"
}

// Kernel thread states (KTHREAD_STATE) of CSwitch's OldThreadState.
const (
	kstateReady         = 1
	kstateStandby       = 3
	kstateWaiting       = 5
	kstateDeferredReady = 7
)

// ThreadInterval is a span of one thread's time in one state, in
// FILETIME units. A waiting interval names its wait reason and, when a
// ReadyThread event ended it, the readying thread (ReadierTID, else
// [NoID]) and the time of that event (ReadyTime, which the stack of the
// ReadyThread event is logged at).
type ThreadInterval struct {
	Start, End int64
	State      ThreadState
	WaitReason int8
	CPU        uint16 // the processor of a running interval
	ReadierTID uint32
	ReadyTime  int64
}

// ThreadTimes is the running, ready and waiting time of one thread
// (FILETIME units, 100 ns).
type ThreadTimes struct {
	TID, PID         uint32
	Running          int64
	Ready, Waiting   int64
	Switches         int // times switched in
	Intervals        []ThreadInterval
	DroppedIntervals int // intervals beyond the bound, counted in the totals only
}

// ThreadTime computes, from the kernel's CSwitch and ReadyThread events,
// every thread's states over time (running, ready, waiting with its wait
// reason), its precise CPU time (switch-in to switch-out on a processor,
// WPA's CPU Usage (Precise)) and who readied it after each wait
// (PerfView's Thread Time). Feed it every event, decoded, in time order
// ([ThreadTime.Observe]); each thread keeps at most the bound's intervals
// (its totals count all of them). The idle threads (thread id 0) are not
// threads here: a processor switching to idle is only its running thread
// switching out.
type ThreadTime struct {
	m        *Model
	bound    int
	cpus     []cpuSlot
	threads  map[uint32]*threadRec
	switches int
	readies  int
	first    int64
	last     int64
}

type cpuSlot struct {
	tid   uint32
	since int64
	known bool
}

// threadRec is a thread's record: its totals and its open state.
type threadRec struct {
	ThreadTimes
	state     ThreadState
	since     int64
	open      bool
	reason    int8
	readier   uint32
	readyTime int64
	first     int64 // when the thread was first seen, for its process
	cpu       uint16
}

// add counts d in the total of state s.
func (t *ThreadTimes) add(s ThreadState, d int64) {
	switch s {
	case StateRunning:
		t.Running += d
	case StateReady:
		t.Ready += d
	case StateWaiting:
		t.Waiting += d
	}
}

// close counts r's open state from its start to end in the totals and
// keeps it as an interval when the thread holds fewer than bound.
func (r *threadRec) close(end int64, bound int) {
	iv := ThreadInterval{Start: r.since, End: end, State: r.state, WaitReason: -1, ReadierTID: NoID}
	r.add(r.state, end-r.since)
	switch r.state {
	case StateRunning:
		iv.CPU = r.cpu
	case StateWaiting:
		iv.WaitReason, iv.ReadierTID, iv.ReadyTime = r.reason, r.readier, r.readyTime
	}
	if len(r.Intervals) < bound {
		r.Intervals = append(r.Intervals, iv)
	} else {
		r.DroppedIntervals++
	}
}

// DefaultThreadIntervals bounds the intervals kept per thread.
const DefaultThreadIntervals = 4096

// NewThreadTime returns an empty thread-time pass whose threads m
// attributes to processes (nil: none until [ThreadTime.SetModel]; the
// process of a thread is looked up when the results are asked for, at
// the time the thread was first seen), keeping at most
// maxIntervals intervals per thread (<= 0: [DefaultThreadIntervals]).
func NewThreadTime(m *Model, maxIntervals int) *ThreadTime {
	if maxIntervals <= 0 {
		maxIntervals = DefaultThreadIntervals
	}
	return &ThreadTime{m: m, bound: maxIntervals, threads: map[uint32]*threadRec{}}
}

// SetModel sets the model that attributes threads to processes: a pass
// that runs while the model is being built (the same read of the trace)
// sets it once the model is complete.
func (tt *ThreadTime) SetModel(m *Model) { tt.m = m }

// Switches returns the CSwitch and ReadyThread events seen.
func (tt *ThreadTime) Switches() (cswitch, ready int) { return tt.switches, tt.readies }

// Wants reports whether ev is an event the pass reads (a CSwitch or
// ReadyThread): a [CollectOptions.Decode] that asks for its decoding.
func (tt *ThreadTime) Wants(ev *etl.Event) bool {
	op := ev.Descriptor.Opcode
	return ev.Flags&etl.FlagClassicHeader != 0 && ev.ProviderID == catalog.ThreadGUID && (op == opCSwitch || op == opReadyThread)
}

// Observe takes ev into account if it is a CSwitch or ReadyThread event
// that decoded.
func (tt *ThreadTime) Observe(ev *etl.Event, res *decode.Result) {
	if ev.Flags&etl.FlagClassicHeader == 0 || ev.ProviderID != catalog.ThreadGUID {
		return
	}
	switch ev.Descriptor.Opcode {
	case opCSwitch:
		d := decoded(res)
		if d == nil {
			return
		}
		newTID, ok1 := d.Uint("NewThreadId")
		oldTID, ok2 := d.Uint("OldThreadId")
		if !ok1 || !ok2 {
			return // UmsContextSwitch shares the opcode
		}
		reason, _ := d.Int("OldThreadWaitReason")
		state, _ := d.Int("OldThreadState")
		tt.cswitch(ev.Time, ev.Processor, uint32(newTID), uint32(oldTID), int8(reason), int8(state))
	case opReadyThread:
		d := decoded(res)
		if d == nil {
			return
		}
		tid, ok := d.Uint("TThreadId")
		if !ok {
			return
		}
		tt.ready(ev.Time, uint32(tid), ev.ThreadID)
	}
}

func (tt *ThreadTime) seen(ft int64) {
	if tt.first == 0 || ft < tt.first {
		tt.first = ft
	}
	if ft > tt.last {
		tt.last = ft
	}
}

func (tt *ThreadTime) thread(tid uint32, ft int64) *threadRec {
	r := tt.threads[tid]
	if r == nil {
		r = &threadRec{ThreadTimes: ThreadTimes{TID: tid, PID: NoID}, first: ft}
		tt.threads[tid] = r
	}
	return r
}

// enter ends r's open interval at ft and starts one in state s.
func (tt *ThreadTime) enter(r *threadRec, ft int64, s ThreadState) {
	if r.open && ft >= r.since {
		r.close(ft, tt.bound)
	}
	r.state, r.since, r.open = s, ft, true
	r.readier, r.readyTime = NoID, 0
}

func (tt *ThreadTime) cswitch(ft int64, cpu uint16, newTID, oldTID uint32, reason, state int8) {
	tt.switches++
	tt.seen(ft)
	for int(cpu) >= len(tt.cpus) {
		tt.cpus = append(tt.cpus, cpuSlot{})
	}
	slot := &tt.cpus[cpu]
	if oldTID != 0 {
		tt.switchOut(slot, ft, oldTID, reason, state)
	}
	if newTID != 0 {
		nw := tt.thread(newTID, ft)
		if nw.open && nw.state == StateRunning {
			// Running elsewhere by our account: a switch-out was lost; do
			// not count the span twice.
			nw.open = false
		}
		tt.enter(nw, ft, StateRunning)
		nw.cpu = cpu
		nw.Switches++
	}
	*slot = cpuSlot{tid: newTID, since: ft, known: true}
}

// switchOut ends oldTID's running on the processor of slot at ft: it
// becomes ready (preempted) or waits (OldThreadState Waiting).
func (tt *ThreadTime) switchOut(slot *cpuSlot, ft int64, oldTID uint32, reason, state int8) {
	old := tt.thread(oldTID, ft)
	// The old thread ran since its switch-in on this processor; before
	// the first switch seen on the processor its start is unknown and
	// that time is not counted (its open state is dropped, not closed).
	if !slot.known || slot.tid != oldTID || old.state != StateRunning {
		old.open = false
	}
	next := StateReady
	if state == kstateWaiting {
		next = StateWaiting
	}
	tt.enter(old, ft, next)
	if next == StateWaiting {
		old.reason = reason
	}
}

func (tt *ThreadTime) ready(ft int64, tid, readier uint32) {
	tt.readies++
	tt.seen(ft)
	r := tt.thread(tid, ft)
	if r.open && r.state == StateWaiting {
		r.readier, r.readyTime = readier, ft
		tt.enter(r, ft, StateReady) // records the readier in the wait
		return
	}
	if !r.open {
		tt.enter(r, ft, StateReady) // no readier: NoID
	}
}

// Threads returns the threads with their totals and intervals up to the
// last event seen (a state still open is closed there), by running time, most first,
// at most n (n <= 0: all).
func (tt *ThreadTime) Threads(n int) []ThreadTimes {
	out := make([]ThreadTimes, 0, len(tt.threads))
	for _, r := range tt.threads {
		out = append(out, tt.snapshot(r, true))
	}
	slices.SortFunc(out, func(a, b ThreadTimes) int {
		return cmp.Or(cmp.Compare(b.Running, a.Running), cmp.Compare(a.TID, b.TID))
	})
	if n > 0 && len(out) > n {
		out = out[:n]
	}
	return out
}

// snapshot returns thread r as [ThreadTime.Threads] reports it: its
// process looked up and its open state closed at the last event seen.
// Without intervals it holds the times only: no Intervals (nothing is
// copied) and a DroppedIntervals that counts the open state.
func (tt *ThreadTime) snapshot(r *threadRec, intervals bool) ThreadTimes {
	c := *r
	c.Intervals = nil
	bound := 0
	if intervals {
		c.Intervals, bound = slices.Clone(r.Intervals), tt.bound
	}
	if tt.m != nil {
		if pid, ok := tt.m.threadPID(r.TID, r.first); ok {
			c.PID = pid
		}
	}
	if r.open && tt.last > r.since {
		// The open state lasts to the last event seen.
		c.close(tt.last, bound)
	}
	return c.ThreadTimes
}

// ProcessCPU is the precise CPU time of one process: the running time of
// its threads.
type ProcessCPU struct {
	PID     uint32
	Name    string
	Running int64 // FILETIME units
	Threads int
}

// Processes returns the precise CPU time per process, most first; the
// idle threads (process 0) are left out.
func (tt *ThreadTime) Processes() []ProcessCPU {
	by := map[uint32]*ProcessCPU{}
	for _, r := range tt.threads {
		th := tt.snapshot(r, false)
		if th.TID == 0 || th.PID == 0 {
			continue
		}
		p := by[th.PID]
		if p == nil {
			p = &ProcessCPU{PID: th.PID}
			if tt.m != nil && th.PID != NoID {
				if pr := tt.m.processAt(th.PID, tt.last); pr != nil {
					p.Name = pr.Name
				}
			}
			by[th.PID] = p
		}
		p.Running += th.Running
		p.Threads++
	}
	out := make([]ProcessCPU, 0, len(by))
	for _, p := range by {
		out = append(out, *p)
	}
	slices.SortFunc(out, func(a, b ProcessCPU) int {
		return cmp.Or(cmp.Compare(b.Running, a.Running), cmp.Compare(a.PID, b.PID))
	})
	return out
}
