package analysis

import (
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/cores"
	"github.com/etwkit/etw/internal/panicerr"
)

// Batches of selectedBatchEvents events, selectedBatches of them in
// flight: the reading goroutine of [Model.eachSelectedAsync] runs ahead
// of the enricher's by at most that many events; lateBatches while the
// model's methods are still being added ([Options.LateMethods]), which
// the enricher waits for: the reading goes on meanwhile (16,384 events:
// 1.4 MB of records, 88 bytes each, and their frames, 15-70 KB a batch
// on net.4.5.2 and scripts/scale.sh's c16, so 2.4-6 MB in all). How many
// are made depends on the two goroutines' pace: tracerpt-go stacks on
// net.4.5.2 made 0-7 on a quiet machine (session 9) and 8-59, up to the
// cap, with the host loaded (load average 4 on two cores; eight runs,
// session 11), counted by a temporary probe in eachSelectedAsync.
const (
	selectedBatchEvents = 256
	selectedBatches     = 4
	lateBatches         = 64
)

// eachSelectedAsync is EachSelected with the enricher and fn on a
// goroutine of their own: this one reads and decodes the events, calls
// opts' Observe and Select, and takes what the enricher reads of each
// (extractPush: the model is complete, so only read); the other adds
// the records to the enricher's window, resolves the selected events'
// stacks and calls fn with their annotations (in time order, one call
// at a time). With more than one processor the two run at once. The
// walk does not stop early: fn has no error to return.
func (m *Model) eachSelectedAsync(files []*etl.File, dec *decode.Decoder, opts *CollectOptions, fn func(a *Annotation)) (EnrichStats, error) {
	full := make(chan *pushBatch, lateBatches)
	free := make(chan *pushBatch, lateBatches+1)
	batches := selectedBatches + 1
	for range batches {
		free <- &pushBatch{recs: make([]pushRec, 0, selectedBatchEvents)}
	}
	e := m.NewEnricher(&EnrichOptions{Window: opts.window()})
	done := make(chan struct{})
	var perr error
	go func() {
		defer close(done)
		defer func() {
			for b := range full { // after a panic: let the reading end
				b.reset()
				free <- b
			}
		}()
		defer panicerr.Recover(&perr)
		m.WaitMethods() // the frames' resolution reads them
		e.enrichSelected(full, free, fn)
	}()
	closed := false
	defer func() {
		if !closed { // the reading panicked: end the enricher's goroutine
			close(full)
			<-done
		}
	}()
	b := <-free
	readErr, _ := m.readSelected(files, dec, opts, func(ev *etl.Event, k kind, res *decode.Result, sel *selector) error {
		r := m.extractPush(b, ev, k, res)
		if len(sel.pids) > 0 {
			m.finish(r) // the PIDs filter needs the process now
		}
		r.selected = sel.selects(ev, res, r.pid)
		if len(b.recs) == selectedBatchEvents {
			full <- b
			b = nextBatch(free, &batches, m.methodsPending)
		}
		return nil
	})
	full <- b
	close(full)
	closed = true
	<-done
	if perr != nil {
		panic(perr) // raised again where the caller can recover it
	}
	return e.Stats, readErr
}

// nextBatch returns a batch from free, or a new one when none is free
// and late reports that the model's methods are still being added (up
// to lateBatches in all, counted in *batches).
func nextBatch(free chan *pushBatch, batches *int, late func() bool) *pushBatch {
	return takeOrGrow(free, func() (*pushBatch, bool) {
		if *batches < lateBatches && late() {
			*batches++
			return &pushBatch{recs: make([]pushRec, 0, selectedBatchEvents)}, true
		}
		return nil, false
	})
}

// enrichSelected adds the records of the batches from full to e, calls
// fn with the annotation of each selected event once it is final, and
// hands each batch back to free when done.
func (e *Enricher) enrichSelected(full <-chan *pushBatch, free chan<- *pushBatch, fn func(a *Annotation)) {
	var queue []int64 // sequence numbers of the selected events not taken yet
	take := func(s *slot) error {
		fn(e.annotate(s))
		return nil
	}
	for b := range full {
		for i := range b.recs {
			r := &b.recs[i]
			seq := e.apply(b, r)
			if r.selected {
				queue = append(queue, seq)
			}
			if e.out < e.final {
				_ = e.drainSelected(&queue, take)
			}
		}
		b.reset()
		free <- b
	}
	e.Flush()
	_ = e.drainSelected(&queue, take)
}

// splitCollect reports whether the collecting passes run the enricher
// and aggregate the selected events' stacks on a goroutine of their own:
// with more than one processor to run it on. With one, the handoff would
// only cost.
func splitCollect() bool { return cores.Several() }
