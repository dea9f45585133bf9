package analysis

import (
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/tdh"
)

// EventFilter selects events. res is the event's decoding (nil when the
// filter does not need it: see [CollectOptions.NeedsSchema]).
type EventFilter func(ev *etl.Event, res *decode.Result) bool

// IsCPUSample reports whether ev is a PerfInfo SampleProf CPU sample of a
// thread other than the idle thread (thread 0), or one taken in a DPC or
// an interrupt (flags bits 0 and 1, Windows 8 and later), which TraceLog
// keeps too.
func IsCPUSample(ev *etl.Event, res *decode.Result) bool {
	if classify(ev) != kSample {
		return false
	}
	d := decoded(res)
	tid, ok := getU(d, "ThreadId")
	return ok && cpuSampleOf(d, tid)
}

// cpuSampleOf reports whether the SampleProf event whose payload d names
// thread tid is one IsCPUSample selects.
func cpuSampleOf(d *tdh.Decoded, tid uint64) bool {
	if tid != 0 {
		return true
	}
	flags, _ := getU(d, "Reserved")
	return flags&3 != 0
}

// MatchEvent returns a filter for the events named spec, [PROVIDER/]NAME
// in the vocabulary of [decode.EventName] that the dump's --event-name
// and relog share: PROVIDER a provider name or GUID, NAME the event's
// name with or without its _Vn suffix, "Task/Opcode" as PerfView names
// events, the task or opcode name, or the event id; all compare without
// regard to case.
func MatchEvent(spec string) (EventFilter, error) {
	n, err := decode.ParseEventName(spec)
	if err != nil {
		return nil, err
	}
	return func(ev *etl.Event, res *decode.Result) bool {
		var s *tdh.Event
		if res != nil {
			s = res.Schema
		}
		return n.Matches(ev, s)
	}, nil
}

// CollectOptions selects what [Model.Collect] aggregates.
type CollectOptions struct {
	// Select picks the events; nil picks CPU samples ([IsCPUSample]).
	Select EventFilter
	// NeedsSchema says Select reads the decoded result: every event is
	// then decoded. Without it Select gets a result only for the events
	// the model needs decoded (CPU samples among them).
	NeedsSchema bool
	// PIDs keeps only the events of these processes (all when empty).
	// Select is called only for the events of these processes.
	PIDs []uint32
	// Window is the enricher's window (default DefaultWindow).
	Window int
	// Decode, if set, asks for the decoding of more events than
	// NeedsSchema and the model need: the events it reports true for are
	// decoded too, and Observe and Select get their result.
	Decode func(ev *etl.Event) bool
	// Observe, if set, is called with every event, in time order, before
	// the event is selected (whatever its process): a pass that needs
	// the trace for another purpose shares this one. res is the event's
	// decoding as Select gets it (nil for the events neither NeedsSchema,
	// Decode nor the model asked to decode). Both are valid until
	// Observe returns.
	Observe func(ev *etl.Event, res *decode.Result)
}

// CollectStats says what [Model.Collect] selected.
type CollectStats struct {
	Selected  int // events selected (the profile's total)
	WithStack int // of them, events with a stack
	Frames    int // frames of those stacks
	Resolved  int // frames with a module or a method
	Enrich    EnrichStats
}

// Collect reads files again in time order, gives each event its process
// and stack from m (which should be built from the same files), and adds
// the selected events to a new profile, each with weight 1. The profile's
// total is the number of events selected.
func (m *Model) Collect(files []*etl.File, dec *decode.Decoder, opts *CollectOptions) (*Profile, CollectStats, error) {
	return m.CollectWeighted(files, dec, opts, nil)
}

// EachSelected reads files again in time order, gives each event its
// process and stack from m (which should be built from the same files),
// and calls fn with the final annotation of every event opts selects
// (CPU samples by default, see [CollectOptions]), in time order. It is
// the pass under [Model.Collect] and [Model.CollectPprof], for other
// aggregations of the selected events' stacks.
//
// Events are decoded with dec only as far as opts and the model need
// (every event with NeedsSchema). Stacks can be logged after their event,
// so fn is called once the enricher's window has passed the event (see
// [Enricher]), while opts.Observe sees the events as they are read. The
// annotation and its Stack are valid until fn returns.
//
// If fn returns an error, the walk stops and EachSelected returns that
// error. Otherwise the error, if not nil, is the [etl.ErrorList] of the
// damaged buffers and records the reader met. The stats are
// the enricher's (every event read counts in Events).
func (m *Model) EachSelected(files []*etl.File, dec *decode.Decoder, opts *CollectOptions, fn func(a *Annotation) error) (EnrichStats, error) {
	m.WaitMethods()
	e := m.NewEnricher(&EnrichOptions{Window: opts.window()})
	err := m.walkSelected(e, files, dec, opts, func(s *slot) error { return fn(e.annotate(s)) })
	return e.Stats, err
}

// window returns the enricher's window o asks for (0: the default).
func (o *CollectOptions) window() int {
	if o == nil {
		return 0
	}
	return o.Window
}

// walkSelected is the walk of EachSelected through e (see selectedWalk):
// take gets the slot of every selected event once its annotation is
// final, in time order, valid until take returns. If take returns an
// error, the walk stops with it.
func (m *Model) walkSelected(e *Enricher, files []*etl.File, dec *decode.Decoder, opts *CollectOptions, take func(s *slot) error) error {
	w := newSelectedWalk(e, opts, take)
	w.o.Observe = nil // readSelected calls it
	readErr, err := m.readSelected(files, dec, opts, func(ev *etl.Event, k kind, res *decode.Result, _ *selector) error {
		return w.push(ev, k, res)
	})
	if err != nil {
		return err
	}
	if err := w.flush(); err != nil {
		return err
	}
	return readErr
}

// drainSelected hands the slots whose annotations are final to take if
// their events are the next of queue (the selected events' sequence
// numbers, in order), and counts the others' stacks (skip). It stops at
// take's error.
func (e *Enricher) drainSelected(queue *[]int64, take func(s *slot) error) error {
	for s := e.nextSlot(); s != nil; s = e.nextSlot() {
		if q := *queue; len(q) == 0 || q[0] != s.seq {
			e.skip(s)
			continue
		}
		*queue = (*queue)[1:]
		if err := take(s); err != nil {
			return err
		}
	}
	return nil
}

// readSelected reads files in time order for a walk of the selected
// events: it decodes each event as opts and the enricher need, calls
// opts.Observe, then each with the event, its kind, its decoding (or
// nil) and the selection of opts. If each returns an error the walk
// stops and err is that error; readErr is the [etl.ErrorList] of the
// damaged buffers and records the reader met, if any.
func (m *Model) readSelected(files []*etl.File, dec *decode.Decoder, opts *CollectOptions, each func(ev *etl.Event, k kind, res *decode.Result, sel *selector) error) (readErr, err error) {
	var o CollectOptions
	if opts != nil {
		o = *opts
	}
	sel := newSelector(&o)
	r := etl.NewReader(files, nil)
	defer r.Close()
	for r.Next() {
		ev := r.Event()
		k := classify(ev)
		var res *decode.Result
		if o.NeedsSchema || enricherDecodes(ev, k) || (o.Decode != nil && o.Decode(ev)) {
			res = dec.Decode(ev)
		}
		if o.Observe != nil {
			o.Observe(ev, res)
		}
		if err := each(ev, k, res, sel); err != nil {
			return nil, err
		}
	}
	return r.Errors().Err(), nil
}

// selector is the selection of [CollectOptions]: PIDs, then Select.
type selector struct {
	pids []uint32
	sel  EventFilter
}

// newSelector returns the selection of o (CPU samples without Select).
func newSelector(o *CollectOptions) *selector {
	s := &selector{pids: o.PIDs, sel: o.Select}
	if s.sel == nil {
		s.sel = IsCPUSample
	}
	return s
}

// selects reports whether the event is selected, its process being pid
// (an event's process is known when it is pushed and does not change:
// the PIDs filter applies before Select).
func (s *selector) selects(ev *etl.Event, res *decode.Result, pid uint32) bool {
	return (len(s.pids) == 0 || containsPID(s.pids, pid)) && s.sel(ev, res)
}

// count adds a selected event to the counts.
func (st *CollectStats) count(a *Annotation) {
	st.Selected++
	if a.Stack == nil {
		return
	}
	st.WithStack++
	st.Frames += len(a.Stack)
	for i := range a.Stack {
		if a.Stack[i].Resolved() {
			st.Resolved++
		}
	}
}

func containsPID(l []uint32, pid uint32) bool {
	for _, p := range l {
		if p == pid {
			return true
		}
	}
	return false
}
