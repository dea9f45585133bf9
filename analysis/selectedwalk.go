package analysis

import (
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
)

// selectedWalk is the walk of [Model.EachSelected] one event at a time:
// each event pushed through the enricher, the selected ones' slots handed
// to take once their annotation is final, in time order (valid until take
// returns); the other events' stacks are counted (Enricher.skip) but not
// resolved: most stacks (4 in 5 on net.4.5.2) are other events'. The
// caller reads the events and decodes those needsDecode asks for.
type selectedWalk struct {
	e     *Enricher
	o     CollectOptions
	sel   *selector
	queue []int64 // sequence numbers of the selected events not taken yet
	take  func(s *slot) error
}

func newSelectedWalk(e *Enricher, opts *CollectOptions, take func(s *slot) error) *selectedWalk {
	w := &selectedWalk{e: e, take: take}
	if opts != nil {
		w.o = *opts
	}
	w.sel = newSelector(&w.o)
	return w
}

// needsDecode reports whether push reads ev's decoding (every event with
// NeedsSchema, else those the enricher or opts.Decode ask for).
func (w *selectedWalk) needsDecode(ev *etl.Event) bool {
	return w.o.NeedsSchema || w.e.NeedsDecode(ev) || (w.o.Decode != nil && w.o.Decode(ev))
}

// push takes the next event in time order, of kind k, and res, its
// decoding (nil when needsDecode says it is not needed); it stops with
// take's error.
func (w *selectedWalk) push(ev *etl.Event, k kind, res *decode.Result) error {
	if w.o.Observe != nil {
		w.o.Observe(ev, res)
	}
	s := w.e.push(ev, k, res)
	if w.sel.selects(ev, res, s.pid) {
		w.queue = append(w.queue, s.seq)
	}
	return w.drain()
}

// flush hands out the events still in the enricher's window.
func (w *selectedWalk) flush() error {
	w.e.Flush()
	return w.drain()
}

// drain hands the slots whose annotation is final to take (the selected
// events) or to Enricher.skip (the others).
func (w *selectedWalk) drain() error { return w.e.drainSelected(&w.queue, w.take) }

// SelectedWalker is the pass of [Model.EachSelected] for a caller that
// reads the events itself (one reading shared with other work, say):
// Push every event in time order, then Flush. fn is called as
// EachSelected calls it, with the annotations of the selected events.
type SelectedWalker struct{ w *selectedWalk }

// NewSelectedWalker returns the walk of EachSelected with opts and fn
// (see [Model.EachSelected]) over events the caller pushes. Like
// EachSelected, it first waits for the model's methods (see
// [Model.WaitMethods]): the walk resolves frames.
func (m *Model) NewSelectedWalker(opts *CollectOptions, fn func(a *Annotation) error) *SelectedWalker {
	m.WaitMethods()
	e := m.NewEnricher(&EnrichOptions{Window: opts.window()})
	return &SelectedWalker{newSelectedWalk(e, opts, func(s *slot) error { return fn(e.annotate(s)) })}
}

// NeedsDecode reports whether Push reads ev's decoding: for the others,
// Push may be given nil (a decoding given anyway is ignored unless
// opts.Observe or opts.Select read it).
func (sw *SelectedWalker) NeedsDecode(ev *etl.Event) bool { return sw.w.needsDecode(ev) }

// Push takes the next event, in time order, and res, its decoding (nil
// when NeedsDecode says it is not needed). Both are valid until Push
// returns. The error is fn's, after which the walk should stop.
func (sw *SelectedWalker) Push(ev *etl.Event, res *decode.Result) error {
	return sw.w.push(ev, classify(ev), res)
}

// Flush ends the walk: fn gets the events still in the enricher's
// window. It returns fn's error.
func (sw *SelectedWalker) Flush() error { return sw.w.flush() }

// Stats returns the enricher's counts (every event pushed counts in
// Events), as EachSelected returns them.
func (sw *SelectedWalker) Stats() EnrichStats { return sw.w.e.Stats }
