package analysis

import (
	"encoding/binary"
	"slices"
	"time"

	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/prefault"
	"github.com/etwkit/etw/tdh"
)

// EnrichOptions configures an [Enricher].
type EnrichOptions struct {
	// Window is how many events a stack logged after its event can reach
	// back to, and how many events the enricher holds before their
	// annotations are final (default 2048, the size of TraceLog's ring of
	// recent events).
	Window int
}

// DefaultWindow is the default [EnrichOptions.Window].
const DefaultWindow = 2048

// Annotation is what the model adds to one event.
type Annotation struct {
	// Seq is the event's position in push order (0 for the first).
	Seq int64
	// PID and TID are the process and thread the event belongs to (see
	// [Model.EventProcess]); NoID when unknown.
	PID, TID uint32
	// Process is the record of PID at the event's time (nil if none).
	Process *Process
	// Stack is the event's call stack, innermost frame first (kernel
	// frames, then user-mode frames); nil when the event has none.
	Stack []Frame

	m  *Model
	ft int64
	// The identity of Stack's frames (see StackID) and the frames it was
	// given for: Stack must still be that slice.
	stackID  uint64
	stackAt  *Frame
	stackLen int
}

// Time returns the event's time (UTC).
func (a *Annotation) Time() time.Time { return etl.FiletimeToTime(a.ft) }

// ProcessOf returns the record of process pid at the event's time: the
// annotation's Process for its own PID, nil when the model has none.
func (a *Annotation) ProcessOf(pid uint32) *Process {
	switch {
	case pid == a.PID:
		return a.Process
	case a.m == nil || pid == NoID:
		return nil
	}
	return a.m.processAt(pid, a.ft)
}

// IDs returns the process and thread an event belongs to, as TraceEvent
// attributes them: the annotation's (see [Model.EventProcess]: an event
// about another process or thread, such as Thread Start, Process Start,
// Image Load or SystemConfig Services, belongs to the one it describes;
// NoID where the trace does not tell), or the header's pid and tid when
// a is nil.
func (a *Annotation) IDs(pid, tid uint32) (uint32, uint32) {
	if a == nil {
		return pid, tid
	}
	return a.PID, a.TID
}

// EnrichStats counts what an [Enricher] did with the stacks it met.
type EnrichStats struct {
	Events int // events pushed
	// Stacks counts the stack fragments met (StackWalk events, CLR stack
	// walks, extended items); Orphans those no event in the window
	// matched.
	Stacks, Orphans int
	// WithStack counts the events given a stack.
	WithStack int
}

// Enricher gives events their process and stack, in time order. Stacks
// can arrive after their event: StackWalk events carry the timestamp and
// thread of the event they belong to (the user-mode part of a stack that
// was captured in kernel mode comes when the thread returns to user mode,
// as a later fragment on the same thread), and a CLR stack walk follows
// the runtime event it belongs to. The enricher therefore holds the last
// Window events: an event's annotation is final once Window more events
// have been pushed, or on Flush.
//
//	e := m.NewEnricher(nil)
//	for r.Next() {
//		ev := r.Event()
//		e.Push(ev, dec.Decode(ev))
//		for a, ok := e.Next(); ok; a, ok = e.Next() {
//			use(a) // the annotation of the oldest event not yet handed out
//		}
//	}
//	e.Flush()
//	for a, ok := e.Next(); ok; a, ok = e.Next() { use(a) }
//
// Annotations come out in push order, one per event.
type Enricher struct {
	m      *Model
	window int64
	ring   []slot
	next   int64 // sequence number of the next event pushed
	out    int64 // next annotation to hand out
	final  int64 // events before this one are final
	// The ring indexes of next and out, and the events until the next
	// sweep: kept as counters, which spares each event the divisions of
	// slot and of a modulo by window (a 64-bit division costs tens of
	// cycles: three an event).
	nextAt, outAt int
	toSweep       int64
	// stacks holds the frames of the slots' parts; marks[i] is where its
	// next frames went when next last became i modulo len(ring) (see
	// frameRing).
	stacks frameRing
	marks  []uint64

	parked map[uint32][]int64 // thread → events whose kernel stack awaits its user part
	match  map[uint64][]int64 // extended-item MatchId → kernel parts awaiting the user part

	scratch []uint64
	ids     *idCache  // Push's lookups once the model is built (see idCache)
	ext     pushBatch // the fragments of an event's extended items
	cache   frameCache
	ann     Annotation
	frames  []Frame
	addrs   []uint64
	Stats   EnrichStats
}

type slot struct {
	seq     int64
	file    int
	ts      int64 // raw timestamp, for StackWalk's EventTimeStamp
	ft      int64
	cpu     uint16
	stid    uint32 // thread whose stack the event has
	pid     uint32
	tid     uint32
	proc    *Process
	noStack bool // stack carriers and KernelTraceControl events are never targets
	clr     bool // a .NET runtime event: target of CLR stack walks
	has     bool // a stack part is attached
	kern    part // leaf side
	user    part // root side
}

// init sets s to the slot of event seq, of kind k, whose header names
// thread htid, with no stack part. It sets the fields one by one: a
// composite literal (which then kept the parts' frames, s.kern.frames[:0])
// read s, and Go built it in a temporary then copied it, which the
// reading goroutine of the JSON dump paid for in stalls (session 13).
func (s *slot) init(seq int64, file int, ts, ft int64, cpu uint16, pid, tid, htid uint32, proc *Process, k kind) {
	s.seq, s.file, s.ts, s.ft, s.cpu = seq, file, ts, ft, cpu
	s.pid, s.tid, s.proc = pid, tid, proc
	s.stid = htid
	if htid == NoID {
		s.stid = tid
	}
	s.noStack, s.clr, s.has = false, false, false
	switch k {
	case kStack, kStackKey, kKeyDef, kImageID, kImageRSDS, kClrStack:
		s.noStack = true
	case kClrMethod, kClrGC, kClrRuntime:
		s.clr = true
	}
	s.kern.clear()
	s.user.clear()
}

// part is a stack fragment: inline frames (n of them from position at of
// the Enricher's frameRing), or a stack key to look up.
type part struct {
	set   bool
	keyed bool
	table int8 // keyed: 1 kernel definitions, 0 user definitions, -1 either
	n     int32
	key   uint64
	at    uint64
}

// clear empties p.
func (p *part) clear() {
	p.set, p.keyed, p.table, p.key, p.n = false, false, 0, 0, 0
}

// setFrames sets p to the inline frames f, which it copies into the
// enricher's frameRing.
func (e *Enricher) setFrames(p *part, f []uint64) {
	p.set, p.keyed, p.n = true, false, int32(len(f))
	p.at = e.stacks.put(f, e.marks[e.oldestMark()])
}

// oldestMark returns the index in e.marks of the oldest frames a slot
// may still hand out: those put since next became next-len(ring)+1 (the
// slot of the event before then, the last to take frames then, is
// overwritten when next passes next-1+len(ring)).
func (e *Enricher) oldestMark() int {
	if i := e.nextAt + 1; i < len(e.marks) {
		return i
	}
	return 0
}

// frameRing holds the inline frames of an enricher's stack parts, in the
// order they were set. Each slot's parts kept a slice of their own, grown
// to the deepest stack the slot ever held, so that the window's 2,049
// slots held 1.5-2.2 MB over a dump (the deepest stacks of a trace,
// 2,049 times); the frames the window holds at once take a fraction of
// that. A slot's frames are read until the slot is overwritten, len(ring)
// events after its own, and the frames put while the enricher's next
// event was N belong to events before N: positions put since next was
// next-len(ring)+1 are live (Enricher.marks), older ones are overwritten.
// The ring grows (doubling) when the live frames would not fit.
type frameRing struct {
	buf  []uint64 // a power of two long
	head uint64   // positions put so far (and skipped, see put)
}

// minFrameRing is the least length of a frameRing (32 KiB).
const minFrameRing = 4096

// put copies f into the ring, whose positions from oldest on are live,
// and returns its position. A run of frames that would wrap around the
// end starts over at the beginning instead, so that each part's frames
// are contiguous.
func (r *frameRing) put(f []uint64, oldest uint64) uint64 {
	n := uint64(len(f))
	if n == 0 {
		return r.head
	}
	for {
		c := uint64(len(r.buf))
		at := r.head
		if c > 0 && at&(c-1)+n > c {
			at += c - at&(c-1)
		}
		if c > 0 && at+n-oldest <= c {
			copy(r.buf[at&(c-1):], f)
			r.head = at + n
			return at
		}
		r.grow(oldest, max(2*c, minFrameRing, 2*(at+n-oldest)))
	}
}

// grow moves the ring's live positions (from oldest on) to storage of at
// least size (rounded up to a power of two).
func (r *frameRing) grow(oldest, size uint64) {
	c := uint64(minFrameRing)
	for c < size {
		c *= 2
	}
	buf := make([]uint64, c)
	if old := uint64(len(r.buf)); old > 0 {
		for p := oldest; p < r.head; p++ {
			buf[p&(c-1)] = r.buf[p&(old-1)]
		}
	}
	r.buf = buf
}

// frames returns the n frames at position at.
func (r *frameRing) frames(at uint64, n int32) []uint64 {
	if n == 0 {
		return nil
	}
	i := at & uint64(len(r.buf)-1)
	return r.buf[i : i+uint64(n)]
}

func (p *part) setKey(key uint64, table int8) {
	p.set, p.keyed, p.key, p.table = true, true, key, table
}

// NewEnricher returns an enricher over m. m should be complete (built
// from the whole trace) so that stacks defined late (stack-key rundown,
// .NET method rundown) resolve; a model being built also works, with what
// it knows so far.
func (m *Model) NewEnricher(opts *EnrichOptions) *Enricher {
	w := DefaultWindow
	if opts != nil && opts.Window > 0 {
		w = opts.Window
	}
	return &Enricher{
		m:      m,
		window: int64(w),
		ring:   prefault.Make[slot](w + 1), // scanned and read before written
		marks:  prefault.Make[uint64](w + 1),
		parked: map[uint32][]int64{},
		match:  map[uint64][]int64{},
	}
}

// NeedsDecode reports whether Push reads the payload of ev; other events
// may be pushed with a nil result.
func (e *Enricher) NeedsDecode(ev *etl.Event) bool { return enricherDecodes(ev, classify(ev)) }

// enricherDecodes is NeedsDecode for an event of kind k.
func enricherDecodes(ev *etl.Event, k kind) bool {
	switch k {
	case kClrMethod, kClrGC, kImageID, kImageRSDS:
		return false
	}
	return needsPayload(ev, k)
}

func (e *Enricher) slot(seq int64) *slot { return &e.ring[e.at(seq)] }

// at returns the ring index of the event numbered seq.
func (e *Enricher) at(seq int64) int { return int(seq % int64(len(e.ring))) }

// before returns the ring index of the slot before the one at ring index
// i: the walks back through the window (find, attachClr) step with it
// rather than divide for every slot they visit (an orphaned stack visits
// the whole window: 2,048 slots).
func (e *Enricher) before(i int) int {
	if i == 0 {
		return len(e.ring) - 1
	}
	return i - 1
}

func (e *Enricher) live(seq int64) bool { return seq >= e.final && seq < e.next }

// Push adds the next event and returns its annotation as far as it is
// known now: its process and thread, which do not change, and no stack
// yet (the final annotation comes from Next). res is its decoding, or nil
// when NeedsDecode says the payload is not needed.
func (e *Enricher) Push(ev *etl.Event, res *decode.Result) Annotation {
	return e.push(ev, classify(ev), res).annotation(e.m)
}

// PushDecoding is Push of ev decoded with dec when NeedsDecode says so
// (looking at the event once for both): it returns the decoding (nil
// when ev was not decoded), valid until dec decodes again, and Push's
// annotation.
func (e *Enricher) PushDecoding(ev *etl.Event, dec *decode.Decoder) (*decode.Result, Annotation) {
	res, s := e.pushDecoding(ev, dec, false)
	return res, s.annotation(e.m)
}

// PushPeeking is PushDecoding for a caller that does not read the
// decodings: an event of which Push reads a value that lies at a fixed
// place of its payload (a CPU sample's thread: decode.Decoder.PeekUint) is
// not decoded, and its decoding is nil. Of net.4.5.2.x64.etl's 117,628
// events that PushDecoding decodes, 79,528 are samples.
func (e *Enricher) PushPeeking(ev *etl.Event, dec *decode.Decoder) (*decode.Result, Annotation) {
	res, s := e.pushDecoding(ev, dec, true)
	return res, s.annotation(e.m)
}

// PushIDs is PushDecoding, or PushPeeking with peek set, for a caller
// that reads nothing of Push's annotation but the process and thread the
// event belongs to (its PID and TID): a filter's, before the annotation
// is final. It returns those rather than the whole annotation, whose
// copies (88 bytes, from one call to the next) cost the JSON dump's
// reading goroutine more than the enricher's own work (session 13).
func (e *Enricher) PushIDs(ev *etl.Event, dec *decode.Decoder, peek bool) (res *decode.Result, pid, tid uint32) {
	res, s := e.pushDecoding(ev, dec, peek)
	return res, s.pid, s.tid
}

// pushDecoding is PushDecoding, or PushPeeking with peek set: it returns
// the decoding and the event's slot, valid until the next push.
func (e *Enricher) pushDecoding(ev *etl.Event, dec *decode.Decoder, peek bool) (*decode.Result, *slot) {
	k := classify(ev)
	var res *decode.Result
	if enricherDecodes(ev, k) {
		if peek && k == kSample {
			// A sample's thread is all push reads of it (idsOf). Not
			// through peekIDsFor's, which also reads an idle sample's flags:
			// that cost the JSON dump of net.4.5.2 +36 M instructions
			// (+1.5 %), most of its samples being the idle thread's.
			if v, ok, peeked := dec.PeekUint(ev, "ThreadId"); peeked {
				tid := ev.ThreadID
				if ok {
					tid = uint32(v)
				}
				return nil, e.pushIDs(ev, k, nil, ev.ProcessID, tid)
			}
		}
		res = dec.Decode(ev)
	}
	return res, e.push(ev, k, res)
}

// push is Push of an event of kind k: it returns the event's slot, valid
// until the next push.
func (e *Enricher) push(ev *etl.Event, k kind, res *decode.Result) *slot {
	d := decoded(res)
	pid, tid := e.m.namedIDs(ev, k, d)
	return e.pushIDs(ev, k, d, pid, tid)
}

// pushIDs is push of an event whose payload (d) names process pid and
// thread tid (namedIDs).
func (e *Enricher) pushIDs(ev *etl.Event, k kind, d *tdh.Decoded, pid, tid uint32) *slot {
	m := e.m
	seq, s := e.advance()
	c := e.idCache()
	pid = m.orThreadPIDIn(c, pid, tid, ev.Time) // what attribute gives
	var proc *Process
	if pid != NoID {
		proc = processIn(m.pidRecs(c, pid), ev.Time)
	}
	s.init(seq, ev.File, ev.Timestamp, ev.Time, ev.Processor, pid, tid, ev.ThreadID, proc, k)
	if len(ev.Extended) > 0 {
		e.extended(ev, s)
	}
	switch k {
	case kStack:
		e.stackWalk(ev, d)
	case kStackKey:
		e.stackKey(ev, d)
	case kClrStack:
		e.clrStack(ev, d, s)
	}
	return s
}

// apply adds the event of r (extractPush's record, in b) and returns its
// sequence number (what its caller reads of Push's annotation).
func (e *Enricher) apply(b *pushBatch, r *pushRec) int64 {
	e.m.finishIn(e.idCache(), r)
	seq, s := e.advance()
	s.init(seq, int(r.file), r.ts, r.ft, r.cpu, r.pid, r.tid, r.htid, r.proc, r.k)
	for i := r.x0; i < r.x0+r.xn; i++ {
		e.extFrag(b, &b.frags[i], s)
	}
	if r.ok {
		switch r.k {
		case kStack:
			e.attachWalk(int(r.file), r.sts, r.stid, r.cpu, b.framesOf(r.f0, r.fn), r.first, r.last)
		case kStackKey:
			e.attachKey(int(r.file), r.sts, r.stid, r.cpu, r.key, r.kernKey)
		case kClrStack:
			e.attachClr(b.framesOf(r.f0, r.fn), s)
		}
	}
	return seq
}

// advance returns the sequence number of the event pushed now and its
// slot, and moves the window on.
func (e *Enricher) advance() (int64, *slot) {
	seq := e.next
	if e.out < seq+1-int64(len(e.ring)) {
		e.out = seq + 1 - int64(len(e.ring)) // annotations not taken are dropped
		e.outAt = e.at(e.out)
	}
	s := &e.ring[e.nextAt]
	if e.nextAt++; e.nextAt == len(e.ring) {
		e.nextAt = 0
	}
	e.next++
	e.marks[e.nextAt] = e.stacks.head
	e.Stats.Events++
	if e.toSweep == 0 { // seq is a multiple of window
		e.sweep()
		e.toSweep = e.window
	}
	e.toSweep--
	if f := e.next - e.window; f > e.final {
		e.final = f
	}
	return seq, s
}

// sweep forgets parked events that have left the window.
func (e *Enricher) sweep() {
	for tid, l := range e.parked {
		if len(l) == 0 || !e.live(l[len(l)-1]) {
			delete(e.parked, tid)
		}
	}
	for id, l := range e.match {
		if len(l) == 0 || !e.live(l[len(l)-1]) {
			delete(e.match, id)
		}
	}
}

// Flush makes every annotation final.
func (e *Enricher) Flush() { e.final = e.next }

// Next returns the annotation of the oldest event whose annotation is
// final and was not handed out yet. It and its Stack are valid until the
// next call to Next or Push.
func (e *Enricher) Next() (*Annotation, bool) {
	s := e.nextSlot()
	if s == nil {
		return nil, false
	}
	return e.annotate(s), true
}

// nextSlot hands out the slot of the oldest event whose annotation is
// final and was not handed out yet, nil if none. It is valid until the
// next call to Push.
func (e *Enricher) nextSlot() *slot {
	if e.out >= e.final {
		return nil
	}
	s := &e.ring[e.outAt]
	if e.outAt++; e.outAt == len(e.ring) {
		e.outAt = 0
	}
	e.out++
	return s
}

// annotate returns the annotation of the slot nextSlot handed out, its
// stack resolved. It and its Stack are valid until the next call to
// annotate, Next or Push.
func (e *Enricher) annotate(s *slot) *Annotation {
	s.annotate(&e.ann, e.m)
	e.addrs = e.stackAddrs(s, e.addrs[:0]) // counts the stack
	e.frames, _ = e.cache.resolveAll(e.m, s.proc, e.addrs, s.ft, e.frames[:0])
	if len(e.frames) > 0 {
		e.ann.Stack = e.frames
	}
	return &e.ann
}

// skip counts the stack of a slot nextSlot handed out, whose annotation
// is not wanted, without resolving it.
func (e *Enricher) skip(s *slot) {
	if s.has && e.partLen(&s.kern, s.ft)+e.partLen(&s.user, s.ft) > 0 {
		e.Stats.WithStack++
	}
}

// stackAddrs appends the addresses of the stack of a slot nextSlot
// handed out, innermost first, and counts it in Stats.WithStack when it
// has any (annotate resolves them; [Model.eachSelectedAsync] elsewhere).
func (e *Enricher) stackAddrs(s *slot, dst []uint64) []uint64 {
	if !s.has {
		return dst
	}
	n := len(dst)
	dst = e.partFrames(&s.kern, s.ft, dst)
	dst = e.partFrames(&s.user, s.ft, dst)
	if len(dst) > n {
		e.Stats.WithStack++
	}
	return dst
}

// resolveAll appends the frames of addrs (a stack of process p at time
// ft), resolved through the cache, and reports whether every one of them
// is the same at any time (see Model.resolveStable). Frames of another
// model than the last one's are forgotten first: the slots of kernel
// addresses name no process, which would tell the models apart.
func (c *frameCache) resolveAll(m *Model, p *Process, addrs []uint64, ft int64, dst []Frame) ([]Frame, bool) {
	if c.m != m {
		clear(c.slots)
		c.m = m
	}
	all := true
	n := len(dst)
	dst = slices.Grow(dst, len(addrs))[:n+len(addrs)]
	for i, a := range addrs {
		// Stored in place: appending resolve's result copied it from
		// the registers to the stack with 8-byte stores, then with
		// 16-byte loads that wait for them (no store forwarding from
		// two stores to one load): 0.4 % of the JSON dump's samples.
		stable := c.resolveTo(&dst[n+i], m, p, a, ft)
		all = all && stable
	}
	return dst, all
}

// partFrames appends the addresses of p.
func (e *Enricher) partFrames(p *part, ft int64, dst []uint64) []uint64 {
	if !p.set {
		return dst
	}
	if !p.keyed {
		return append(dst, e.stacks.frames(p.at, p.n)...)
	}
	return append(dst, e.m.keyFrames(p.key, p.table, ft)...)
}

// partLen returns the number of addresses partFrames appends for p.
func (e *Enricher) partLen(p *part, ft int64) int {
	switch {
	case !p.set:
		return 0
	case !p.keyed:
		return int(p.n)
	}
	return len(e.m.keyFrames(p.key, p.table, ft))
}

// keyDef is one definition of a stack key: the frames it stood for until
// ft (KeyDelete, when the kernel evicted it from its cache) or at the end
// of the trace (KeyRundown).
type keyDef struct {
	ft     int64
	off, n int32
	kernel bool
}

// keyFrames returns the frames key stood for at ft: the first definition
// logged at or after ft in the given table (1 kernel, 0 user, -1 any).
func (m *Model) keyFrames(key uint64, table int8, ft int64) []uint64 {
	defs := m.keys[key]
	var last *keyDef
	for i := range defs {
		d := &defs[i]
		if table >= 0 && d.kernel != (table == 1) {
			continue
		}
		if d.ft >= ft {
			return m.arena[d.off : d.off+d.n]
		}
		last = d
	}
	if last != nil {
		return m.arena[last.off : last.off+last.n]
	}
	return nil
}

// find returns the pending event a StackWalk fragment belongs to: the
// latest one of the same file with the same raw timestamp and thread, or
// failing that one without a thread logged on the same processor.
func (e *Enricher) find(file int, ts int64, tid uint32, cpu uint16) *slot {
	var alt *slot
	// e.next-1 is the fragment itself.
	for j, i := e.next-2, e.at(e.next-2); j >= e.final; j, i = j-1, e.before(i) {
		s := &e.ring[i]
		if s.file != file {
			continue
		}
		if s.ts < ts {
			break
		}
		if s.ts != ts || s.noStack {
			continue
		}
		if s.stid == tid {
			return s
		}
		if alt == nil && s.stid == NoID && s.cpu == cpu {
			alt = s
		}
	}
	if alt != nil {
		alt.stid = tid
	}
	return alt
}

// waits reports whether a kernel-only stack of process pid waits for its
// user-mode part (system processes have none).
func waits(pid uint32) bool { return pid != 0 && pid != 4 && pid != NoID }

func (e *Enricher) park(tid uint32, seq int64) {
	l := e.parked[tid]
	n := 0
	for _, q := range l {
		if e.live(q) {
			l[n] = q
			n++
		}
	}
	e.parked[tid] = append(l[:n], seq)
}

// stackWalk handles a StackWalk Stack event: frames of the event with
// timestamp EventTimeStamp on thread StackThread.
func (e *Enricher) stackWalk(ev *etl.Event, d *tdh.Decoded) {
	ts, ok1 := getU(d, "EventTimeStamp")
	tid, ok2 := getU(d, "StackThread")
	if !ok1 || !ok2 {
		return
	}
	e.scratch = pointersAfter(d, "StackThread", e.scratch[:0])
	frames := e.scratch
	if len(frames) == 0 {
		return
	}
	e.attachWalk(ev.File, int64(ts), uint32(tid), ev.Processor, frames,
		e.m.IsKernelAddress(frames[0]), e.m.IsKernelAddress(frames[len(frames)-1]))
}

// attachWalk attaches the frames of a StackWalk event (at least one;
// whether the first and last are kernel addresses): the stack of the
// event of file with raw timestamp ts on thread tid (or processor cpu).
func (e *Enricher) attachWalk(file int, ts int64, tid uint32, cpu uint16, frames []uint64, firstKernel, lastKernel bool) {
	e.Stats.Stacks++
	t := e.find(file, ts, tid, cpu)
	if !firstKernel && !lastKernel {
		// User-only: completes the thread's kernel parts waiting for it.
		used := e.completeParked(tid, t, func(p *part) { e.setFrames(p, frames) })
		if t == nil && !used {
			e.Stats.Orphans++
		}
		return
	}
	// Kernel-only (the user part, if any, comes later) or both.
	if e.takesKernel(t, tid, lastKernel) {
		e.setFrames(&t.kern, frames)
	}
}

// takesKernel reports whether t takes the kernel-mode part of a stack
// fragment: not when no event was found (an orphan) or t has one. With
// park, t then waits on thread tid for its user-mode part.
func (e *Enricher) takesKernel(t *slot, tid uint32, park bool) bool {
	if t == nil {
		e.Stats.Orphans++
		return false
	}
	if t.kern.set {
		return false
	}
	t.has = true
	if park && waits(t.pid) && !t.user.set {
		e.park(tid, t.seq)
	}
	return true
}

// completeParked gives the user-mode part set to every event parked on
// thread tid and to t itself (if not among them and without one). It
// reports whether any event took it.
func (e *Enricher) completeParked(tid uint32, t *slot, set func(*part)) bool {
	used := false
	for _, q := range e.parked[tid] {
		if !e.live(q) {
			continue
		}
		s := e.slot(q)
		if !s.user.set {
			set(&s.user)
			s.has = true
			used = true
		}
	}
	delete(e.parked, tid)
	if t != nil && !t.user.set {
		set(&t.user)
		t.has = true
		used = true
	}
	return used
}

// stackKey handles StackKeyKernel and StackKeyUser: a reference to a
// cached stack, defined later by KeyDelete or KeyRundown.
func (e *Enricher) stackKey(ev *etl.Event, d *tdh.Decoded) {
	ts, ok1 := getU(d, "EventTimeStamp")
	tid, ok2 := getU(d, "StackThread")
	key, ok3 := getU(d, "StackKey")
	if !ok1 || !ok2 || !ok3 {
		return
	}
	e.attachKey(ev.File, int64(ts), uint32(tid), ev.Processor, key, ev.Descriptor.Opcode == opStackKeyKern)
}

// attachKey attaches a stack key of a StackKey event (kern: the kernel
// part) to the event of file with raw timestamp ts on thread tid (or
// processor cpu).
func (e *Enricher) attachKey(file int, ts int64, tid uint32, cpu uint16, key uint64, kern bool) {
	e.Stats.Stacks++
	t := e.find(file, ts, tid, cpu)
	if kern {
		if e.takesKernel(t, tid, true) {
			t.kern.setKey(key, 1)
		}
		return
	}
	if !e.completeParked(tid, t, func(p *part) { p.setKey(key, 0) }) && t == nil {
		e.Stats.Orphans++
	}
}

// clrStack handles a .NET runtime stack walk: the stack of the latest
// earlier runtime event of the same thread that has none.
func (e *Enricher) clrStack(ev *etl.Event, d *tdh.Decoded, self *slot) {
	frames := clrFrames(d, e.scratch[:0])
	e.scratch = frames
	if len(frames) > 0 {
		e.attachClr(frames, self)
	}
}

// attachClr attaches the frames of a .NET runtime stack walk (at least
// one) to the latest earlier runtime event of the same thread that has
// no stack.
func (e *Enricher) attachClr(frames []uint64, self *slot) {
	e.Stats.Stacks++
	for j, i := self.seq-1, e.at(self.seq-1); j >= e.final; j, i = j-1, e.before(i) {
		s := &e.ring[i]
		if s.clr && s.stid == self.stid && s.file == self.file {
			if s.has {
				break
			}
			e.setFrames(&s.user, frames)
			s.has = true
			return
		}
	}
	e.Stats.Orphans++
}

// clrFrames returns the frames of a CLR stack walk: FrameCount pointers
// from the start of Stack. Manifests declare the array with a fixed count
// of 2, so the frames are read from the payload rather than from the
// decoded array.
func clrFrames(d *tdh.Decoded, dst []uint64) []uint64 {
	if d == nil {
		return dst
	}
	n, ok := d.Uint("FrameCount")
	v, ok2 := d.Get("Stack")
	if !ok || !ok2 {
		return dst
	}
	ps := d.PointerSize
	b := d.Payload[min(v.Offset, len(d.Payload)):]
	n = min(n, uint64(len(b)/ps))
	for i := 0; i < int(n); i++ {
		if ps == 4 {
			dst = append(dst, uint64(binary.LittleEndian.Uint32(b[4*i:])))
		} else {
			dst = append(dst, binary.LittleEndian.Uint64(b[8*i:]))
		}
	}
	return dst
}

// extended attaches the stacks carried by the event's extended items.
func (e *Enricher) extended(ev *etl.Event, s *slot) {
	b := &e.ext
	b.reset()
	e.m.extractExtended(b, ev)
	for i := range b.frags {
		e.extFrag(b, &b.frags[i], s)
	}
}

// extFrag attaches a stack fragment an extended item of s's event
// carried (extractExtended's).
func (e *Enricher) extFrag(b *pushBatch, f *extFrag, s *slot) {
	e.Stats.Stacks++
	if f.keyed {
		key := f.key
		e.extFragment(s, f.match, func(p *part) { p.setKey(key, -1) }, f.first, f.last)
		return
	}
	frames := b.framesOf(f.f0, f.fn)
	e.extFragment(s, f.match, func(p *part) { e.setFrames(p, frames) }, f.first, f.last)
}

// extFragment attaches a stack fragment carried by an extended item.
// MatchId 0 means kernel and user frames were captured together; a
// non-zero MatchId pairs a kernel-only capture with the user-mode capture
// logged later with the same MatchId.
func (e *Enricher) extFragment(s *slot, match uint64, set func(*part), firstKernel, lastKernel bool) {
	switch {
	case match != 0 && lastKernel:
		if !s.kern.set {
			set(&s.kern)
			s.has = true
			l := e.match[match][:0:0]
			for _, q := range e.match[match] {
				if e.live(q) {
					l = append(l, q)
				}
			}
			e.match[match] = append(l, s.seq)
		}
	case match != 0 && !firstKernel:
		for _, q := range e.match[match] {
			if e.live(q) && q != s.seq {
				if w := e.slot(q); !w.user.set {
					set(&w.user)
					w.has = true
				}
			}
		}
		delete(e.match, match)
		if !s.user.set && !s.kern.set {
			set(&s.user)
			s.has = true
		}
	default:
		if !s.kern.set {
			set(&s.kern)
			s.has = true
		}
	}
}
