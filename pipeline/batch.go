package pipeline

import (
	"context"
	"fmt"
	"math"
	"sync"
	"sync/atomic"

	"github.com/etwkit/etw/analysis"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/inorder"
	"github.com/etwkit/etw/internal/panicerr"
	"github.com/etwkit/etw/internal/prefault"
	"github.com/etwkit/etw/tdh"
)

// A batch carries copies of consecutive events from the reader to a
// worker and their rendering from the worker to the writer.
type batch[E any] struct {
	seq      int
	events   []etl.Event
	spans    []eventSpan
	ext      []etl.ExtendedItem
	arena    [][]byte // chunks from a slabPool
	arenaLen int      // bytes in arena

	// The rendering of events base, base+1, …: the chunks parts, then
	// out (see chunks.go).
	out      []E
	parts    [][]E
	vec      [][]E   // writeRendered's list of what it writes
	partsLen int     // elements in parts
	outHeld  int     // bytes the elements of out hold (Sizer)
	held     int     // bytes the whole rendering holds (Sizer)
	base     int     // index of the event whose rendering starts it
	ends     []int32 // end of the rendering of event base+i in it; -1: filtered out
	schema   []*tdh.Event
	err      error // rendering failed (an overflow)

	// With Config.Analysis: each event's annotation (its brief), its
	// stack's addresses in addrs (resolved by the goroutine that renders
	// or writes the event: see stackResolver).
	ann       []keptAnnotation
	addrs     [][]uint64 // chunks from a slabPool
	annotated int
	// With Config.Written too: the stacks the goroutine that rendered
	// the events resolved, kept for the writer (event i's in frames at
	// resolved[i]).
	resolved []stackSpan
	frames   [][]analysis.Frame // chunks from a sharedFrames
}

type eventSpan struct {
	extFirst, extN int32
}

const (
	batchEvents = 512
	batchBytes  = 1 << 20
	// batchOutBytes bounds a batch's rendering: a worker stops there (one
	// event's rendering is bounded by tdh.MaxTextBytes and
	// tdh.MaxMessageBytes) and the writer renders the rest of the batch
	// in parts of this size, in order. A batch of the JSON dump renders
	// to 490 KB on average on net.4.5.2 (973 KB at most), 400 KB on
	// scripts/scale.sh's c16 (net.4.5.2 x16), and up to 4.8 MB there
	// where large events come in a row (.NET GC heap dumps; 5.1 MB with
	// 16 inputs): the batch the writer waits for takes chunks beyond the
	// pool's bound, so this bounds what such runs hold (the JSON dump's
	// live heap at x16: 35-37 MB with 16 MiB, 30-32 with 1 MiB, session
	// 9). 6 of c16's 5,609 batches are rendered in parts (32 pass 768
	// KB), 16 with 16 inputs, none in the corpus's single files (session
	// 11: a temporary probe in run.finish summing each batch's held).
	batchOutBytes = 1 << 20
)

func (b *batch[E]) reset(pool *chunkPool[E], slabs *slabs) {
	b.events, b.spans, b.ext = b.events[:0], b.spans[:0], b.ext[:0]
	b.arena, b.arenaLen = slabs.arena.putAll(b.arena), 0
	b.resetOut(pool)
	b.base, b.err = 0, nil
	// b.ann is not cleared: keep lengthens it over what annotate then
	// writes whole, and its stale entries point to processes of the
	// model, which outlives the batches.
	b.addrs = slabs.addrs.putAll(b.addrs)
	if slabs.frames != nil {
		b.frames = slabs.frames.putAll(b.frames)
	}
	b.resolved = b.resolved[:0]
	b.ann, b.annotated = b.ann[:0], 0
}

// resetOut empties the rendering, giving its chunks back to pool.
func (b *batch[E]) resetOut(pool *chunkPool[E]) {
	b.releaseOut(pool)
	b.ends, b.schema, b.held = b.ends[:0], b.schema[:0], 0
}

// keptAnnotation is the final annotation of a batch's event: its brief
// and its stack's addresses (56 bytes; an Annotation is 88, its stack a slice of frames).
type keptAnnotation struct {
	brief analysis.Brief
	stack stackSpan
}

// annotate records the final annotation of the batch's event i: its
// brief, which Enricher.NextBrief wrote in place, and its stack's
// addresses, in chunks from pool.
func (b *batch[E]) annotate(i int, addrs []uint64, pool *slabPool[uint64]) {
	sp := stackSpan{}
	if n := len(addrs); n > 0 {
		k := pool.take(&b.addrs, n)
		sp = stackSpan{int32(k), int32(len(b.addrs[k])), int32(n)}
		b.addrs[k] = append(b.addrs[k], addrs...)
	}
	b.ann[i].stack = sp
	b.annotated++
}

// annotation returns the final annotation of the batch's event i with
// its stack, resolved by r (nil without Config.Analysis). It is valid
// until r's next use.
func (b *batch[E]) annotation(i int, r *stackResolver) *analysis.Annotation {
	if len(b.ann) <= i {
		return nil
	}
	k := &b.ann[i]
	k.brief.Expand(&r.ann)
	r.frames = r.frames[:0]
	if sp := k.stack; sp.n > 0 {
		r.frames = r.r.Resolve(&r.ann, b.addrs[sp.chunk][sp.off:sp.off+sp.n], r.frames)
		r.ann.Stack = r.frames
	}
	return &r.ann
}

// keep keeps a, the annotation of the batch's event i as the rendering
// goroutine resolved it, for writtenAnnotation: its stack in frames from
// pool.
func (b *batch[E]) keep(i int, a *analysis.Annotation, pool *sharedFrames) {
	for len(b.resolved) <= i {
		b.resolved = append(b.resolved, stackSpan{})
	}
	if n := len(a.Stack); n > 0 {
		k := pool.take(&b.frames, n)
		b.resolved[i] = stackSpan{int32(k), int32(len(b.frames[k])), int32(n)}
		b.frames[k] = append(b.frames[k], a.Stack...)
	}
}

// writtenAnnotation returns the annotation of the batch's event i for
// Config.Written: with the stack keep kept when there is one, else
// resolved by r.
func (b *batch[E]) writtenAnnotation(i int, r *stackResolver) *analysis.Annotation {
	if len(b.resolved) <= i {
		return b.annotation(i, r)
	}
	b.ann[i].brief.Expand(&r.ann)
	if sp := b.resolved[i]; sp.n > 0 {
		r.ann.Stack = b.frames[sp.chunk][sp.off : sp.off+sp.n : sp.off+sp.n]
	}
	return &r.ann
}

// stackResolver resolves the stacks of the annotations that one goroutine
// (a worker, the writer) renders or writes.
type stackResolver struct {
	r      analysis.StackResolver
	ann    analysis.Annotation
	frames []analysis.Frame
}

// worker is what one goroutine decodes, renders and resolves stacks with.
type worker[E any] struct {
	d      *decode.Decoder
	enc    Encoder[E]
	stacks stackResolver
}

func (b *batch[E]) full() bool { return len(b.events) >= batchEvents || b.arenaLen >= batchBytes }

// add copies ev (its payload and extended items) into the batch, in a
// chunk of arena from pool. The event is copied once, straight into
// b.events (an etl.Event is about 250 bytes).
func (b *batch[E]) add(ev *etl.Event, pool *slabPool[byte]) {
	sp := eventSpan{extFirst: int32(len(b.ext)), extN: int32(len(ev.Extended))}
	n := len(ev.UserData)
	for _, x := range ev.Extended {
		n += len(x.Data)
	}
	k := pool.take(&b.arena, n)
	c := b.arena[k]
	i := len(b.events)
	if i == cap(b.events) {
		if i == 0 {
			// All the room a batch takes, written at once: the collector
			// scans the room past the events, and so mapped the zero
			// page under it before they were written (package prefault).
			b.events = prefault.Make[etl.Event](batchEvents)[:0]
		} else {
			b.events = append(b.events, etl.Event{})
		}
	}
	b.events = b.events[:i+1]
	e := &b.events[i]
	*e = *ev
	at := len(c)
	c = append(c, ev.UserData...)
	e.UserData = c[at:len(c):len(c)]
	for _, x := range ev.Extended {
		at = len(c)
		c = append(c, x.Data...)
		b.ext = append(b.ext, etl.ExtendedItem{Type: x.Type, Data: c[at:len(c):len(c)]})
	}
	b.arena[k] = c
	b.arenaLen += n
	e.Extended, e.Raw = nil, nil
	b.spans = append(b.spans, sp)
}

// fix points the copied events' extended items into b.ext, once it no
// longer grows.
func (b *batch[E]) fix() {
	for i := range b.events {
		sp := b.spans[i]
		e := &b.events[i]
		if sp.extN > 0 {
			e.Extended = b.ext[sp.extFirst : sp.extFirst+sp.extN : sp.extFirst+sp.extN]
		}
	}
}

// renderBatch decodes and renders the events of b from event
// b.base+len(b.ends) on, until the rendering passes batchOutBytes.
func (p *run[E]) renderBatch(b *batch[E], w *worker[E]) {
	d, enc := w.d, w.enc
	for i := b.base + len(b.ends); i < len(b.events) && b.held < batchOutBytes; i++ {
		ev := &b.events[i]
		a := b.annotation(i, &w.stacks)
		if a != nil && p.slabs.frames != nil {
			b.keep(i, a, p.slabs.frames)
		}
		b.newChunk(p.chunks)
		chunk := b.out
		n := len(b.out)
		var s *tdh.Event
		var ok bool
		if b.out, s, ok = p.render(b.out, d, enc, ev, nil, a); !ok {
			b.ends = append(b.ends, -1)
			b.schema = append(b.schema, nil)
			continue
		}
		size := p.size(b.out[n:])
		b.held += size
		b.outHeld += size
		if cap(b.out) != cap(chunk) {
			b.oversize(p.chunks, chunk, b.out, n)
		}
		if b.rendered() > math.MaxInt32 {
			b.err = fmt.Errorf("pipeline: the rendering of %d events passed 2 GiB", i+1-b.base)
			return
		}
		b.ends = append(b.ends, int32(b.rendered()))
		b.schema = append(b.schema, s)
	}
}

// renderSafe is renderBatch on a worker goroutine: a panic while
// rendering becomes b's error, which the writer returns.
func (p *run[E]) renderSafe(b *batch[E], w *worker[E]) {
	defer panicerr.Recover(&b.err)
	p.renderBatch(b, w)
}

// finish writes what is rendered of b, then renders (with w) and writes
// the rest of it, part by part, in order. It gives b's rendering storage
// back to the pool, whose chunks then go to the next batch first.
func (p *run[E]) finish(b *batch[E], w *worker[E]) error {
	defer func() {
		p.chunks.advance(b.seq + 1)
		b.resetOut(p.chunks)
	}()
	for {
		if b.err != nil {
			return b.err
		}
		if err := p.writeBatch(b, &w.stacks); err != nil {
			return err
		}
		if b.base+len(b.ends) == len(b.events) {
			return nil
		}
		// The rendering passed batchOutBytes.
		b.base += len(b.ends)
		b.resetOut(p.chunks)
		p.renderBatch(b, w)
	}
}

// writeBatch writes the rendering of b's kept events (they are contiguous
// in its chunks) up to the event limit, and counts them. r resolves the
// stacks of the annotations Config.Written takes.
func (p *run[E]) writeBatch(b *batch[E], r *stackResolver) error {
	cut := int32(b.rendered())
	var stopErr error
	for i, end := range b.ends {
		if end < 0 {
			continue
		}
		if p.c.Written != nil {
			if err := p.written(&b.events[b.base+i], b.writtenAnnotation(b.base+i, r)); err != nil {
				return err
			}
		}
		if p.count(&b.events[b.base+i], b.schema[i]) {
			cut, stopErr = end, errLimit
			break
		}
	}
	if err := p.flush(); err != nil {
		return err
	}
	if cut > 0 && p.c.Output != nil {
		if err := b.writeRendered(p.c.Output, int(cut)); err != nil {
			return err
		}
	}
	return stopErr
}

// readBatches reads on the calling goroutine and fills batches: get gives
// an empty one (false: stop reading), send takes a full one whose events
// have their final annotations (with Config.Analysis), in order.
// stop, if set, stops reading.
func (p *run[E]) readBatches(ctx context.Context, dec *decode.Decoder, stop *atomic.Bool, get func() (*batch[E], bool), send func(*batch[E]) error) error {
	var en *enrichQueue[E]
	if p.c.Analysis != nil {
		en = &enrichQueue[E]{e: p.c.Analysis.NewEnricher(nil), dec: dec.Clone(), peek: p.c.Observe == nil, send: send, addrs: &p.slabs.addrs}
	}
	seq := 0
	var cur *batch[E]
	for p.r.Next() {
		ev := p.r.Event()
		p.st.Read++
		if err := p.tick(ctx, ev); err != nil {
			return err
		}
		if stop != nil && stop.Load() {
			return nil
		}
		var res *decode.Result
		pid, tid := ev.ProcessID, ev.ThreadID
		if en != nil {
			res, pid, tid = en.push(ev)
		}
		keep := p.f.matchHeader(ev, pid, tid)
		if err := p.observe(ev, dec, res); err != nil {
			return err
		}
		if !keep {
			if en != nil {
				if err := en.drain(); err != nil {
					return err
				}
			}
			continue
		}
		if cur == nil {
			var ok bool
			if cur, ok = get(); !ok {
				return nil
			}
			cur.reset(p.chunks, p.slabs)
			cur.seq = seq
			seq++
		}
		cur.add(ev, &p.slabs.arena)
		if en != nil {
			en.keep(cur)
			if cur.full() {
				en.pending = append(en.pending, cur)
				cur = nil
			}
			if err := en.drain(); err != nil {
				return err
			}
			continue
		}
		if cur.full() {
			cur.fix()
			if err := send(cur); err != nil {
				return err
			}
			cur = nil
		}
	}
	if en != nil {
		if cur != nil {
			en.pending = append(en.pending, cur)
		}
		en.e.Flush()
		return en.drain()
	}
	if cur != nil {
		cur.fix()
		return send(cur)
	}
	return nil
}

// runBatches reads, annotates, decodes and renders on the calling
// goroutine through batches, which hold events until the enricher's
// annotations are final (one worker with Config.Analysis).
func (p *run[E]) runBatches(ctx context.Context, dec *decode.Decoder, enc Encoder[E]) error {
	var free []*batch[E]
	get := func() (*batch[E], bool) {
		if n := len(free); n > 0 {
			b := free[n-1]
			free = free[:n-1]
			return b, true
		}
		return &batch[E]{}, true
	}
	w := &worker[E]{d: dec, enc: enc}
	send := func(b *batch[E]) error {
		p.renderBatch(b, w)
		err := p.finish(b, w)
		free = append(free, b)
		return err
	}
	if err := p.readBatches(ctx, dec, nil, get, send); err != nil {
		return err
	}
	return p.flush()
}

// runParallel reads on the calling goroutine, decodes and renders batches
// on workers, and writes them in order on a writer goroutine. The number
// of batches in flight is fixed, which bounds memory.
func (p *run[E]) runParallel(ctx context.Context, dec *decode.Decoder, workers int) error {
	nb := 4 * workers
	if p.c.Analysis != nil {
		// The reader holds up to maxPendingBatches full batches and the
		// one it fills; one more keeps the pipeline moving.
		nb = max(nb, maxPendingBatches+2)
	}
	free := make(chan *batch[E], nb)
	for i := 0; i < nb; i++ {
		free <- &batch[E]{}
	}
	work := make(chan *batch[E], nb)
	done := make(chan *batch[E], nb)
	var stop atomic.Bool
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		w := &worker[E]{d: dec.Clone(), enc: p.clone()}
		go func() {
			defer wg.Done()
			for b := range work {
				if !stop.Load() {
					p.renderSafe(b, w)
				}
				done <- b
			}
		}()
	}
	go func() { wg.Wait(); close(done) }()

	var werr error
	wdone := make(chan struct{})
	go func() {
		defer close(wdone)
		// Workers waiting for chunks go on once the writer is gone.
		defer p.chunks.stop()
		defer panicerr.Recover(&werr)
		werr = p.write(done, free, &stop, &worker[E]{d: dec.Clone(), enc: p.clone()})
	}()

	get := func() (*batch[E], bool) {
		select {
		case b := <-free:
			return b, true
		case <-wdone:
			return nil, false
		}
	}
	send := func(b *batch[E]) error {
		work <- b
		return nil
	}
	rerr := func() error {
		defer close(work)
		return p.readBatches(ctx, dec, &stop, get, send)
	}()
	if rerr != nil {
		stop.Store(true)
		p.chunks.stop()
	}
	<-wdone
	if rerr != nil {
		return rerr
	}
	return werr
}

// clone returns a clone of the encoder (nil if none).
func (p *run[E]) clone() Encoder[E] {
	if p.c.Encoder == nil {
		return nil
	}
	return p.c.Encoder.Clone()
}

// write takes rendered batches, puts them back in sequence order, writes
// them and counts their events, then recycles them. w renders what the
// workers left of a batch.
func (p *run[E]) write(done <-chan *batch[E], free chan<- *batch[E], stop *atomic.Bool, w *worker[E]) error {
	var err error
	inorder.Each(done, func(b *batch[E]) int { return b.seq }, func(b *batch[E]) {
		if err == nil && !stop.Load() {
			if err = p.finish(b, w); err != nil {
				stop.Store(true)
				p.chunks.stop()
			}
		}
		free <- b
	})
	if err == nil {
		err = p.flush()
	}
	return err
}

// maxPendingBatches bounds the full batches that wait for the final
// annotations of their last events (the enricher's window, 2048 events,
// spans about four batches of small events). Beyond it the enricher is
// flushed: stacks logged later than that for those events are lost.
const maxPendingBatches = 6

// enrichQueue feeds the enricher on the reading goroutine and holds full
// batches until every event in them has its final annotation.
type enrichQueue[E any] struct {
	e       *analysis.Enricher
	addrs   *slabPool[uint64]
	scratch []uint64       // the addresses of the annotation drain takes
	spare   analysis.Brief // the brief of an event not kept
	dec     *decode.Decoder
	peek    bool // no Config.Observe reads the enricher's decodings
	send    func(*batch[E]) error
	seq     int64          // sequence number of the next event pushed
	kept    []keptEvent[E] // from head on: kept events waiting for their annotation
	head    int
	pending []*batch[E]
}

type keptEvent[E any] struct {
	seq int64
	b   *batch[E]
	i   int
}

// push gives ev to the enricher (decoding it if the enricher reads its
// payload, unless nothing but the enricher reads it and the enricher can
// do without: PushIDs with q.peek) and returns the decoding (nil if
// none), valid until the next push, and the process and thread the
// enricher attributes ev.
func (q *enrichQueue[E]) push(ev *etl.Event) (res *decode.Result, pid, tid uint32) {
	q.seq++
	return q.e.PushIDs(ev, q.dec, q.peek)
}

// keep notes that the event just pushed was added to b. Its annotation
// is left for annotate to write (once, whole).
func (q *enrichQueue[E]) keep(b *batch[E]) {
	i := len(b.events) - 1
	if cap(b.ann) == 0 {
		b.ann = prefault.Make[keptAnnotation](batchEvents)[:0] // as batch.add's events
	}
	if i < cap(b.ann) {
		b.ann = b.ann[:i+1]
	} else {
		b.ann = append(b.ann, keptAnnotation{})
	}
	q.kept = append(q.kept, keptEvent[E]{q.seq - 1, b, i})
}

// drain records the final annotations and sends the batches they
// complete, in order.
func (q *enrichQueue[E]) drain() error {
	if len(q.pending) > maxPendingBatches {
		q.e.Flush()
	}
	for {
		// The brief is written where the oldest kept event keeps it:
		// if it is another event's (one not kept), the kept event's own
		// comes later and overwrites it, before the batch is sent.
		dst := &q.spare
		if q.head < len(q.kept) {
			k := &q.kept[q.head]
			dst = &k.b.ann[k.i].brief
		}
		addrs, ok := q.e.NextBrief(dst, q.scratch[:0])
		if !ok {
			break
		}
		q.scratch = addrs
		if q.head == len(q.kept) || q.kept[q.head].seq != dst.Seq {
			continue
		}
		k := q.kept[q.head]
		q.kept[q.head] = keptEvent[E]{}
		q.head++
		k.b.annotate(k.i, addrs, q.addrs)
	}
	if q.head == len(q.kept) {
		q.kept, q.head = q.kept[:0], 0
	} else if q.head >= 1024 && q.head > len(q.kept)/2 {
		// Move the rest down now and then (not at every event): the
		// queue keeps its storage and each event is moved O(1) times.
		n := copy(q.kept, q.kept[q.head:])
		clear(q.kept[n:])
		q.kept, q.head = q.kept[:n], 0
	}
	sent := 0
	var err error
	for sent < len(q.pending) && q.pending[sent].annotated == len(q.pending[sent].events) {
		b := q.pending[sent]
		sent++
		b.fix()
		if err = q.send(b); err != nil {
			break
		}
	}
	if sent > 0 {
		n := copy(q.pending, q.pending[sent:])
		clear(q.pending[n:])
		q.pending = q.pending[:n]
	}
	return err
}
