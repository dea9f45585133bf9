package analysis

import (
	"encoding/binary"

	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
)

// An event goes through [Enricher.Push] in steps: extractPush takes what
// the enricher reads of the event and its decoding into a pushRec,
// Model.finish looks up its process in the model (which is only read),
// and Enricher.apply adds the record to the enricher's window. The first
// step needs the event, valid only until the reader moves on, and none
// of the enricher's state; the others only the record: with more than
// one processor [Model.eachSelectedAsync] runs them on two goroutines.

// pushRec is what the enricher reads of one event. Its stack fragments'
// frames are in its pushBatch.
type pushRec struct {
	// (Fields ordered by size: the records cross from one core to the
	// other, ~180,000 of them for net.4.5.2.)
	ts, ft   int64 // raw timestamp and FILETIME
	proc     *Process
	pid, tid uint32 // attribute's (the event's own until finish)
	htid     uint32 // the header's thread
	file     int32
	// Stack carriers: EventTimeStamp, StackThread, and StackKey; the
	// frames (kStack, kClrStack) in the batch's frames.
	sts    int64
	key    uint64
	stid   uint32
	f0, fn int32
	x0, xn int32 // extended items' fragments in the batch's frags
	cpu    uint16
	k      kind
	ok     bool // kStack, kStackKey, kClrStack: a fragment to attach
	// kStack: whether the frames' first and last are kernel addresses.
	first, last bool
	kernKey     bool // kStackKey: StackKeyKernel
	selected    bool // eachSelectedAsync: the event is selected
	done        bool // finish ran: pid and proc are attribute's
}

// extFrag is a stack fragment an extended item carries: frames (in the
// batch's frames) or a stack key.
type extFrag struct {
	match       uint64
	key         uint64
	keyed       bool
	first, last bool // whether the first and last frames are kernel addresses
	f0, fn      int32
}

// pushBatch holds records and the frames and fragments they refer to.
type pushBatch struct {
	recs   []pushRec
	frames []uint64
	frags  []extFrag
}

// reset empties b. The records it keeps point to processes, which the
// model keeps alive anyway.
func (b *pushBatch) reset() { b.recs, b.frames, b.frags = b.recs[:0], b.frames[:0], b.frags[:0] }

// framesOf returns the frames f0, fn name.
func (b *pushBatch) framesOf(f0, fn int32) []uint64 { return b.frames[f0 : f0+fn] }

// extractPush adds to b the record of ev, of kind k (decoded as res, or
// nil: see Enricher.NeedsDecode), and returns it, valid until b grows.
// Its pid and tid are the ones the event names until finish. It reads m
// and nothing else.
func (m *Model) extractPush(b *pushBatch, ev *etl.Event, k kind, res *decode.Result) *pushRec {
	d := decoded(res)
	pid, tid := m.namedIDs(ev, k, d)
	n := len(b.recs)
	if n == cap(b.recs) {
		b.recs = append(b.recs, pushRec{})
	}
	b.recs = b.recs[:n+1]
	r := &b.recs[n]
	*r = pushRec{k: k, cpu: ev.Processor, file: int32(ev.File), ts: ev.Timestamp, ft: ev.Time,
		htid: ev.ThreadID, pid: pid, tid: tid, x0: int32(len(b.frags))}
	if len(ev.Extended) > 0 {
		m.extractExtended(b, ev)
		r.xn = int32(len(b.frags)) - r.x0
	}
	switch k {
	case kStack:
		ts, ok1 := getU(d, "EventTimeStamp")
		tid, ok2 := getU(d, "StackThread")
		if !ok1 || !ok2 {
			break
		}
		f0 := len(b.frames)
		b.frames = pointersAfter(d, "StackThread", b.frames)
		if f := b.frames[f0:]; len(f) > 0 {
			r.ok, r.sts, r.stid = true, int64(ts), uint32(tid)
			r.f0, r.fn = int32(f0), int32(len(f))
			r.first, r.last = m.IsKernelAddress(f[0]), m.IsKernelAddress(f[len(f)-1])
		}
	case kStackKey:
		ts, ok1 := getU(d, "EventTimeStamp")
		tid, ok2 := getU(d, "StackThread")
		key, ok3 := getU(d, "StackKey")
		if ok1 && ok2 && ok3 {
			r.ok, r.sts, r.stid, r.key = true, int64(ts), uint32(tid), key
			r.kernKey = ev.Descriptor.Opcode == opStackKeyKern
		}
	case kClrStack:
		f0 := len(b.frames)
		b.frames = clrFrames(d, b.frames)
		if n := len(b.frames) - f0; n > 0 {
			r.ok, r.f0, r.fn = true, int32(f0), int32(n)
		}
	}
	return r
}

// finish completes r as attribute does: the process of the thread when
// the event names none, and the process's record. It reads m.
func (m *Model) finish(r *pushRec) { m.finishIn(m.build, r) }

// finishIn is finish looking processes and threads up through c (nil:
// none).
func (m *Model) finishIn(c *idCache, r *pushRec) {
	if r.done {
		return
	}
	r.done = true
	r.pid = m.orThreadPIDIn(c, r.pid, r.tid, r.ft)
	if r.pid != NoID {
		r.proc = processIn(m.pidRecs(c, r.pid), r.ft)
	}
}

// extractExtended adds to b the stack fragments of ev's extended items,
// in their order.
func (m *Model) extractExtended(b *pushBatch, ev *etl.Event) {
	le := binary.LittleEndian
	for _, x := range ev.Extended {
		switch x.Type {
		case etl.ExtStackTrace32, etl.ExtStackTrace64:
			if len(x.Data) < 8 {
				continue
			}
			match := le.Uint64(x.Data)
			w := 8
			if x.Type == etl.ExtStackTrace32 {
				w = 4
			}
			rest := x.Data[8:]
			f0 := len(b.frames)
			for i := 0; i+w <= len(rest); i += w {
				if w == 4 {
					b.frames = append(b.frames, uint64(le.Uint32(rest[i:])))
				} else {
					b.frames = append(b.frames, le.Uint64(rest[i:]))
				}
			}
			f := b.frames[f0:]
			if len(f) == 0 {
				continue
			}
			b.frags = append(b.frags, extFrag{match: match, first: m.IsKernelAddress(f[0]), last: m.IsKernelAddress(f[len(f)-1]),
				f0: int32(f0), fn: int32(len(f))})
		case etl.ExtStackKey32, etl.ExtStackKey64:
			var match, key uint64
			switch {
			case x.Type == etl.ExtStackKey32 && len(x.Data) >= 12:
				match, key = le.Uint64(x.Data), uint64(le.Uint32(x.Data[8:]))
			case x.Type == etl.ExtStackKey64 && len(x.Data) >= 16:
				match, key = le.Uint64(x.Data), le.Uint64(x.Data[8:])
			default:
				continue
			}
			fr := extFrag{match: match, key: key, keyed: true}
			if defs := m.keyFrames(key, -1, ev.Time); len(defs) > 0 {
				fr.first, fr.last = m.IsKernelAddress(defs[0]), m.IsKernelAddress(defs[len(defs)-1])
			}
			b.frags = append(b.frags, fr)
		}
	}
}
