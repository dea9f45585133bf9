package tables

import (
	"time"

	"github.com/etwkit/etw/analysis"
	"github.com/etwkit/etw/catalog"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/pcapng"
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
}

// traceState is what Add keeps of one trace while writing it.
type traceState struct {
	w     *Writer
	id    int32
	m     *analysis.Model
	files []*etl.File
	iv    analysis.SampleIntervals
	pk    *packetTable

	upids   map[*analysis.Process]int64
	utids   map[*analysis.Thread]int64
	images  map[*analysis.Image]int64
	methods map[*analysis.Method]int64
	frames  map[frameKey]int64
	stacks  map[stackKey]int64
	fileIDs map[uint64]int64  // file object → file id
	names   map[uint64]string // file object → last name the trace gave it

	// cpus holds the processors of the selected samples whose
	// annotations are not final yet, in order (a ring).
	cpus       []int32
	head, size int
}

// frameKey is a distinct frame: its image or method and its address.
type frameKey struct {
	im   *analysis.Image
	meth *analysis.Method
	addr uint64
}

// stackKey is a node of the prefix tree: its parent and its last frame.
type stackKey struct {
	parent, frame int64
}

// Add writes the tables of one trace: files are its .etl files (several
// files of one trace merge, as the dump merges them), dec decodes its
// events (nil: decode.New()). It reads the files twice: once to build
// the analysis model (registering the schemas the trace carries with
// dec), once for the samples, stacks and disk I/O. name is the traces
// table's name of the trace. Damage in the files is in the stats; the
// error is a failure to write.
func (w *Writer) Add(name string, files []*etl.File, dec *decode.Decoder) (*TraceStats, error) {
	if dec == nil {
		dec = decode.New()
	}
	w.trace++
	t := &traceState{
		w: w, id: w.trace, files: files,
		upids: map[*analysis.Process]int64{}, utids: map[*analysis.Thread]int64{},
		images: map[*analysis.Image]int64{}, methods: map[*analysis.Method]int64{},
		frames: map[frameKey]int64{}, stacks: map[stackKey]int64{},
		fileIDs: map[uint64]int64{}, names: map[uint64]string{},
		cpus: make([]int32, 64),
	}
	st := &TraceStats{Trace: t.id}
	pk, err := newPacketTable(t)
	if err != nil {
		return st, err
	}
	t.pk = pk
	ps := dec.NewPrescanner()
	m, err := analysis.Build(files, dec, &analysis.Options{Observe: func(ev *etl.Event) {
		ps.Observe(ev)
		switch {
		case t.iv.NeedsDecode(ev):
			t.iv.Observe(ev, dec.Decode(ev))
		case ev.ProviderID == catalog.PktMonGUID && !pcapng.IsPacketEvent(ev):
			pk.learn(ev, dec.Decode(ev))
		}
	}})
	st.Errors = appendJoined(st.Errors, err)
	st.Errors = appendJoined(st.Errors, ps.Finish())
	if w.opts.Symbolizer != nil {
		m.SetSymbolizer(w.opts.Symbolizer)
	}
	t.m = m
	if err := t.writeModel(); err != nil {
		pk.close()
		return st, err
	}
	var werr error
	enr, err := m.EachSelected(files, dec, &analysis.CollectOptions{
		Window:  w.opts.Window,
		Select:  t.selectSample,
		Decode:  needsIODecode,
		Observe: func(ev *etl.Event, res *decode.Result) { werr = t.observeIO(ev, res, werr) },
	}, func(a *analysis.Annotation) error {
		st.Samples++
		if err := t.sample(a); err != nil {
			werr = err
		}
		return werr
	})
	st.Events = int64(enr.Events)
	n, perr := pk.close()
	st.Packets = n
	if werr == nil {
		werr = perr
	}
	if werr != nil {
		return st, werr
	}
	st.Errors = appendJoined(st.Errors, err)
	if err := t.writeFiles(); err != nil {
		return st, err
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

// selectSample selects the CPU samples, keeping their processor for
// sample (the annotation does not carry it).
func (t *traceState) selectSample(ev *etl.Event, res *decode.Result) bool {
	if !analysis.IsCPUSample(ev, res) {
		return false
	}
	if t.size == len(t.cpus) {
		grown := make([]int32, 2*len(t.cpus))
		n := copy(grown, t.cpus[t.head:])
		copy(grown[n:], t.cpus[:t.head])
		t.cpus, t.head = grown, 0
	}
	t.cpus[(t.head+t.size)%len(t.cpus)] = int32(ev.Processor)
	t.size++
	return true
}

// nextCPU returns the processor of the oldest selected sample not written.
func (t *traceState) nextCPU() int32 {
	if t.size == 0 {
		return -1
	}
	c := t.cpus[t.head]
	t.head = (t.head + 1) % len(t.cpus)
	t.size--
	return c
}

// sample writes one CPU sample, and the frames and stack nodes it is the
// first to use.
func (t *traceState) sample(a *analysis.Annotation) error {
	at := a.Time()
	r := SampleRow{Trace: t.id, TS: at.UnixNano(), CPU: t.nextCPU(),
		WeightMS: float64(t.iv.At(at)) / float64(time.Millisecond)}
	if th := t.m.Thread(a.TID, at); th != nil {
		r.Utid = t.utids[th]
	}
	var parent int64
	for i := len(a.Stack) - 1; i >= 0; i-- {
		f := &a.Stack[i]
		fid, err := t.frameID(f)
		if err != nil {
			return err
		}
		id, isNew := assign(t.stacks, stackKey{parent, fid}, &t.w.stack)
		if isNew {
			depth := int32(len(a.Stack) - 1 - i)
			if err := t.w.stacks.add(&StackRow{Trace: t.id, StackID: id, ParentID: parent, FrameID: fid, Depth: depth}); err != nil {
				return err
			}
		}
		parent = id
	}
	r.StackID = parent
	return t.w.samples.add(&r)
}

// frameID returns the id of frame f, writing its row when it is new.
func (t *traceState) frameID(f *analysis.Frame) (int64, error) {
	id, isNew := assign(t.frames, frameKey{f.Image, f.Method, f.Address}, &t.w.frame)
	if !isNew {
		return id, nil
	}
	r := FrameRow{Trace: t.id, FrameID: id, Address: f.Address, Name: f.Name()}
	var err error
	if f.Image != nil {
		r.RVA = f.Offset
		if r.ImageID, err = t.imageID(f.Image, 0); err != nil {
			return 0, err
		}
	}
	if f.Method != nil {
		if r.MethodID, err = t.methodID(f.Method, 0); err != nil {
			return 0, err
		}
	}
	if f.HasFunction() {
		r.Function = string(f.AppendFunction(nil))
	}
	if f.Method == nil && f.Symbol != nil {
		r.File, r.Line = f.Symbol.File, int32(f.Symbol.Line)
	}
	return id, t.w.frames.add(&r)
}
