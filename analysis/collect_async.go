package analysis

import (
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/cores"
)

// selectedBatch carries selected events from the reading goroutine of
// [Model.eachSelectedAsync] to the goroutine that resolves their stacks:
// each event's annotation but the stack, and its stack's addresses,
// consecutive in addrs. Batches are reused, so a run allocates a few.
type selectedBatch struct {
	events []selectedEvent
	addrs  []uint64
}

type selectedEvent struct {
	seq      int64
	ft       int64
	proc     *Process
	pid, tid uint32
	n        int32 // addresses of the stack, in the batch's addrs
}

// Batches of selectedBatchEvents events, selectedBatches of them in
// flight: the reading goroutine runs ahead of the resolving one by at
// most that many events.
const (
	selectedBatchEvents = 256
	selectedBatches     = 4
)

// eachSelectedAsync is EachSelected with the stacks resolved and fn
// called on a goroutine of its own (in time order, one call at a time),
// while this one reads, decodes and enriches the events that follow:
// with more than one processor the two run at once. The walk does not
// stop early: fn has no error to return.
func (m *Model) eachSelectedAsync(files []*etl.File, dec *decode.Decoder, opts *CollectOptions, fn func(a *Annotation)) (EnrichStats, error) {
	full := make(chan *selectedBatch, selectedBatches)
	free := make(chan *selectedBatch, selectedBatches+1)
	for range selectedBatches + 1 {
		free <- &selectedBatch{events: make([]selectedEvent, 0, selectedBatchEvents)}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		m.resolveSelected(full, free, fn)
	}()
	e := m.NewEnricher(&EnrichOptions{Window: opts.window()})
	b := <-free
	err := m.walkSelected(e, files, dec, opts, func(s *slot) error {
		n := len(b.addrs)
		b.addrs = e.stackAddrs(s, b.addrs)
		b.events = append(b.events, selectedEvent{seq: s.seq, ft: s.ft, proc: s.proc, pid: s.pid, tid: s.tid, n: int32(len(b.addrs) - n)})
		if len(b.events) == selectedBatchEvents {
			full <- b
			b = <-free
		}
		return nil
	})
	full <- b
	close(full)
	<-done
	return e.Stats, err
}

// resolveSelected resolves the stacks of the batches from full and
// calls fn with each event's annotation, handing each batch back to
// free when done.
func (m *Model) resolveSelected(full <-chan *selectedBatch, free chan<- *selectedBatch, fn func(a *Annotation)) {
	var cache frameCache
	var frames []Frame
	for b := range full {
		addrs := b.addrs
		for i := range b.events {
			ev := &b.events[i]
			frames = cache.resolveAll(m, ev.proc, addrs[:ev.n], ev.ft, frames[:0])
			addrs = addrs[ev.n:]
			a := Annotation{Seq: ev.seq, PID: ev.pid, TID: ev.tid, Process: ev.proc, m: m, ft: ev.ft}
			if len(frames) > 0 {
				a.Stack = frames
			}
			fn(&a)
		}
		b.events, b.addrs = b.events[:0], b.addrs[:0]
		free <- b
	}
}

// splitCollect reports whether the collecting passes resolve and
// aggregate the selected events' stacks on a goroutine of their own:
// with more than one processor to run it on. With one, the handoff
// would only cost.
func splitCollect() bool { return cores.Several() }
