package analysis

import (
	"hash/maphash"
	"sync"

	"github.com/etwkit/etw/catalog"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/panicerr"
	"github.com/etwkit/etw/internal/prefault"
	"github.com/etwkit/etw/tdh"
)

// The .NET method events are most of the model pass's work after
// reading and decoding (their decoding, their names' conversion and
// interning, the methods' maps): the model pass reads each method event's
// fields into a methodRec (takeMethod), and adds the method to its
// process (addMethod) at once, or with more than one processor on a
// goroutine of its own (methodQueue), which only adds methods: the model
// pass reads nothing of them. With Options.LateMethods (the pass that
// follows waits for the methods, while it reads on) the reading goroutine
// only looks up the event's schemas (decode.Decoder.Pin: what decoding it
// in turn would use, whatever EventSource manifests register meanwhile)
// and queues a copy of its payload, which the queue's goroutine decodes
// (observePinned); otherwise, and for the events it cannot pin, it
// decodes the event and queues its fields and a copy of its names' bytes
// (add).

// methodRec is what the model takes of a .NET method event. Its names,
// queued, are in its methodBatch's text. A record queued pinned (see
// observePinned) holds the event's payload there instead, which the
// queue's goroutine decodes (with pin) into the record.
type methodRec struct {
	p            *Process
	id, start    uint64
	ft           int64
	load, unload bool
	size         uint32
	moduleID     uint64
	token, flags uint32
	names        [3]textRef // namespace, name, signature

	pinned  bool
	pin     decode.Pinned
	payload textRef
}

// textRef is a string property's bytes in a methodBatch's text.
type textRef struct {
	off, n int32
	wide   bool
}

type methodBatch struct {
	recs []methodRec
	text []byte
}

// reset empties b. The records it keeps point to processes, which the
// model keeps alive anyway.
func (b *methodBatch) reset() { b.recs, b.text = b.recs[:0], b.text[:0] }

// methodNames are the properties of a method's names, in the order of
// methodRec.names.
var methodNames = [3]string{"MethodNamespace", "MethodName", "MethodSignature"}

// takeMethod returns the record of a .NET method event decoded as d, but
// its names, and whether there is one.
func (b *Builder) takeMethod(ev *etl.Event, d *tdh.Decoded) (methodRec, bool) {
	if d == nil || ev.ProcessID == NoID {
		return methodRec{}, false
	}
	r := methodHeader(ev)
	if b.methodFields == nil {
		b.methodFields = newMethodFields()
	}
	if !r.fields(d, b.methodFields) {
		return methodRec{}, false
	}
	r.p = b.m.processFor(ev.ProcessID, ev.Time)
	return r, true
}

// methodHeader returns the record of a .NET method event with what its
// header says.
func methodHeader(ev *etl.Event) methodRec {
	id16 := ev.Descriptor.ID
	return methodRec{ft: ev.Time,
		load:   ev.ProviderID == catalog.DotNETRuntimeGUID && id16 == catalog.DotNETMethodLoadVerbose,
		unload: ev.ProviderID == catalog.DotNETRuntimeGUID && id16 == catalog.DotNETMethodUnloadVerbose,
	}
}

// The properties of a method event the model reads, in a fieldSet
// (newMethodFields): its names (methodNames) first, then fields'.
const (
	mfStart = len(methodNames) + iota
	mfID
	mfSize
	mfModule
	mfToken
	mfFlags
)

// newMethodFields returns the fieldSet of the method events' properties
// (mfStart, …, and methodNames' by their index).
func newMethodFields() *fieldSet {
	return newFieldSet(methodNames[0], methodNames[1], methodNames[2],
		"MethodStartAddress", "MethodID", "MethodSize", "ModuleID", "MethodToken", "MethodFlags")
}

// fields sets r's fields from the decoding d of its event, but its
// names, and reports whether d is a method's (it has the start address).
// f is newMethodFields', of the calling goroutine.
func (r *methodRec) fields(d *tdh.Decoded, f *fieldSet) bool {
	start, ok := f.uint(d, mfStart)
	if !ok {
		return false
	}
	r.start = start
	r.id, _ = f.uint(d, mfID)
	if v, ok := f.uint(d, mfSize); ok {
		r.size = uint32(v)
	}
	r.moduleID, _ = f.uint(d, mfModule)
	if v, ok := f.uint(d, mfToken); ok {
		r.token = uint32(v)
	}
	if v, ok := f.uint(d, mfFlags); ok {
		r.flags = uint32(v)
	}
	return true
}

// textOf copies the string property of methodNames[i] into b's text
// ("" when there is none); f is newMethodFields'.
func (b *methodBatch) textOf(d *tdh.Decoded, f *fieldSet, i int) textRef {
	data, wide, ok := stringOf(f.get(d, i))
	if !ok {
		return textRef{}
	}
	r := b.copyText(data)
	r.wide = wide
	return r
}

// interner interns the strings of names (of methods, types and files),
// which repeat across events and processes. It is a table of its own
// rather than a map[string]string: open addressing over the strings'
// hashes, which growing moves without hashing a string again (the map
// grew by rehashing its keys), and a lookup that compares one hash and
// then one string. The .NET methods' goroutine interns two or three
// names per method (the dumps' model pass of net.4.5.2: 37,576 lookups
// in all, 12,394 strings).
type interner struct {
	slots []internSlot // len a power of two; nil until the first string
	n     int          // strings held
	sbuf  []byte
	seed  maphash.Seed
}

// internSlot is a slot of interner's table: h is 0 when it is free (a
// string's hash has bit 0 set).
type internSlot struct {
	h uint64
	s string
}

// internMinSlots is the table's first size.
const internMinSlots = 256

// intern returns the string of data, UTF-16 if wide.
func (t *interner) intern(data []byte, wide bool) string {
	t.sbuf = tdh.AppendString(t.sbuf[:0], data, wide)
	if t.slots == nil {
		t.seed = maphash.MakeSeed()
		t.slots = prefault.Make[internSlot](internMinSlots) // probed before written
	}
	h := maphash.Bytes(t.seed, t.sbuf) | 1
	mask := uint64(len(t.slots) - 1)
	i := h & mask
	for {
		sl := &t.slots[i]
		if sl.h == 0 {
			break
		}
		if sl.h == h && sl.s == string(t.sbuf) {
			return sl.s
		}
		i = (i + 1) & mask
	}
	s := string(t.sbuf)
	t.slots[i] = internSlot{h, s}
	t.n++
	if t.n*4 > len(t.slots)*3 {
		t.grow()
	}
	return s
}

// grow doubles the table, placing each string by the hash it keeps.
func (t *interner) grow() {
	old := t.slots
	t.slots = prefault.Make[internSlot](2 * len(old)) // probed before written
	mask := uint64(len(t.slots) - 1)
	for _, sl := range old {
		if sl.h == 0 {
			continue
		}
		i := sl.h & mask
		for t.slots[i].h != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = sl
	}
}

// internValue returns the string value v that a lookup found (ok),
// interned; "" when there is none.
func (t *interner) internValue(v *tdh.Value, ok bool) string {
	data, wide, found := stringOf(v, ok)
	if !found {
		return ""
	}
	return t.intern(data, wide)
}

// copyText copies data into b's text.
func (b *methodBatch) copyText(data []byte) textRef {
	off := len(b.text)
	b.text = append(b.text, data...)
	return textRef{off: int32(off), n: int32(len(data))}
}

// textString returns the string r names in b's text, interned.
func (b *methodBatch) textString(r textRef, names *interner) string {
	if r.n == 0 {
		return ""
	}
	return names.intern(b.text[r.off:r.off+r.n], r.wide)
}

// addMethod records the method of r in its process; name(i) returns its
// name i (of methodNames), interned, called only for a method not known
// yet. New methods come from slab.
func addMethod(r *methodRec, name func(i int) string, slab *methodSlab) {
	p := r.p
	if p.methodByID == nil {
		p.methodByID = &methodIndex{}
	}
	x := p.methodByID
	mt, held := x.get(r.id, r.start)
	if mt == nil {
		mt = slab.take()
		*mt = Method{ID: r.id, Start: r.start, load: minTime, unload: maxTime,
			Size: r.size, ModuleID: r.moduleID, Token: r.token, Flags: r.flags}
		if r.load {
			mt.load = r.ft
		}
		mt.Namespace, mt.Name, mt.Signature = name(0), name(1), name(2)
		x.put(mt, held)
		p.methods.add(mt)
	}
	if r.unload {
		mt.unload = r.ft
		x.remove(mt) // a later load at this address is another method
	}
}

// methodIndex finds a process's methods by id and start address while
// the model is built. Nearly every method has a start address of its
// own, so the index is by address (a map of 64-bit keys), and a method
// whose address another holds goes to a second map by id and address.
// One map of both (a 16-byte key) hashed each key with the generic
// hasher: with the methods allocated one by one (methodSlab), 3.5 ms of
// the methods' goroutine's 14.3 in the dumps' model pass of net.4.5.2
// (16,990 methods; perf, BenchmarkBuildNetAnnotations), 2.3 ms since.
type methodIndex struct {
	byStart map[uint64]*Method
	others  map[methodKey]*Method // nil until needed
}

type methodKey struct{ id, start uint64 }

// get returns the method of id at start, or nil, and whether another
// method holds start in the map by address (put's held).
func (x *methodIndex) get(id, start uint64) (m *Method, held bool) {
	m = x.byStart[start]
	if m != nil && m.ID == id {
		return m, true
	}
	held = m != nil
	if x.others != nil {
		return x.others[methodKey{id, start}], held
	}
	return nil, held
}

// put adds m, which get did not find; held is what get said of m's
// address (so that the map by address is not looked up again).
func (x *methodIndex) put(m *Method, held bool) {
	if !held {
		if x.byStart == nil {
			x.byStart = map[uint64]*Method{}
		}
		x.byStart[m.Start] = m
		return
	}
	if x.others == nil {
		x.others = map[methodKey]*Method{}
	}
	x.others[methodKey{m.ID, m.Start}] = m
}

// remove takes m out of the index.
func (x *methodIndex) remove(m *Method) {
	if x.byStart[m.Start] == m {
		delete(x.byStart, m.Start)
		return
	}
	delete(x.others, methodKey{m.ID, m.Start})
}

// methodSlab hands out Methods from arrays of methodSlabSize, one
// allocation for many: a process's methods live as long as the model.
type methodSlab struct{ free []Method }

const methodSlabSize = 256

// take returns a zero Method of the slab.
func (s *methodSlab) take() *Method {
	if len(s.free) == 0 {
		s.free = prefault.Make[Method](methodSlabSize) // scanned before written
	}
	m := &s.free[0]
	s.free = s.free[1:]
	return m
}

// Batches of methodBatchEvents method events, up to methodBatches of
// them in flight. The method events come in bursts (the JIT's at a
// process's start, the rundown's at the end of the trace, 16,990
// methods in net.4.5.2) in which adding the methods is slower than
// reading them: with 4 batches in flight the model pass waited for the
// methods' goroutine most of each burst while the loaders, their
// read-ahead full, had nothing to do. 64 batches hold 16,384 method
// events, nearly all of such a rundown while the goroutine adds the
// first (about 90 KB a batch with its names' room: ~6 MB at most);
// batches are allocated as the backlog grows, not ahead.
const (
	methodBatchEvents = 256
	methodBatches     = 64
)

// methodsDoneHook, if set (by tests), is called by the methods'
// goroutine once it has added them all, before it sorts them.
var methodsDoneHook func()

// methodQueue adds methods on a goroutine of its own, in the order of
// their events.
type methodQueue struct {
	full, free chan *methodBatch
	cur        *methodBatch
	batches    int // allocated
	done       chan struct{}
	finished   bool
	waited     sync.Once
	err        error // a panic of the goroutine
	names      int   // of methodNames, how many are kept (Builder.methodNames)
}

func newMethodQueue(dec *decode.Decoder, names int) *methodQueue {
	q := &methodQueue{full: make(chan *methodBatch, methodBatches), free: make(chan *methodBatch, methodBatches), done: make(chan struct{}), names: names}
	q.cur = q.newBatch()
	d := dec.Clone() // decodes the records queued pinned
	go func() {
		defer close(q.done)
		defer func() {
			for mb := range q.full { // after a panic: let the model pass end
				mb.reset()
				q.free <- mb
			}
		}()
		defer panicerr.Recover(&q.err)
		var names interner
		var slab methodSlab
		var procs []*Process // those with methods
		fields := newMethodFields()
		for mb := range q.full {
			for i := range mb.recs {
				r := &mb.recs[i]
				name := func(i int) string { return mb.textString(r.names[i], &names) }
				if r.pinned {
					dd := decoded(d.DecodePinned(mb.text[r.payload.off:r.payload.off+r.payload.n], r.pin))
					if dd == nil || !r.fields(dd, fields) {
						continue // not a method: takeMethod would not have queued it
					}
					name = func(i int) string {
						if i >= q.names {
							return ""
						}
						return names.internValue(fields.get(dd, i)) // Builder.text's, by index
					}
				}
				if r.p.methodByID == nil { // its first method: addMethod makes the index
					procs = append(procs, r.p)
				}
				addMethod(r, name, &slab)
			}
			mb.reset()
			q.free <- mb
		}
		// No more batches come (finish closed full): they go, rather
		// than live on with the model, which keeps the queue with
		// LateMethods (Model.WaitMethods).
		for len(q.free) > 0 {
			<-q.free
		}
		if methodsDoneHook != nil {
			methodsDoneHook()
		}
		// What Builder.Model does of the methods when it adds them.
		for _, p := range procs {
			p.methods.sorted()
			p.methodByID = nil
		}
	}()
	return q
}

// add queues the method of a .NET method event decoded as d, if any,
// with a copy of its names' bytes.
func (q *methodQueue) add(b *Builder, ev *etl.Event, d *tdh.Decoded) {
	r, ok := b.takeMethod(ev, d)
	if !ok {
		return
	}
	for i := range q.names {
		r.names[i] = q.cur.textOf(d, b.methodFields, i)
	}
	q.push(&r)
}

// addPinned queues a .NET method event not decoded, with a copy of its
// payload, which the queue's goroutine decodes with pin (the schemas
// Decode would decode it with now: see Builder.observePinned).
func (q *methodQueue) addPinned(b *Builder, ev *etl.Event, pin decode.Pinned) {
	if ev.ProcessID == NoID {
		return
	}
	r := methodHeader(ev)
	// takeMethod's lookup, made even if the event turns out not to be a
	// method's: observePinned's count makes the same one.
	r.p = b.m.processFor(ev.ProcessID, ev.Time)
	r.pinned, r.pin = true, pin
	r.payload = q.cur.copyText(ev.UserData)
	q.push(&r)
}

// push adds r to the current batch, and queues the batch once full.
func (q *methodQueue) push(r *methodRec) {
	q.cur.recs = append(q.cur.recs, *r)
	if len(q.cur.recs) == methodBatchEvents {
		q.full <- q.cur
		q.cur = takeOrGrow(q.free, func() (*methodBatch, bool) {
			if q.batches < methodBatches {
				return q.newBatch(), true
			}
			return nil, false
		})
	}
}

// newBatch allocates a batch, its text sized for the names of most
// methods (~250 bytes of UTF-16 each), which saves growing it in steps:
// new batches are allocated in the bursts.
func (q *methodQueue) newBatch() *methodBatch {
	q.batches++
	return &methodBatch{recs: make([]methodRec, 0, methodBatchEvents), text: make([]byte, 0, methodBatchEvents*256)}
}

// finish queues the last batch and tells the goroutine that no more
// come: it ends once it has added them (and sorted each process's
// methods, as Builder.Model does without a queue). It does not wait:
// every batch fits in full. Safe to call more than once.
func (q *methodQueue) finish() {
	if q.finished {
		return
	}
	q.finished = true
	q.full <- q.cur
	close(q.full)
}

// wait waits until the goroutine has ended (finish must have been
// called), and raises a panic of the goroutine again. Safe to call more
// than once, from any goroutine.
func (q *methodQueue) wait() {
	q.waited.Do(func() { <-q.done })
	if q.err != nil {
		panic(q.err)
	}
}

// keepsUp reports whether the queue's goroutine keeps up with the
// methods queued: at most one full batch waits for it. The model pass
// then hands it the decoding of the next method event (Builder.
// observePinned) rather than decode it itself: in a burst of methods
// (net.4.5.2's rundown: 16,700 method events in its last fifth) the
// reading goroutine parses and decodes each event (~2,200 instructions)
// while the queue's adds it (~1,200), and taking a decoding makes the
// queue's the slower one; handed over while it keeps up, the work of
// the burst is shared, and at its end the model pass waits for at most
// two batches.
func (q *methodQueue) keepsUp() bool { return len(q.full) <= 1 }

// pending reports whether methods are still being added (or queued).
func (q *methodQueue) pending() bool {
	select {
	case <-q.done:
		return false
	default:
		return true
	}
}
