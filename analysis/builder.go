package analysis

import (
	"slices"

	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/cores"
	"github.com/etwkit/etw/tdh"
)

// Options configures a [Builder]. The zero value is ready to use.
type Options struct {
	// PointerSize is the trace's pointer size (4 or 8), which decides
	// what a kernel address is on 32-bit systems. 0 takes it from the
	// files given to [Build], else from the first kernel event.
	PointerSize int
	// Observe, if set, is called by [Build] with every event it reads,
	// before the model sees it: a pass that needs the trace for another
	// purpose shares Build's (decode.Prescanner.Observe registers the
	// schemas the trace carries, so that the dump that follows needs no
	// pass of its own).
	Observe func(*etl.Event)
	// LateMethods lets [Build] return before every .NET method is added
	// to the model: with more than one processor they are added on a
	// goroutine of their own, which may then still be adding the last
	// of them (the rundown's, at the end of the trace) while a pass that
	// follows reads the trace again. Nothing may read the model's methods
	// ([Process.Methods], [Model.ResolveFrame], an [Enricher]'s frames)
	// before [Model.WaitMethods] returns; the collecting passes
	// ([Model.EachSelected], [Model.Collect], [Model.CollectWeighted],
	// [Model.CollectPprof]) wait themselves, when they first need them,
	// and so does a [StackResolver]. With AnnotationsOnly the reading
	// goroutine still shares the methods' decoding while their goroutine
	// keeps up, as without LateMethods: the dumps' pass waits for them
	// at its first stack.
	LateMethods bool
	// NoMethods leaves the .NET methods out of the model, for a command
	// that resolves no frame ([Process.Methods] stays empty, frames in
	// JIT-compiled code resolve to no method): [Build] then neither
	// decodes the method events nor keeps their names. They still count
	// as events of their process and thread, which their headers name.
	NoMethods bool
	// AnnotationsOnly builds only what an [Enricher]'s annotations (each
	// event's process and stack) and a choice of processes by name read:
	// the model of the JSON and Parquet dumps. The processes, their
	// names, threads, images and .NET methods and the stack keys are a
	// full model's; left out are the counts ([Process.Events] and
	// CPUSamples, [Process.CLR], [Model.CPUSamples], Unattributed: 0),
	// the GC statistics ([Process.GC]: nil), the volumes
	// ([Model.Volumes]: none) and the methods' signatures
	// ([Method.Signature]: ""). [Model.Events], the time range and
	// StackKeys are kept. Once the model has the idle process (pid 0),
	// the events that only count (CPU samples, stack walks, I/O, the
	// .NET runtime's events but its methods, …) are not decoded: a full
	// model gives the processes their payloads name records of their
	// own, placeholders without a name or images, which an annotation
	// cannot tell from no record.
	AnnotationsOnly bool
	// NoImageIDs leaves out what only a [Symbolizer] reads of the
	// images, for a model that gets none: their PDB identities
	// ([Image.PDB]: zero) and the time stamps only KernelTraceControl's
	// ImageID events give ([Image.TimeDateStamp]: the Image event's). The
	// ImageID and DbgID_RSDS events are then not decoded; they still count
	// as events of the process their headers name.
	NoImageIDs bool
	// NoStackFrames leaves out the stack keys' frames, for a model from
	// which nothing resolves a stack (no [Enricher], [StackResolver] or
	// collecting pass over it: they would find no frames). A definition
	// (KeyDelete, KeyRundown) still gives its event the process it
	// belongs to, from its last frame, and counts in [Model.StackKeys];
	// its frames are neither gathered nor kept (in net.4.5.2 ~8 % of the
	// model pass's reading goroutine's work).
	NoStackFrames bool
}

// Builder builds a [Model] from events fed in time order.
//
//	b := analysis.NewBuilder(nil)
//	for r.Next() {
//		ev := r.Event()
//		var res *decode.Result
//		if b.NeedsDecode(ev) {
//			res = dec.Decode(ev)
//		}
//		b.Observe(ev, res)
//	}
//	m := b.Model()
//
// The model can be queried while it is being built; it then reflects the
// events observed so far.
type Builder struct {
	m *Model

	// KernelTraceControl's ImageID and DbgID_RSDS events describe the
	// Image event logged at the same time, before or after it; events of
	// one time are consecutive in time order.
	joinFT     int64
	joinImages map[uint64]*Image
	joinPDB    map[uint64]PDB
	joinStamp  map[uint64]uint32
	// identities and stamps (those without a PDB, by time stamp and
	// checksum) intern the images' identities (Image.id).
	identities map[imageIdentity]*imageIdentity
	stamps     map[uint64]*imageIdentity

	// Events of threads not known yet, counted once the model is done.
	pending map[uint32]*pendingCount

	gc      map[*Process]*gcState
	scratch []uint64
	names   interner
	// methodSlab holds the methods Builder.method adds (without the
	// methods' goroutine).
	methodSlab methodSlab
	done       bool

	// With more than one processor, the queue that adds the .NET
	// methods on a goroutine of its own, which also sorts them when done
	// (Model does not then).
	methods *methodQueue

	// frameSets holds the arena offsets of the key definitions' frame
	// lists by a hash of the frames: a list logged again (each rundown
	// of the same stack) is stored once.
	frameSets map[uint64][]int32

	// Options.AnnotationsOnly (see annotations.go): annOnly; idle once
	// the model has a record of pid 0; skipSet, the kinds skips may
	// skip (bit k), taken once from describes.
	annOnly    bool
	idle       bool
	skipSet    uint32
	noImageIDs bool // Options.NoImageIDs
	noFrames   bool // Options.NoStackFrames

	// joined: a join map holds something (image, imageID), for joinFT:
	// begin clears them at another time, and does nothing else for them
	// otherwise.
	joined bool

	// learnt memoizes learnThread's last answer that changed nothing
	// (see learnThread).
	learnt learntThread

	// methodFields looks up the method events' properties (takeMethod),
	// stackKeyFields the stack keys' (stackKey).
	methodFields   *fieldSet
	stackKeyFields *fieldSet
}

type pendingCount struct{ events, samples int }

// NewBuilder returns an empty builder. Of opts it uses PointerSize,
// AnnotationsOnly and NoImageIDs: the others say how [Build] reads and
// decodes (LateMethods, NoMethods, Observe), which a Builder's caller does
// itself.
func NewBuilder(opts *Options) *Builder {
	m := newModel()
	m.build = new(idCache)
	b := &Builder{
		m:          m,
		joinImages: map[uint64]*Image{},
		joinPDB:    map[uint64]PDB{},
		joinStamp:  map[uint64]uint32{},
		identities: map[imageIdentity]*imageIdentity{},
		stamps:     map[uint64]*imageIdentity{},
		pending:    map[uint32]*pendingCount{},
		gc:         map[*Process]*gcState{},
	}
	if opts != nil {
		b.m.ptrSize = opts.PointerSize
		b.annOnly = opts.AnnotationsOnly
		b.noImageIDs = opts.NoImageIDs
		b.noFrames = opts.NoStackFrames
	}
	b.skipSet = b.skipKinds()
	return b
}

// readAhead is the model pass's etl.ReaderOptions.ReadAhead with
// decode.Ahead: twice the default for two workers, within what
// decode.Ahead keeps values of (48 buffers) with the current buffers of
// a trace's streams (nine in net.4.5.2). It holds up to 16 more buffers
// than the default (1 MiB at 64 KiB each, and their values decoded
// ahead: stats' peak over net.4.5.2 rose from 33.0 to 35.3–35.8 MB). Over many inputs (16 files: ~144 streams)
// the buffers held at once pass decode.Ahead's default 48: Build raises
// it to the reader's streams plus these (decode.Ahead.SetLive). The
// dumps' model pass (AnnotationsOnly) keeps the reader's default: 32
// ahead there changed nothing of the JSON dump's wall (session 28).
const readAhead = 32

// handsMethod reports whether the model pass hands the decoding of the
// next .NET method event to the methods' goroutine (observePinned) rather
// than decode it itself. With late (Options.LateMethods) the pass that
// follows waits for the methods: their goroutine may take every decoding,
// and finish later. Otherwise, and with AnnotationsOnly (the dumps', whose
// pass resolves stacks from its first batches, so that it would wait for
// the methods at once), it takes it while it keeps up (see keepsUp): the
// reading goroutine, the model pass's critical path, and the methods'
// share the work of a burst of methods.
func (b *Builder) handsMethod(late bool) bool {
	return late && !b.annOnly || b.methods.keepsUp()
}

// Build reads files in time order, decoding with dec the events the model
// needs (nil: decode.New()), and returns the model. The error, if not
// nil, is the [etl.ErrorList] of the damaged buffers and records the
// reader met; the model holds what the rest of the files said.
func Build(files []*etl.File, dec *decode.Decoder, opts *Options) (*Model, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if dec == nil {
		dec = decode.New()
	}
	if o.PointerSize == 0 && len(files) > 0 {
		o.PointerSize = int(files[0].Header.PointerSize)
	}
	b := NewBuilder(&o)
	// With more than one core, the events of which the model reads only
	// ids are decoded on the reader's loaders (with one, that would only
	// walk each buffer twice). Not with AnnotationsOnly, which decodes
	// them only until pid 0 has a record (annotations.go): in net.4.5.2
	// from its third event, while the loaders had decoded its first 30
	// or so buffers ahead.
	var ad *decode.Ahead[payloadIDs]
	ropts := &etl.ReaderOptions{}
	if cores.Several() && !b.annOnly {
		ad = decode.NewAhead(dec, wantsIDs, extractIDs)
		ad.Peek = peekIDsFor
		ropts.Prepare = ad
		// The reading goroutine is the slower side where the events
		// are samples (net.4.5.2's first half: the loaders idle for
		// lack of buffers to load), the loaders where they are
		// header-only .NET rundown (its second half, one processor's
		// 200 buffers): the loaders go further ahead in the first,
		// and have less left to do in the second (readAhead).
		ropts.ReadAhead = readAhead
	}
	r := etl.NewReader(files, ropts)
	defer r.Close()
	if ad != nil {
		// The merge holds a buffer of each stream and its loads ahead:
		// the loaders decode ahead for as many (many inputs, many streams).
		ad.SetLive(r.Streams() + readAhead)
	}
	if cores.Several() && !o.NoMethods {
		q := newMethodQueue(dec, b.methodNames())
		b.methods = q
		defer func() { // on a panic too
			q.finish()
			if b.m.late == nil { // set below with LateMethods
				q.wait()
			}
		}()
	}
	var sp *samplePeeker // the samples read in place here
	for r.Next() {
		ev := r.Event()
		if o.Observe != nil {
			o.Observe(ev)
		}
		k := classify(ev)
		if b.skips(k) {
			b.begin(ev, k)
			continue
		}
		if k == kClrMethod && o.NoMethods || b.headerOnly(k) {
			b.observeHeader(ev, k)
			continue
		}
		var res *decode.Result
		if modelReads(ev, k) {
			if idsOnly(k) && !b.annOnly {
				if ad != nil {
					if x, ok := ad.Get(r, ev); ok {
						b.observeIDs(ev, k, x)
						continue
					}
				}
				// On one core (or for an event the loaders did not take),
				// a CPU sample's ids read in place: the decoding of net.4.5.2's
				// 79,528 samples was 12 % of stats' instructions there.
				if k == kSample {
					if sp == nil {
						sp = newSamplePeeker(dec)
					}
					if x, ok := sp.ids(ev); ok {
						b.observeIDs(ev, k, x)
						continue
					}
				}
			}
			if k == kClrMethod && b.methods != nil && b.handsMethod(o.LateMethods) {
				if pin, ok := dec.Pin(ev); ok {
					b.observePinned(ev, k, pin)
					continue
				}
			}
			res = dec.Decode(ev)
		}
		b.observe(ev, k, res)
	}
	if q := b.methods; q != nil {
		q.finish()
		if o.LateMethods {
			b.m.late = q
		} else {
			q.wait()
		}
	}
	return b.Model(), r.Errors().Err()
}

// NeedsDecode reports whether Observe reads the payload of ev; for other
// events a nil result will do.
func (b *Builder) NeedsDecode(ev *etl.Event) bool {
	k := classify(ev)
	return !b.skips(k) && !b.headerOnly(k) && modelReads(ev, k)
}

// modelReads reports whether the model reads the payload of an event of
// kind k: what the enricher reads (needsPayload) but the .NET runtime's
// stack walks, whose frames only the enricher takes (their ids are the
// header's: 14,983 decodings saved in net.4.5.2's model pass).
func modelReads(ev *etl.Event, k kind) bool { return k != kClrStack && needsPayload(ev, k) }

// Observe adds one event. res is its decoding (nil when the caller did not
// decode it; see NeedsDecode).
func (b *Builder) Observe(ev *etl.Event, res *decode.Result) {
	switch k := classify(ev); {
	case b.skips(k):
		b.begin(ev, k)
	case b.headerOnly(k):
		b.observeHeader(ev, k)
	default:
		b.observe(ev, k, res)
	}
}

func (b *Builder) observe(ev *etl.Event, k kind, res *decode.Result) {
	d := decoded(res)
	b.begin(ev, k)
	m := b.m
	owner := uint32(NoID) // of a stack-key definition (keyDefOwner)
	var pid, tid uint32
	named := false // pid and tid are idsOf's
	switch k {
	case kProcess:
		b.process(ev, d)
	case kThread:
		b.thread(ev, d)
	case kImage:
		b.image(ev, d)
	case kImageID, kImageRSDS:
		b.imageID(ev, k, d)
	case kStackKey:
		pid, tid = b.stackKey(ev, d)
		named = true
	case kKeyDef:
		owner = b.keyDef(ev, d)
	case kClrMethod:
		b.method(ev, d)
	case kVolume:
		if !b.annOnly {
			m.volumes.observe(d)
		}
	}
	// (A kind added above reads its payload: idsOnly must say false for
	// it, or the model pass decodes it ahead for its ids only.)
	switch {
	case k == kKeyDef:
		// attribute, with keyDef's frames: what namedIDs reads again.
		pid, tid = ev.ProcessID, ev.ThreadID
		if pid == NoID {
			pid = owner
		}
		pid = m.orThreadPID(pid, tid, ev.Time)
	case named: // attribute, with the ids read
		pid = m.orThreadPID(pid, tid, ev.Time)
	default:
		pid, tid = m.attribute(ev, k, d)
	}
	if !b.annOnly { // (AnnotationsOnly: no GC statistics, no counts)
		if k == kClrGC && pid != NoID {
			b.gcEvent(ev, m.processFor(pid, ev.Time), tid, d)
		}
		if k == kSample && IsCPUSample(ev, res) {
			m.CPUSamples++
		}
	}
	b.count(k, pid, tid, ev.Time)
}

// stackKey records the process of a stack key's reference (StackKeyKernel,
// StackKeyUser) decoded as d, and returns the ids idsOf does: the
// three properties read once each, through b's fieldSet (9,107 events
// of net.4.5.2).
func (b *Builder) stackKey(ev *etl.Event, d *tdh.Decoded) (pid, tid uint32) {
	f := b.stackKeyFields
	if f == nil {
		f = newFieldSet("StackKey", "StackProcess", "StackThread") // skKey, skProcess, skThread
		b.stackKeyFields = f
	}
	pid, tid = ev.ProcessID, ev.ThreadID
	sp, spOK := f.uint(d, skProcess)
	if key, ok := f.uint(d, skKey); ok && spOK {
		b.m.keyOwner[key] = uint32(sp)
	}
	if spOK {
		pid = uint32(sp)
	}
	if v, ok := f.uint(d, skThread); ok {
		tid = uint32(v)
	}
	return pid, tid
}

// The properties of a stack key's reference in Builder.stackKeyFields.
const (
	skKey = iota
	skProcess
	skThread
)

// observePinned adds a .NET method event (kClrMethod) that the method
// queue's goroutine decodes, with pin, the schemas Decode would decode it
// with now: what observe does of it, but the decoding. (The model reads
// nothing else of its payload: its ids are the header's.)
func (b *Builder) observePinned(ev *etl.Event, k kind, pin decode.Pinned) {
	b.begin(ev, k)
	b.methods.addPinned(b, ev, pin)
	b.countByHeader(ev, k)
}

// observeHeader adds what the header of ev tells the model, and not its
// payload: a .NET method event with Options.NoMethods, an image's
// identity with Options.NoImageIDs.
func (b *Builder) observeHeader(ev *etl.Event, k kind) {
	b.begin(ev, k)
	b.countByHeader(ev, k)
}

// countByHeader counts ev for the process and thread its header names
// (what attribute gives a .NET method event without its payload).
func (b *Builder) countByHeader(ev *etl.Event, k kind) {
	pid, tid := b.m.attribute(ev, k, nil)
	b.count(k, pid, tid, ev.Time)
}

// observeIDs adds an event of a kind of which the model reads only the
// process and thread ids the payload names (idsOnly): x, as extractIDs
// took them from its decoding (on the reader's loaders).
func (b *Builder) observeIDs(ev *etl.Event, k kind, x payloadIDs) {
	b.begin(ev, k)
	pid, tid := b.m.orThreadPID(x.pid, x.tid, ev.Time), x.tid
	if x.cpu { // (never with AnnotationsOnly: Build decodes nothing ahead then)
		b.m.CPUSamples++
	}
	b.count(k, pid, tid, ev.Time)
}

// begin takes what every event tells: the trace's extent, the pointer
// size, the thread's process its header names.
func (b *Builder) begin(ev *etl.Event, k kind) {
	m := b.m
	ft := ev.Time
	m.Events++
	if ft < m.start {
		m.start = ft
	}
	if ft > m.end {
		m.end = ft
	}
	if m.ptrSize == 0 && ev.Flags&etl.FlagClassicHeader != 0 && ev.Header != etl.HeaderMessage {
		m.ptrSize = ev.PointerSize()
	}
	if b.joined && ft != b.joinFT {
		// (Clearing an empty map is not free: ~20 instructions, three
		// times for nearly every event; so is asking each map its
		// length: joined tells.)
		b.joined = false
		if len(b.joinImages) > 0 {
			clear(b.joinImages)
		}
		if len(b.joinPDB) > 0 {
			clear(b.joinPDB)
		}
		if len(b.joinStamp) > 0 {
			clear(b.joinStamp)
		}
	}
	if ev.ProcessID != NoID && ev.ThreadID != NoID && ev.ThreadID != 0 && k != kThread {
		b.learnThread(ev.ThreadID, ev.ProcessID, ft)
	}
}

// count counts the event under its process (pid, tid: see attribute).
func (b *Builder) count(k kind, pid, tid uint32, ft int64) {
	m := b.m
	if b.annOnly {
		// Options.AnnotationsOnly: the record a full model gives pid
		// (annotations.go), not the counts.
		if pid != NoID {
			m.processFor(pid, ft)
		}
		return
	}
	if pid == NoID {
		if tid == NoID {
			m.Unattributed++
			return
		}
		pc := b.pending[tid]
		if pc == nil {
			pc = &pendingCount{}
			b.pending[tid] = pc
		}
		pc.events++
		if k == kSample {
			pc.samples++
		}
		return
	}
	p := m.processFor(pid, ft)
	p.Events++
	if k == kSample {
		p.CPUSamples++
	}
	if k >= kClrStack {
		p.CLR = true
	}
}

// Model finishes the model and returns it. Events of threads that no
// Thread event had introduced when they were observed are counted now,
// under the thread's process if the trace names it later.
func (b *Builder) Model() *Model {
	m := b.m
	if !b.done {
		b.done = true
		m.build = nil // lookups from any goroutine from now on
		for tid, pc := range b.pending {
			recs := m.byTID[tid]
			if len(recs) == 0 {
				m.Unattributed += pc.events
				continue
			}
			th := recs[len(recs)-1]
			p := th.Process
			p.Events += pc.events
			p.CPUSamples += pc.samples
		}
		clear(b.pending)
		for p, st := range b.gc {
			st.finish(p)
		}
		// Sorted now, so that lookups only read and can run concurrently.
		// The methods' index by id serves only the events that load and
		// unload them: it goes with the building (1 MB of the model of
		// net.4.5.2 ×16).
		m.kernel.sorted()
		for _, p := range m.procs {
			p.images.sorted()
			if b.methods == nil {
				p.methods.sorted()
				p.methodByID = nil
			}
		}
	}
	return m
}

// processFor returns the record of pid at ft, creating a placeholder when
// the trace has not named the process.
func (m *Model) processFor(pid uint32, ft int64) *Process {
	if p := m.processAt(pid, ft); p != nil {
		return p
	}
	return m.newProcess(pid, minTime)
}

func (m *Model) newProcess(pid uint32, start int64) *Process {
	p := &Process{PID: pid, Index: len(m.procs), start: start, end: maxTime}
	if pid == 0 {
		p.ImageFileName, p.Name = "Idle", "Idle"
	}
	m.procs = append(m.procs, p)
	m.byPID[pid] = append(m.byPID[pid], p)
	if m.build != nil {
		store(&m.build.procs, pid, m.byPID[pid])
	}
	return p
}

// process handles Process Start, End, DCStart, DCEnd and Defunct.
func (b *Builder) process(ev *etl.Event, d *tdh.Decoded) {
	m := b.m
	v, ok := getU(d, "ProcessId")
	if !ok {
		return
	}
	pid, ft := uint32(v), ev.Time
	recs := m.byPID[pid]
	var newest *Process
	if len(recs) > 0 {
		newest = recs[len(recs)-1]
	}
	var p *Process
	switch ev.Descriptor.Opcode {
	case opStart:
		// A placeholder made for events that came before the Start
		// becomes the process; otherwise the pid is new or reused.
		if newest != nil && newest.placeholder() {
			p = newest
		} else {
			p = m.newProcess(pid, ft)
		}
		p.start = ft
	case opDCStart:
		if newest != nil && newest.end == maxTime {
			p = newest
		} else {
			p = m.newProcess(pid, minTime)
		}
	case opEnd:
		if p = m.processAt(pid, ft); p == nil {
			p = m.newProcess(pid, minTime)
		}
		p.end = ft
		p.Exited = true
		if s, ok := d.Int("ExitStatus"); ok {
			p.ExitStatus = int32(s)
		}
	case opDCEnd, opDefunct:
		if p = m.processAt(pid, ft); p == nil {
			p = m.newProcess(pid, minTime)
		}
	default:
		return
	}
	p.known = true
	if ppid, ok := getU(d, "ParentId"); ok {
		p.ParentPID = uint32(ppid)
	}
	if name := getS(d, "ImageFileName"); name != "" && (p.ImageFileName == "" || ev.Descriptor.Opcode != opDefunct) {
		p.ImageFileName, p.Name = name, stem(name)
	}
	if cmd := getS(d, "CommandLine"); cmd != "" && (p.CommandLine == "" || ev.Descriptor.Opcode != opDCEnd) {
		p.CommandLine = cmd
	}
}

// thread handles Thread Start, End, DCStart and DCEnd.
func (b *Builder) thread(ev *etl.Event, d *tdh.Decoded) {
	m := b.m
	pv, ok1 := getU(d, "ProcessId")
	tv, ok2 := getU(d, "TThreadId")
	if !ok1 || !ok2 {
		return
	}
	pid, tid, ft := uint32(pv), uint32(tv), ev.Time
	name := getS(d, "ThreadName")
	var th *Thread
	switch ev.Descriptor.Opcode {
	case opStart, opDCStart:
		th = &Thread{TID: tid, PID: pid, start: ft, end: maxTime}
		if ev.Descriptor.Opcode == opDCStart {
			th.start = minTime
		}
		b.addThread(th, ft)
	case opEnd, opDCEnd:
		th = m.threadAt(tid, ft)
		if th == nil || th.PID != pid {
			// Never seen starting (circular buffer, lost events): the
			// record answers for the times before its end.
			th = &Thread{TID: tid, PID: pid, start: minTime, end: maxTime}
			b.addThread(th, ft)
		}
		if ev.Descriptor.Opcode == opEnd {
			th.end = ft
		}
	}
	if th != nil && name != "" {
		th.Name = name
	}
}

// learnThread notes that an event's header ties thread tid to process pid
// at ft. Traces without Thread events (no kernel rundown) then still give
// header-less events of the thread (CPU samples) a process. Thread events
// always take precedence.
func (b *Builder) learnThread(tid, pid uint32, ft int64) {
	if b.learnt.holds(tid, pid, ft) {
		return // (most events: the thread of the event before)
	}
	m := b.m
	recs := m.tidRecs(m.build, tid)
	i := threadIndex(recs, ft)
	var th *Thread
	switch {
	case i < 0:
		if len(recs) > 0 {
			b.learnt.set(tid, pid, recs, i)
			return // a Thread event starts it later
		}
		th = &Thread{TID: tid, PID: pid, start: minTime, end: maxTime, learned: true}
	case recs[i].PID != pid && recs[i].learned:
		th = &Thread{TID: tid, PID: pid, start: ft, end: maxTime, learned: true}
	default:
		b.learnt.set(tid, pid, recs, i)
		return
	}
	b.addThread(th, ft)
}

// threadIndex returns the index in recs of threadIn(recs, ft), -1 for
// none.
func threadIndex(recs []*Thread, ft int64) int {
	for i := len(recs) - 1; i >= 0; i-- {
		if recs[i].start <= ft {
			return i
		}
	}
	return -1
}

// learntThread is a learnThread that changed nothing: for thread tid
// and process pid, at the times from which threadIn finds the same
// record (or none) of tid, until a record of a thread is added
// (Builder.addThread forgets it). Its records' starts, processes and
// learned flags do not change once added.
type learntThread struct {
	ok          bool
	open        bool // no end: every time from on
	tid, pid    uint32
	from, until int64 // [from, until)
}

// holds reports whether learnThread(tid, pid, ft) is known to change
// nothing.
func (l *learntThread) holds(tid, pid uint32, ft int64) bool {
	return l.ok && tid == l.tid && pid == l.pid && ft >= l.from && (ft < l.until || l.open)
}

// set notes that learnThread changed nothing for tid and pid at a time
// at which threadIndex(recs, time) gave i: so it does at every time
// from recs[i]'s start (from the earliest time if i < 0) until the
// earliest start of a later record.
func (l *learntThread) set(tid, pid uint32, recs []*Thread, i int) {
	*l = learntThread{ok: true, open: true, tid: tid, pid: pid, from: minTime}
	if i >= 0 {
		l.from = recs[i].start
	}
	for _, r := range recs[i+1:] {
		if l.open || r.start < l.until {
			l.open, l.until = false, r.start
		}
	}
}

// addThread adds th to the model, and forgets learnThread's memo.
func (b *Builder) addThread(th *Thread, ft int64) {
	b.learnt.ok = false
	b.m.addThread(th, ft)
}

func (m *Model) addThread(th *Thread, ft int64) {
	p := m.processFor(th.PID, ft)
	th.Process = p
	p.threads = append(p.threads, th)
	m.byTID[th.TID] = append(m.byTID[th.TID], th)
	if m.build != nil {
		store(&m.build.threads, th.TID, m.byTID[th.TID])
	}
}

// image handles Image Load, UnLoad, DCStart and DCEnd.
func (b *Builder) image(ev *etl.Event, d *tdh.Decoded) {
	m := b.m
	base, ok := getU(d, "ImageBase", "BaseAddress")
	if !ok {
		return
	}
	size, _ := getU(d, "ImageSize", "ModuleSize")
	pid := ev.ProcessID
	if v, ok := getU(d, "ProcessId"); ok {
		pid = uint32(v)
	}
	ft, op := ev.Time, ev.Descriptor.Opcode
	kernel := m.IsKernelAddress(base)
	var list *imageList
	var p *Process
	if kernel {
		list = &m.kernel
	} else {
		if pid == NoID {
			return
		}
		p = m.processFor(pid, ft)
		list = &p.images
	}
	// The live record at this base, if any, for DCEnd and UnLoad, and for
	// a DCStart or Load of the same image again rather than a second
	// record: a rundown again (the next file of a sequence, another
	// logger of a merge), the same load in two inputs.
	var live *Image
	if op == opDCEnd || op == opEnd || op == opDCStart || op == opLoad {
		for i := len(list.list) - 1; i >= 0; i-- {
			// An UnLoad again at the same time (the same unload in
			// another input) finds the record the first one ended.
			if im := list.list[i]; im.Base == base && (im.unload == maxTime || op == opEnd && im.unload == ft) && (!kernel || im.PID == pid) {
				live = im
				break
			}
		}
		switch {
		case live == nil:
		case op == opDCStart && (live.Size != size || live.load != minTime):
			live = nil
		case op == opLoad && (live.Size != size || live.load != ft):
			live = nil
		}
	}
	im := live
	if im == nil {
		im = &Image{Base: base, Size: size, PID: pid, load: minTime, unload: maxTime}
		if op == opLoad {
			im.load = ft
		}
		list.add(im)
	}
	if op == opEnd {
		im.unload = ft
	}
	path := b.text(d, "FileName")
	if path == "" {
		path = b.text(d, "ImageFileName")
	}
	if path != "" {
		im.Path = path
		if p != nil && p.ImageFileName == "" && op == opDCEnd && equalFold(ext(path), ".exe") {
			// Circular traces lose the Process events of long-running
			// processes; the rundown of their .exe names them.
			p.ImageFileName, p.Name = baseName(path), stem(path)
		}
	}
	id := im.identity()
	if v, ok := getU(d, "TimeDateStamp"); ok && v != 0 {
		id.stamp = uint32(v)
	}
	if v, ok := getU(d, "ImageChecksum"); ok {
		id.checksum = uint32(v)
	}
	b.join(ft)
	b.joinImages[base] = im
	if pdb, ok := b.joinPDB[base]; ok {
		id.pdb = pdb
	}
	if s, ok := b.joinStamp[base]; ok && id.stamp == 0 {
		id.stamp = s
	}
	b.identify(im, id)
}

// identify gives im the identity id, kept once for all the images that
// have it.
func (b *Builder) identify(im *Image, id imageIdentity) {
	switch {
	case id == (imageIdentity{}):
		im.id = nil
	case im.id != nil && *im.id == id:
	case id.pdb == (PDB{}):
		// Most images: a key of two integers, a fast map's (1 % fewer
		// of stats' instructions on the ×64 kernel trace than one map).
		im.id = intern(b.stamps, uint64(id.stamp)<<32|uint64(id.checksum), id)
	default:
		im.id = intern(b.identities, id, id)
	}
}

// intern returns m's identity under k, made from id if m has none.
func intern[K comparable](m map[K]*imageIdentity, k K, id imageIdentity) *imageIdentity {
	p := m[k]
	if p == nil {
		p = new(imageIdentity) // not &id: that would put id on the heap at every call
		*p = id
		m[k] = p
	}
	return p
}

// join notes that a join map gets an entry at ft: begin clears them
// at the next event of another time.
func (b *Builder) join(ft int64) {
	b.joinFT, b.joined = ft, true
}

func ext(p string) string {
	b := baseName(p)
	for i := len(b) - 1; i > 0; i-- {
		if b[i] == '.' {
			return b[i:]
		}
	}
	return ""
}

// imageID joins KernelTraceControl's ImageID (time stamp) and DbgID_RSDS
// (PDB identity) to the Image event of the same time.
func (b *Builder) imageID(ev *etl.Event, k kind, d *tdh.Decoded) {
	base, ok := getU(d, "ImageBase")
	if !ok {
		return
	}
	im := b.joinImages[base]
	if k == kImageRSDS {
		pdb := PDB{Name: getS(d, "PdbFileName", "PDBFileName")}
		pdb.GUID, _ = d.GUID("GuidSig")
		if v, ok := getU(d, "Age"); ok {
			pdb.Age = uint32(v)
		}
		if im != nil {
			id := im.identity()
			id.pdb = pdb
			b.identify(im, id)
		} else {
			b.join(ev.Time)
			b.joinPDB[base] = pdb
		}
		return
	}
	if v, ok := getU(d, "TimeDateStamp"); ok && v != 0 {
		if id := im.identity(); im != nil && id.stamp == 0 {
			id.stamp = uint32(v)
			b.identify(im, id)
		} else if im == nil {
			b.join(ev.Time)
			b.joinStamp[base] = uint32(v)
		}
	}
}

// keyDef records a stack-key definition (KeyDelete, KeyRundown) and
// returns the process it belongs to when its header names none
// (keyDefOwner's).
func (b *Builder) keyDef(ev *etl.Event, d *tdh.Decoded) (owner uint32) {
	m := b.m
	key, ok := getU(d, "Key")
	if !ok {
		return NoID
	}
	if b.noFrames {
		last, ok := lastPointerAfter(d, "Key")
		if !ok {
			return NoID
		}
		m.StackKeys++
		return m.keyDefOwnerOf(key, last)
	}
	frames := pointersAfter(d, "Key", b.scratch[:0])
	b.scratch = frames
	if len(frames) == 0 {
		return NoID
	}
	owner = m.keyDefOwnerOf(key, frames[len(frames)-1])
	m.StackKeys++
	kernel := m.IsKernelAddress(frames[len(frames)-1])
	defs := m.keys[key]
	if n := len(defs); n > 0 {
		// The same frames again in the same table, later (each rundown
		// of a long trace or of the next file): one definition that
		// lasts until then answers every keyFrames the two would.
		if last := &defs[n-1]; last.kernel == kernel && ev.Time >= last.ft && slices.Equal(m.arena[last.off:last.off+last.n], frames) {
			last.ft = ev.Time
			return owner
		}
	}
	m.keys[key] = append(defs, keyDef{ft: ev.Time, off: b.storeFrames(frames), n: int32(len(frames)), kernel: kernel})
	return owner
}

// storeFrames returns the offset of frames in the model's arena, adding
// them unless an equal list is there already.
func (b *Builder) storeFrames(frames []uint64) int32 {
	m := b.m
	h := uint64(len(frames))
	for _, f := range frames {
		h = (h^f)*0x100000001b3 + 0x9e3779b97f4a7c15
	}
	for _, off := range b.frameSets[h] {
		if end := int(off) + len(frames); end <= len(m.arena) && slices.Equal(m.arena[off:end], frames) {
			return off
		}
	}
	if b.frameSets == nil {
		b.frameSets = map[uint64][]int32{}
	}
	off := int32(len(m.arena))
	m.arena = append(m.arena, frames...)
	b.frameSets[h] = append(b.frameSets[h], off)
	return off
}

// method records a .NET method from the runtime's verbose method events:
// at once, or on the method queue's goroutine.
func (b *Builder) method(ev *etl.Event, d *tdh.Decoded) {
	if b.methods != nil {
		b.methods.add(b, ev, d)
		return
	}
	if r, ok := b.takeMethod(ev, d); ok {
		n := b.methodNames()
		addMethod(&r, func(i int) string {
			if i >= n {
				return ""
			}
			return b.text(d, methodNames[i])
		}, &b.methodSlab)
	}
}

// text returns the string property called name, interned: names of
// methods, types and files repeat across events and processes.
func (b *Builder) text(d *tdh.Decoded, name string) string { return b.names.internValue(d.Get(name)) }

// stringOf returns the bytes of the string value v that a lookup found
// (ok) and whether they are UTF-16; found is false when v is not a string.
func stringOf(v *tdh.Value, ok bool) (data []byte, wide, found bool) {
	if !ok || v.Prop == nil || v.Kind != tdh.Scalar || !v.Prop.InType.IsString() {
		return nil, false, false
	}
	return v.Data, v.Prop.InType.IsWide(), true
}

// placeholder reports whether p was made for events naming its pid, with
// no Process event yet.
func (p *Process) placeholder() bool { return !p.known }
