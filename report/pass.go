package report

import (
	"sync"
	"sync/atomic"

	"github.com/etwkit/etw/analysis"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/cores"
	"github.com/etwkit/etw/internal/panicerr"
)

// passShared is the second pass on three goroutines over one reading of
// the files: this one reads the events in time order (the reader's
// loaders decompress each buffer once) and copies them, in batches, out
// of the reader's buffers; one goroutine decodes every event and hands
// it to the views' observers, another pushes the events through the CPU
// samples' walk (the enricher, the CPU profile and usage, sample's
// work), decoding those the walk reads, and hands them to the observers
// that read only the header (headerObserver: the timeline). Each
// observer, and the walk, sees every event in time order, as in the pass
// on one goroutine, and the two sides share nothing they write (the model
// is complete and only read; the CPU usage's samples and its interval
// are separate fields, and each view has its own state): the result is
// the same, in about the time of the longest of the three. The events
// the walk reads (CPU samples, stacks) are decoded twice, once on each
// side.
//
// The error is the walk's (sample's) or, without one, the reader's
// damaged buffers and records, as the pass on one goroutine returns; a
// panic on a consumer's goroutine is raised again on this one once the
// others are done.
func (c *collector) passShared(dec *decode.Decoder, sample func(a *analysis.Annotation) error) error {
	free := make(chan *eventBatch, sharedBatches)
	for range sharedBatches {
		free <- &eventBatch{evs: make([]etl.Event, 0, sharedBatchEvents), data: make([]byte, 0, sharedBatchEvents*sharedEventBytes)}
	}
	toObservers := make(chan *eventBatch, sharedBatches)
	toStacks := make(chan *eventBatch, sharedBatches)
	release := func(b *eventBatch) {
		if b.users.Add(-1) == 0 {
			b.reset()
			free <- b
		}
	}
	var decoded, headers []observer
	for _, o := range c.observers {
		if _, ok := o.(headerObserver); ok {
			headers = append(headers, o)
		} else {
			decoded = append(decoded, o)
		}
	}
	var wg sync.WaitGroup
	var obsPanic, stkPanic, walkErr error
	// failed tells the reading to stop: a consumer panicked or the walk
	// failed, and the rest of the trace would be read for nothing.
	var failed atomic.Bool
	wg.Go(func() {
		consumeBatches(toObservers, release, &obsPanic, &failed, func(ev *etl.Event) { c.observeWith(ev, dec.Decode(ev), decoded) })
	})
	walk := c.m.NewSelectedWalker(nil, sample)
	stacks := dec.Clone() // the same registry, its own decoding state
	wg.Go(func() {
		consumeBatches(toStacks, release, &stkPanic, &failed, func(ev *etl.Event) {
			if walkErr != nil {
				return
			}
			var res *decode.Result
			if walk.NeedsDecode(ev) {
				res = stacks.Decode(ev)
			}
			if walkErr = walk.Push(ev, res); walkErr != nil {
				failed.Store(true)
			}
			for _, o := range headers {
				o.observe(ev, nil)
			}
		})
	})
	r := etl.NewReader(c.files, nil)
	defer r.Close()
	func() {
		defer func() { // on a panic here too: the consumers end, then it goes on
			close(toObservers)
			close(toStacks)
			wg.Wait()
		}()
		b := <-free
		send := func() {
			b.users.Store(2)
			toObservers <- b
			toStacks <- b
		}
		for !failed.Load() && r.Next() {
			b.add(r.Event())
			if len(b.evs) == sharedBatchEvents {
				send()
				b = <-free
			}
		}
		send()
	}()
	for _, err := range []error{obsPanic, stkPanic} {
		if pe, ok := err.(*panicerr.Error); ok {
			panic(pe)
		}
	}
	if walkErr != nil {
		return walkErr
	}
	if err := walk.Flush(); err != nil {
		return err
	}
	return r.Errors().Err()
}

// headerObserver is an observer that reads only its events' headers,
// never their decoding: passShared hands it the events beside the CPU
// samples' walk, with a nil result, which evens out the two consumers.
type headerObserver interface {
	observer
	headerOnly()
}

// Batches of sharedBatchEvents events, sharedBatches of them in flight:
// the reading goroutine runs ahead of the slower consumer by at most
// that many events.
// A batch's bytes start at sharedEventBytes an event (the records of
// net.4.5.2.x64 average 127 bytes) and grow as needed.
const (
	sharedBatchEvents = 512
	sharedBatches     = 8
	sharedEventBytes  = 160
)

// consumeBatches calls each with every event of the batches from in, in
// order, and releases each batch. A panic in each is stored in *perr
// (a [*panicerr.Error]) and sets failed, which stops the reading; the
// batches already sent are released unread, so that the reading
// goroutine does not wait for them.
func consumeBatches(in <-chan *eventBatch, release func(*eventBatch), perr *error, failed *atomic.Bool, each func(ev *etl.Event)) {
	for b := range in {
		if *perr == nil {
			func() {
				defer func() {
					if *perr != nil {
						failed.Store(true)
					}
				}()
				defer panicerr.Recover(perr)
				for i := range b.evs {
					each(&b.evs[i])
				}
			}()
		}
		release(b)
	}
}

// eventBatch holds events copied out of a reader's buffers (which the
// reader reuses once it has moved past them): each event's header, and
// its bytes (Raw, UserData, the extended items' data) in data. Batches
// are reused, so a pass allocates a few.
type eventBatch struct {
	evs  []etl.Event
	ext  []etl.ExtendedItem
	data []byte
	// users counts the consumers that have not released the batch.
	users atomic.Int32
}

// add appends a copy of ev whose slices point into the batch.
func (b *eventBatch) add(ev *etl.Event) {
	b.evs = append(b.evs, *ev)
	c := &b.evs[len(b.evs)-1]
	raw := b.bytes(ev.Raw)
	c.Raw = raw
	c.UserData = b.within(ev.UserData, ev.Raw, raw)
	if len(ev.Extended) > 0 {
		n := len(b.ext)
		for _, x := range ev.Extended {
			b.ext = append(b.ext, etl.ExtendedItem{Type: x.Type, Data: b.within(x.Data, ev.Raw, raw)})
		}
		c.Extended = b.ext[n:len(b.ext):len(b.ext)]
	}
}

// bytes returns a copy of p in the batch's data (nil for nil).
func (b *eventBatch) bytes(p []byte) []byte {
	if len(p) == 0 {
		if p == nil {
			return nil
		}
		return []byte{}
	}
	n := len(b.data)
	b.data = append(b.data, p...)
	return b.data[n:len(b.data):len(b.data)]
}

// within returns the copy of p: the same bytes of rawCopy, the copy of
// raw, when p lies in raw (the payload and the extended items are parts
// of the record), else a copy of its own.
func (b *eventBatch) within(p, raw, rawCopy []byte) []byte {
	if len(p) > 0 {
		off := cap(raw) - cap(p) // p's offset in raw, if both run to the end of one array
		if off >= 0 && off+len(p) <= len(raw) && &raw[off] == &p[0] {
			return rawCopy[off : off+len(p) : off+len(p)]
		}
	}
	return b.bytes(p)
}

// reset empties the batch for reuse, keeping its storage.
func (b *eventBatch) reset() {
	b.evs, b.ext, b.data = b.evs[:0], b.ext[:0], b.data[:0]
}

// Passes returns how many times [Build] reads every buffer of its inputs
// (for a progress bar: [etl.File.SetReadHook] counts each reading): the
// model pass, then the second pass.
func Passes() int { return 2 }

// splitPass reports whether the second pass runs on several goroutines
// (passShared): with more than one processor to run them on. With one,
// the copies and handoffs would only cost.
func splitPass() bool { return cores.Several() }
