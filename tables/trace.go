package tables

import (
	"context"
	"time"

	"github.com/etwkit/etw/analysis"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/netcap"
)

// TraceStats says what [Writer.Add] read of one trace.
type TraceStats struct {
	// Trace is the trace's id (the trace column).
	Trace int32
	// Events is the number of events read; Samples the CPU samples
	// written; Packets the packets.
	Events, Samples, Packets int64
	// Errors are the damaged buffers and records the passes met (each
	// an *etl.FormatError): what they held is missing from the tables.
	Errors []error
	// Aggregates are the trace's aggregates (with Options.Aggregates).
	Aggregates *Aggregates
}

// traceState is what Add keeps of one trace while writing it.
type traceState struct {
	w     *Writer
	id    int32
	m     *analysis.Model
	files []*etl.File
	iv    analysis.SampleIntervals
	pk    *packetTable
	agg   *aggState // with Options.Aggregates
	late  lateRows  // images and methods first named by the second pass

	upids   map[*analysis.Process]int64
	utids   map[*analysis.Thread]int64
	images  map[*analysis.Image]int64
	methods map[*analysis.Method]int64
	frames  map[frameKey]int64
	tree    stackTree         // the stacks' prefix tree
	whole   stackCache        // whole stacks → their node
	fileIDs map[uint64]int64  // file object → file id
	names   map[uint64]string // file object → last name the trace gave it

	// sampleSeqs are the CPU samples read and not yet written (the
	// reading goroutine adds, the writing one takes); samples counts
	// those written.
	sampleSeqs sampleQueue
	samples    int64
	read       int64 // events the reading goroutine observed

	lastThread *analysis.Thread // utid's last answer
	lastUtid   int64
}

// frameKey is a distinct frame: its image or method and its address.
type frameKey struct {
	im   *analysis.Image
	meth *analysis.Method
	addr uint64
}

// Add writes the tables of one trace: files are its .etl files (several
// files of one trace merge, as the dump merges them), dec decodes its
// events (nil: decode.New()). It reads the files twice: once to build
// the analysis model (registering the schemas the trace carries with
// dec), once for the events, samples, stacks, disk I/O and packets.
// name is the traces table's name of the trace. Damage in the files is
// in the stats; the error is a failure to write.
func (w *Writer) Add(name string, files []*etl.File, dec *decode.Decoder) (*TraceStats, error) {
	if dec == nil {
		dec = decode.New()
	}
	w.trace++
	t := &traceState{
		w: w, id: w.trace, files: files,
		upids: map[*analysis.Process]int64{}, utids: map[*analysis.Thread]int64{},
		images: map[*analysis.Image]int64{}, methods: map[*analysis.Method]int64{},
		frames: map[frameKey]int64{}, tree: newStackTree(w.stack, w.frame),
		fileIDs: map[uint64]int64{}, names: map[uint64]string{},
	}
	st := &TraceStats{Trace: t.id}
	if w.opts.Aggregates {
		t.agg = newAggState()
	}
	pk := newPacketTable(t)
	t.pk = pk
	ps := dec.NewPrescanner()
	m, err := analysis.Build(files, dec, &analysis.Options{Observe: func(ev *etl.Event) {
		ps.Observe(ev)
		switch {
		case t.iv.NeedsDecode(ev):
			t.iv.Observe(ev, dec.Decode(ev))
		case netcap.IsRundown(ev): // pktmon's component list, logged after the packets
			pk.learn(ev, dec.Decode(ev))
		case t.agg != nil && isComputer(ev):
			t.agg.observeComputer(dec.Decode(ev))
		}
	}})
	st.Errors = appendJoined(st.Errors, err)
	st.Errors = appendJoined(st.Errors, ps.Finish())
	if w.opts.Symbolizer != nil {
		m.SetSymbolizer(w.opts.Symbolizer)
	}
	t.m = m
	// The model's rows are written beside the second pass, which needs
	// only their ids; a failure to write them stops the pass.
	mr := t.assignModel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	modelDone := make(chan error, 1)
	go func() {
		err := t.writeModel(mr)
		if err != nil {
			cancel()
		}
		modelDone <- err
	}()
	rs, err := t.run(ctx, dec)
	if merr := <-modelDone; merr != nil {
		err = merr
	}
	st.Events, st.Samples = int64(rs.Read), t.samples
	st.Errors = append(st.Errors, rs.Errors...)
	st.Packets = pk.close()
	if err == nil {
		err = t.writeLate()
	}
	if err != nil {
		return st, err
	}
	if err := t.writeFiles(); err != nil {
		return st, err
	}
	if t.agg != nil {
		st.Aggregates = t.agg.finish(t, name, st.Events)
	}
	first, last := ns(m.Start()), ns(m.End())
	if m.Events == 0 {
		first, last = 0, 0
	}
	return st, w.traces.add(&TraceRow{Trace: t.id, Name: name, Files: int32(len(files)),
		Start: first, End: last, Events: st.Events, IntervalFrom: t.iv.From()})
}

// appendJoined appends err to errs, or the errors it joins.
func appendJoined(errs []error, err error) []error {
	if err == nil {
		return errs
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return append(errs, j.Unwrap()...)
	}
	return append(errs, err)
}

// ns returns t in nanoseconds since 1970 (0 for the zero time).
func ns(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// sample writes one CPU sample, and the frames and stack nodes it is the
// first to use.
func (t *traceState) sample(cpu int32, utid, stack int64, a *analysis.Annotation) error {
	at := a.Time()
	t.samples++
	w := float64(t.iv.At(at)) / float64(time.Millisecond)
	if t.agg != nil {
		t.agg.sample(a, w)
	}
	return t.w.samples.add(&SampleRow{Trace: t.id, TS: at.UnixNano(), CPU: cpu, Utid: utid, StackID: stack, WeightMS: w})
}

// utid returns the id of the thread of annotation a (0 when unknown).
func (t *traceState) utid(a *analysis.Annotation) int64 {
	th := t.m.Thread(a.TID, a.Time())
	if th == nil {
		return 0
	}
	if th != t.lastThread { // consecutive events are often one thread's
		t.lastThread, t.lastUtid = th, t.utids[th]
	}
	return t.lastUtid
}

// stackID returns the id of the prefix tree's node of stack (innermost
// frame first), writing the frames and nodes it is the first to use (0
// for no stack).
func (t *traceState) stackID(stack []analysis.Frame) (int64, error) {
	if len(stack) == 0 {
		return 0, nil
	}
	id, h, ok := t.whole.get(&t.tree, stack)
	if ok {
		return id, nil
	}
	id, err := t.walkStack(stack)
	if err == nil {
		t.whole.put(h, stack, id)
	}
	return id, err
}

// walkStack returns the id of the prefix tree's node of stack, from the
// root down to the first node that is new, two lookups a frame (its id,
// then its node under the parent); the nodes below a new one are new
// too: they are added without a lookup. Only the stacks the whole-stack
// cache misses come here.
func (t *traceState) walkStack(stack []analysis.Frame) (int64, error) {
	var parent int64
	fresh := false // parent is a node just added
	for i := len(stack) - 1; i >= 0; i-- {
		f := &stack[i]
		if !fresh {
			if fid, ok := t.frames[frameKey{f.Image, f.Method, f.Address}]; ok {
				if id, ok := t.tree.child(parent, fid); ok {
					parent = id
					continue
				}
			}
			fresh = true
		}
		fid, err := t.frameID(f)
		if err != nil {
			return 0, err
		}
		t.w.stack++
		id := t.w.stack
		if err := t.tree.add(id, parent, fid); err != nil {
			return 0, err
		}
		depth := int32(len(stack) - 1 - i)
		if err := t.w.stacks.add(&StackRow{Trace: t.id, StackID: id, ParentID: parent, FrameID: fid, Depth: depth}); err != nil {
			return 0, err
		}
		parent = id
	}
	return parent, nil
}

// frameID returns the id of frame f, writing its row when it is new.
func (t *traceState) frameID(f *analysis.Frame) (int64, error) {
	k := frameKey{f.Image, f.Method, f.Address}
	id, isNew := assign(t.frames, k, &t.w.frame)
	if !isNew {
		return id, nil
	}
	if err := t.tree.addFrame(id, k); err != nil {
		return 0, err
	}
	r := FrameRow{Trace: t.id, FrameID: id, Address: f.Address, Name: f.Name()}
	if f.Image != nil {
		r.RVA = f.Offset
		r.ImageID = t.imageID(f.Image)
	}
	if f.Method != nil {
		r.MethodID = t.methodID(f.Method)
	}
	if f.HasFunction() {
		r.Function = string(f.AppendFunction(nil))
	}
	if f.Method == nil && f.Symbol != nil {
		r.File, r.Line = f.Symbol.File, int32(f.Symbol.Line)
	}
	return id, t.w.frames.add(&r)
}
