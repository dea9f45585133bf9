package analysis

import (
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/tdh"
)

// EventProcess returns the process and thread an event belongs to, as
// TraceEvent attributes them:
//
//   - the header's ids, when it has them, except for the events about a
//     process or thread, which belong to the one they describe: Process
//     events (and their counters) to the payload's ProcessId with no
//     thread, Thread events to the payload's ProcessId and TThreadId,
//     Image UnLoad and rundown to the payload's ProcessId, SystemConfig
//     Services to the service's ProcessId;
//   - for records without ids (perfinfo headers): the thread the payload
//     names (SampleProf's ThreadId, a disk I/O's IssuingThreadId, a page
//     fault's TThreadId, …), or the process (TcpIp and UdpIp PID, StackWalk
//     StackProcess/StackThread);
//   - a thread without a process takes the process of that thread at the
//     event's time; thread 0 is the idle thread (pid 0);
//   - a stack-key definition (KeyDelete, KeyRundown) belongs to the
//     process whose events used a user-mode key, to pid 0 for kernel-mode
//     keys; FileIo's file-object names (FileName, FileCreate, FileDelete,
//     FileRundown) to pid 0: they describe kernel objects, as the
//     kernel's Image events for drivers do under ProcessId 0.
//
// pid or tid is [NoID] when the trace does not tell. res may be nil for
// events whose payload does not matter (see [Builder.NeedsDecode]).
func (m *Model) EventProcess(ev *etl.Event, res *decode.Result) (pid, tid uint32, p *Process) {
	pid, tid = m.attribute(ev, classify(ev), decoded(res))
	if pid != NoID {
		p = m.processAt(pid, ev.Time)
	}
	return pid, tid, p
}

// EventProcessBuf is [Model.EventProcess]. buf is not used: it held a
// stack-key definition's frames, of which only the last one is read now.
//
// Deprecated: use [Model.EventProcess], which allocates nothing either.
func (m *Model) EventProcessBuf(ev *etl.Event, res *decode.Result, buf *[]uint64) (pid, tid uint32, p *Process) {
	return m.EventProcess(ev, res)
}

func (m *Model) attribute(ev *etl.Event, k kind, d *tdh.Decoded) (pid, tid uint32) {
	pid, tid = m.namedIDs(ev, k, d)
	return m.orThreadPID(pid, tid, ev.Time), tid
}

// namedIDs returns the process and thread ids the event names, as
// attribute does before it looks up the thread's process.
func (m *Model) namedIDs(ev *etl.Event, k kind, d *tdh.Decoded) (pid, tid uint32) {
	if k != kKeyDef {
		return idsOf(ev, k, d)
	}
	pid, tid = ev.ProcessID, ev.ThreadID
	if pid == NoID {
		pid = m.keyDefOwner(d)
	}
	return pid, tid
}

// orThreadPID returns pid, or when it is NoID the process thread tid
// belonged to at ft (NoID if none is known).
func (m *Model) orThreadPID(pid, tid uint32, ft int64) uint32 {
	return m.orThreadPIDIn(m.build, pid, tid, ft)
}

// orThreadPIDIn is orThreadPID looking the thread up through c (nil:
// none).
func (m *Model) orThreadPIDIn(c *idCache, pid, tid uint32, ft int64) uint32 {
	if pid == NoID && tid != NoID {
		pid, _ = threadPIDIn(m.tidRecs(c, tid), tid, ft)
	}
	return pid
}

// idsOf returns the process and thread ids an event of kind k (not
// kKeyDef) names in its header or payload (d): what attribute returns
// before it looks up the thread's process. It reads nothing of the model.
func idsOf(ev *etl.Event, k kind, d *tdh.Decoded) (pid, tid uint32) {
	pid, tid = ev.ProcessID, ev.ThreadID
	set := func(dst *uint32, names ...string) bool {
		if v, ok := getU(d, names...); ok {
			*dst = uint32(v)
			return true
		}
		return false
	}
	switch k {
	case kProcess, kProcessCounters:
		if set(&pid, "ProcessId") {
			tid = NoID
		}
	case kThread:
		set(&pid, "ProcessId")
		set(&tid, "TThreadId")
	case kImage:
		if ev.Descriptor.Opcode != opLoad {
			if set(&pid, "ProcessId") {
				tid = NoID
			}
		} else if pid == NoID {
			set(&pid, "ProcessId")
		}
	case kSample:
		set(&tid, "ThreadId")
	case kStack, kStackKey:
		set(&pid, "StackProcess")
		set(&tid, "StackThread")
	case kNetwork:
		if pid == NoID {
			set(&pid, "PID")
		}
	case kService:
		set(&pid, "ProcessId")
	case kFileName:
		// File-object names (FileName, FileCreate, FileDelete and the
		// FileRundown of open files) describe kernel objects and carry
		// no process; like the kernel's own images, they go to pid 0.
		if pid == NoID && tid == NoID {
			pid = 0
		}
	default:
		if tid == NoID && ev.Flags&etl.FlagClassicHeader != 0 {
			set(&tid, "TThreadId", "IssuingThreadId", "TTID", "ThreadId")
		}
	}
	return pid, tid
}

// payloadIDs is what the model pass keeps of the events idsOnly selects,
// decoded on the reader's loaders (decode.Ahead): idsOf's ids, and
// whether the event is a CPU sample IsCPUSample selects.
type payloadIDs struct {
	pid, tid uint32
	cpu      bool
}

// idsOnly reports whether the model reads nothing of a kind's payload but
// the ids idsOf takes from it (Builder.observe uses the decoding of the
// other kinds' events).
func idsOnly(k kind) bool {
	switch k {
	// Every kind Builder.observe reads more of than ids (its switch).
	case kProcess, kThread, kImage, kImageID, kImageRSDS, kStackKey, kKeyDef, kClrMethod, kClrGC, kVolume:
		return false
	}
	return true
}

// wantsIDs selects the events the model pass decodes ahead.
func wantsIDs(ev *etl.Event) bool {
	k := classify(ev)
	return idsOnly(k) && modelReads(ev, k)
}

// extractIDs keeps idsOf's ids of an event wantsIDs selected.
func extractIDs(ev *etl.Event, res *decode.Result) payloadIDs {
	k := classify(ev)
	d := decoded(res)
	if k != kSample {
		pid, tid := idsOf(ev, k, d)
		return payloadIDs{pid, tid, false}
	}
	// idsOf's ids of a sample and IsCPUSample, reading ThreadId once.
	x := payloadIDs{pid: ev.ProcessID, tid: ev.ThreadID}
	if v, ok := getU(d, "ThreadId"); ok {
		x.tid, x.cpu = uint32(v), cpuSampleOf(d, v)
	}
	return x
}

// peekIDsFor returns, for decode.Ahead's Peek, extractIDs of a CPU
// sample read in place with d: its ThreadId and, when that is 0, its
// Reserved flags, without decoding it; false for other events and samples
// PeekUint cannot read.
func peekIDsFor(d *decode.Decoder) func(ev *etl.Event) (payloadIDs, bool) {
	sp := newSamplePeeker(d)
	return func(ev *etl.Event) (payloadIDs, bool) {
		if classify(ev) != kSample {
			return payloadIDs{}, false
		}
		return sp.ids(ev)
	}
}

// samplePeeker reads a CPU sample's ids in place for one goroutine and
// decoder (peekIDsFor), through a decode.UintPeeker of each property: a
// pass reads the same two properties of tens of thousands of samples in a
// row, and each costs a few comparisons.
type samplePeeker struct {
	d             *decode.Decoder
	thread, flags *decode.UintPeeker
}

func newSamplePeeker(d *decode.Decoder) *samplePeeker {
	return &samplePeeker{d: d, thread: decode.NewUintPeeker("ThreadId"), flags: decode.NewUintPeeker("Reserved")}
}

// ids returns extractIDs of the sample ev, read in place; false when
// PeekUint would not read it.
func (sp *samplePeeker) ids(ev *etl.Event) (payloadIDs, bool) {
	x := payloadIDs{pid: ev.ProcessID, tid: ev.ThreadID}
	v, ok, peeked := sp.thread.Peek(sp.d, ev)
	if !peeked || !ok {
		return x, peeked
	}
	x.tid, x.cpu = uint32(v), v != 0
	if v == 0 {
		// cpuSampleOf: the idle thread's samples by their flags.
		flags, _, peeked := sp.flags.Peek(sp.d, ev)
		if !peeked {
			return x, false
		}
		x.cpu = flags&3 != 0
	}
	return x, true
}

// keyDefOwner returns the process a stack-key definition belongs to.
func (m *Model) keyDefOwner(d *tdh.Decoded) uint32 {
	key, ok := getU(d, "Key")
	if !ok {
		return NoID
	}
	last, ok := lastPointerAfter(d, "Key")
	if !ok {
		return NoID
	}
	return m.keyDefOwnerOf(key, last)
}

// keyDefOwnerOf is keyDefOwner of the definition of key whose last frame
// (the outermost) is last: the kernel's (pid 0) if it is a kernel
// address, else the process that referenced key, if any.
func (m *Model) keyDefOwnerOf(key, last uint64) uint32 {
	if m.IsKernelAddress(last) {
		return 0
	}
	if pid, ok := m.keyOwner[key]; ok {
		return pid
	}
	return NoID
}
