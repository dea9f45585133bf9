package tracerpt

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/etwkit/etw/analysis"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/tdh"
)

// Config says what Run reads, how it filters and what it writes.
type Config struct {
	// Files are read together, merged in Order.
	Files []*etl.File
	Order etl.Order
	// Workers is the number of goroutines that decode and render events
	// (0: GOMAXPROCS; more than etl.MaxWorkers is an error). With 1,
	// everything runs on the calling goroutine. The reader loads buffers
	// with the same number of goroutines.
	Workers int
	// Decoder finds schemas; nil means decode.New(). Run clones it for
	// each worker.
	Decoder *decode.Decoder
	// Prescanned tells Run that the schemas Files carry are registered
	// already (Decoder.Prescan, or a decode.Prescanner fed by another
	// pass, such as the analysis model's). Otherwise Run prescans first, so that the EventSource manifests a
	// trace carries are registered before any event is decoded and the
	// output does not depend on the order in which workers decode.
	Prescanned bool
	// Filter selects events; nil passes everything.
	Filter *Filter
	// Encoder renders events to Output; nil writes no dump.
	Encoder Encoder
	Output  io.Writer
	// Summary, if set, counts the events written.
	Summary *Summary
	// Warn is called, on the calling goroutine, for each damaged buffer or
	// record as the reader meets it (an *etl.FormatError naming the file
	// and offset).
	Warn func(error)
	// Strict makes the first damaged buffer or record fatal: Run stops
	// and returns a *CorruptError.
	Strict bool
	// Progress, if set, is called now and then with the bytes of input
	// read so far and the total.
	Progress func(done, total int64)
	// Analysis, if set with an AnnotatingEncoder (JSON, Parquet), annotates
	// each event from the model (built from the same files): "pid" and
	// "tid" where the header has none, "process_name" and "stack"
	// (docs/cli.md). Every event read
	// goes through an analysis.Enricher, filtered or not, so that stacks
	// logged by separate events reach the events they belong to.
	Analysis *analysis.Model
}

// Stats reports what Run did.
type Stats struct {
	Read    int     // events delivered by the reader
	Written int     // events rendered (and counted by the summary)
	Errors  []error // damaged buffers and records
}

// CorruptError is returned by Run in strict mode for the first damaged
// buffer or record.
type CorruptError struct{ Err error }

// Error describes the damage, with the file and offset.
func (e *CorruptError) Error() string { return "corrupt input: " + e.Err.Error() }

// Unwrap returns the reader's *etl.FormatError.
func (e *CorruptError) Unwrap() error { return e.Err }

// errLimit stops the pipeline once MaxEvents are written.
var errLimit = errors.New("event limit reached")

// Run reads every event of c.Files, keeps those c.Filter selects, renders
// them with c.Encoder to c.Output and counts them in c.Summary. Decoding
// and rendering run on c.Workers goroutines; the output is the same bytes
// whatever their number. Run returns when the input is exhausted, the
// event limit is reached, ctx is cancelled, writing fails, or (strict) the
// input is damaged.
func Run(ctx context.Context, c *Config) (Stats, error) {
	workers := c.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if c.Workers > etl.MaxWorkers {
		return Stats{}, fmt.Errorf("tracerpt: %d workers: at most %d", c.Workers, etl.MaxWorkers)
	}
	dec := c.Decoder
	if dec == nil {
		dec = decode.New()
	}
	f := c.Filter
	if f == nil {
		f = &Filter{}
	}
	if !c.Prescanned {
		if err := dec.Prescan(c.Files); err != nil && c.Warn != nil {
			c.Warn(err)
		}
	}
	// Bounds on schema state reached while decoding (EventSource chunks
	// dropped, TraceLogging cache full) are warnings.
	defer func() {
		if c.Warn != nil {
			for _, w := range dec.Warnings() {
				c.Warn(w)
			}
		}
	}()
	r := etl.NewReader(c.Files, &etl.ReaderOptions{Order: c.Order, Workers: workers})
	defer r.Close()
	p := &pipeline{c: c, f: f, r: r}
	for _, fl := range c.Files {
		p.total += fl.Size()
	}
	p.offsets = make([]int64, len(c.Files))
	if c.Encoder != nil {
		p.out = c.Encoder.Begin(nil)
		if err := p.flush(); err != nil {
			return p.st, err
		}
	}
	var err error
	je, _ := c.Encoder.(*JSONEncoder)
	ae, _ := c.Encoder.(AnnotatingEncoder)
	switch {
	case c.Analysis != nil && je != nil && workers == 1:
		err = p.runSequentialEnriched(ctx, dec, je)
	case workers == 1 && (c.Analysis == nil || ae == nil):
		err = p.runSequential(ctx, dec)
	default:
		if c.Analysis != nil && ae != nil {
			p.enrich = c.Analysis.NewEnricher(nil)
		}
		err = p.runParallel(ctx, dec, workers)
	}
	if e := p.checkErrors(); e != nil && err == nil {
		err = e
	}
	if errors.Is(err, errLimit) {
		err = nil
	}
	if err == nil && c.Encoder != nil {
		p.out = c.Encoder.End(p.out[:0])
		err = p.flush()
	}
	if c.Progress != nil && err == nil {
		c.Progress(p.total, p.total)
	}
	return p.st, err
}

type pipeline struct {
	c       *Config
	f       *Filter
	r       *etl.Reader
	st      Stats
	out     []byte
	total   int64
	offsets []int64 // furthest buffer offset per file, for progress
	nerr    int
	enrich  *analysis.Enricher // parallel runs with Config.Analysis
	wdec    *decode.Decoder    // the writer's, for the rest of a batch
	wenc    Encoder            // whose rendering passed batchOutBytes
}

func (p *pipeline) flush() error {
	if len(p.out) == 0 || p.c.Output == nil {
		return nil
	}
	_, err := p.c.Output.Write(p.out)
	p.out = p.out[:0]
	return err
}

// tick runs every few thousand events on the reading goroutine: new
// reader errors become warnings, progress is reported, ctx is checked.
func (p *pipeline) tick(ctx context.Context, ev *etl.Event) error {
	if ev.File >= 0 && ev.File < len(p.offsets) && ev.BufferOffset > p.offsets[ev.File] {
		p.offsets[ev.File] = ev.BufferOffset
	}
	if p.st.Read&4095 != 0 {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if p.c.Progress != nil {
		var done int64
		for _, o := range p.offsets {
			done += o
		}
		p.c.Progress(done, p.total)
	}
	return p.checkErrors()
}

// checkErrors reports reader errors not yet reported.
func (p *pipeline) checkErrors() error {
	errs := p.r.Errors()
	if len(errs) == p.nerr {
		return nil
	}
	for _, e := range errs[p.nerr:] {
		p.st.Errors = append(p.st.Errors, e)
		if p.c.Summary != nil {
			p.c.Summary.Corrupt++
		}
		if p.c.Warn != nil {
			p.c.Warn(e)
		}
	}
	first := errs[p.nerr]
	p.nerr = len(errs)
	if p.c.Strict {
		return &CorruptError{first}
	}
	return nil
}

// runSequential decodes and renders on the calling goroutine.
func (p *pipeline) runSequential(ctx context.Context, dec *decode.Decoder) error {
	enc := p.c.Encoder
	needSchema := p.f.NeedsSchema()
	for p.r.Next() {
		ev := p.r.Event()
		p.st.Read++
		if err := p.tick(ctx, ev); err != nil {
			return err
		}
		if !p.f.MatchHeader(ev) {
			continue
		}
		res := dec.Decode(ev)
		if needSchema && !p.f.MatchSchema(ev, res.Schema) {
			continue
		}
		n := len(p.out)
		if enc != nil {
			p.out = enc.AppendEvent(p.out, ev, res)
			if len(p.out) == n {
				continue // not rendered in this format (error record)
			}
		} else if ev.Header == etl.HeaderError {
			continue
		}
		if p.c.Summary != nil {
			p.c.Summary.Add(ev, res)
		}
		p.st.Written++
		if len(p.out) >= 256<<10 {
			if err := p.flush(); err != nil {
				return err
			}
		}
		if p.f.MaxEvents > 0 && p.st.Written >= p.f.MaxEvents {
			if err := p.flush(); err != nil {
				return err
			}
			return errLimit
		}
	}
	return p.flush()
}

// A batch carries copies of consecutive events from the reader to a
// worker and their rendering from the worker to the writer.
type batch struct {
	seq    int
	events []etl.Event
	spans  []eventSpan
	ext    []etl.ExtendedItem
	extOff []int32
	arena  []byte

	out    []byte
	base   int     // index of the event whose rendering starts out
	ends   []int32 // end of the rendering of event base+i in out; -1: filtered out
	schema []*tdh.Event
	err    error // rendering failed (an overflow)

	// With Config.Analysis: each event's annotation, its stack in frames.
	ann       []analysis.Annotation
	stack     [][2]int32 // offset and length in frames
	frames    []analysis.Frame
	annotated int
}

type eventSpan struct {
	ud, udLen, extFirst, extN int32
}

const (
	batchEvents = 512
	batchBytes  = 1 << 20
	// batchOutBytes bounds a batch's rendering: a worker stops there (one
	// event's rendering is bounded by tdh.MaxTextBytes and
	// tdh.MaxMessageBytes) and the writer renders the rest of the batch
	// in parts of this size, in order.
	batchOutBytes = 16 << 20
)

func (b *batch) reset() {
	b.events, b.spans, b.ext, b.extOff, b.arena = b.events[:0], b.spans[:0], b.ext[:0], b.extOff[:0], b.arena[:0]
	b.out, b.ends, b.schema, b.base, b.err = b.out[:0], b.ends[:0], b.schema[:0], 0, nil
	clear(b.ann)
	clear(b.frames)
	b.ann, b.stack, b.frames, b.annotated = b.ann[:0], b.stack[:0], b.frames[:0], 0
}

// annotate records the final annotation of the batch's event i.
func (b *batch) annotate(i int, a *analysis.Annotation) {
	b.ann[i] = *a
	b.ann[i].Stack = nil
	b.stack[i] = [2]int32{int32(len(b.frames)), int32(len(a.Stack))}
	b.frames = append(b.frames, a.Stack...)
	b.annotated++
}

func (b *batch) full() bool { return len(b.events) >= batchEvents || len(b.arena) >= batchBytes }

// add copies ev (its payload and extended items) into the batch.
func (b *batch) add(ev *etl.Event) {
	sp := eventSpan{ud: int32(len(b.arena)), udLen: int32(len(ev.UserData)), extFirst: int32(len(b.ext)), extN: int32(len(ev.Extended))}
	b.arena = append(b.arena, ev.UserData...)
	for _, x := range ev.Extended {
		b.extOff = append(b.extOff, int32(len(b.arena)))
		b.arena = append(b.arena, x.Data...)
		b.ext = append(b.ext, etl.ExtendedItem{Type: x.Type})
		b.extOff = append(b.extOff, int32(len(x.Data)))
	}
	e := *ev
	e.UserData, e.Extended, e.Raw = nil, nil, nil
	b.events = append(b.events, e)
	b.spans = append(b.spans, sp)
}

// fix points the copied events' slices into the arena, once it no longer
// grows.
func (b *batch) fix() {
	for i := range b.ext {
		off, n := b.extOff[2*i], b.extOff[2*i+1]
		b.ext[i].Data = b.arena[off : off+n : off+n]
	}
	for i := range b.events {
		sp := b.spans[i]
		e := &b.events[i]
		e.UserData = b.arena[sp.ud : sp.ud+sp.udLen : sp.ud+sp.udLen]
		if sp.extN > 0 {
			e.Extended = b.ext[sp.extFirst : sp.extFirst+sp.extN : sp.extFirst+sp.extN]
		}
	}
}

// runParallel reads on the calling goroutine, decodes and renders batches
// on workers, and writes them in order on a writer goroutine. The number
// of batches in flight is fixed, which bounds memory.
func (p *pipeline) runParallel(ctx context.Context, dec *decode.Decoder, workers int) error {
	nb := 4 * workers
	if p.enrich != nil {
		// The reader holds up to maxPendingBatches full batches and the
		// one it fills; one more keeps the pipeline moving.
		nb = max(nb, maxPendingBatches+2)
	}
	free := make(chan *batch, nb)
	for i := 0; i < nb; i++ {
		free <- &batch{}
	}
	work := make(chan *batch, nb)
	done := make(chan *batch, nb)
	var stop atomic.Bool
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		d := dec.Clone()
		var enc Encoder
		if p.c.Encoder != nil {
			enc = p.c.Encoder.Clone()
		}
		go func() {
			defer wg.Done()
			for b := range work {
				if !stop.Load() {
					p.render(b, d, enc)
				}
				done <- b
			}
		}()
	}
	go func() { wg.Wait(); close(done) }()
	p.wdec = dec.Clone()
	if p.c.Encoder != nil {
		p.wenc = p.c.Encoder.Clone()
	}

	var werr error
	wdone := make(chan struct{})
	go func() {
		defer close(wdone)
		werr = p.write(done, free, &stop)
	}()

	rerr := func() error {
		defer close(work)
		seq := 0
		var cur *batch
		var en *enrichQueue
		if p.enrich != nil {
			en = &enrichQueue{e: p.enrich, dec: dec.Clone(), work: work}
		}
		for p.r.Next() {
			ev := p.r.Event()
			p.st.Read++
			if err := p.tick(ctx, ev); err != nil {
				return err
			}
			if stop.Load() {
				return nil
			}
			keep := p.f.MatchHeader(ev)
			if en != nil {
				en.push(ev)
			}
			if !keep {
				if en != nil {
					en.drain()
				}
				continue
			}
			if cur == nil {
				select {
				case cur = <-free:
				case <-wdone:
					return nil
				}
				cur.reset()
				cur.seq = seq
				seq++
			}
			cur.add(ev)
			if en != nil {
				en.keep(cur)
				if cur.full() {
					en.pending = append(en.pending, cur)
					cur = nil
				}
				en.drain()
				continue
			}
			if cur.full() {
				cur.fix()
				work <- cur
				cur = nil
			}
		}
		if en != nil {
			if cur != nil {
				en.pending = append(en.pending, cur)
			}
			en.e.Flush()
			en.drain()
			return nil
		}
		if cur != nil {
			cur.fix()
			work <- cur
		}
		return nil
	}()
	if rerr != nil {
		stop.Store(true)
	}
	<-wdone
	if rerr != nil {
		return rerr
	}
	return werr
}

// render decodes and renders the events of b from event b.base+len(b.ends)
// on, until the rendering passes batchOutBytes.
func (p *pipeline) render(b *batch, d *decode.Decoder, enc Encoder) {
	needSchema := p.f.NeedsSchema()
	for i := b.base + len(b.ends); i < len(b.events) && len(b.out) < batchOutBytes; i++ {
		ev := &b.events[i]
		res := d.Decode(ev)
		var s *tdh.Event
		if res != nil {
			s = res.Schema
		}
		if needSchema && !p.f.MatchSchema(ev, s) {
			b.ends = append(b.ends, -1)
			b.schema = append(b.schema, nil)
			continue
		}
		n := len(b.out)
		if ae, ok := enc.(AnnotatingEncoder); ok && len(b.ann) > i {
			a := &b.ann[i]
			off, cnt := b.stack[i][0], b.stack[i][1]
			a.Stack = b.frames[off : off+cnt : off+cnt]
			b.out = ae.AppendAnnotatedEvent(b.out, ev, res, a)
		} else if enc != nil {
			b.out = enc.AppendEvent(b.out, ev, res)
			if len(b.out) == n {
				b.ends = append(b.ends, -1)
				b.schema = append(b.schema, nil)
				continue
			}
		} else if ev.Header == etl.HeaderError {
			b.ends = append(b.ends, -1)
			b.schema = append(b.schema, nil)
			continue
		}
		if len(b.out) > math.MaxInt32 {
			b.err = fmt.Errorf("tracerpt: the rendering of %d events passed 2 GiB", i+1-b.base)
			return
		}
		b.ends = append(b.ends, int32(len(b.out)))
		b.schema = append(b.schema, s)
	}
}

// write takes rendered batches, puts them back in sequence order, writes
// them and counts their events, then recycles them.
func (p *pipeline) write(done <-chan *batch, free chan<- *batch, stop *atomic.Bool) error {
	pending := map[int]*batch{}
	next := 0
	var err error
	var res decode.Result
	for b := range done {
		pending[b.seq] = b
		for {
			b, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			next++
			for err == nil && !stop.Load() {
				if err = b.err; err == nil {
					err = p.writeBatch(b, &res)
				}
				if err != nil {
					stop.Store(true)
					break
				}
				if b.base+len(b.ends) == len(b.events) {
					break
				}
				// The rendering passed batchOutBytes: render the rest
				// here, part by part.
				b.base += len(b.ends)
				b.out, b.ends, b.schema = b.out[:0], b.ends[:0], b.schema[:0]
				p.render(b, p.wdec, p.wenc)
			}
			free <- b
		}
	}
	if err == nil {
		err = p.flush()
	}
	return err
}

// writeBatch writes the rendering of b's kept events (they are contiguous
// in b.out) up to the event limit, and counts them.
func (p *pipeline) writeBatch(b *batch, res *decode.Result) error {
	limit := p.f.MaxEvents
	cut := int32(len(b.out))
	var stopErr error
	for i, end := range b.ends {
		if end < 0 {
			continue
		}
		if p.c.Summary != nil {
			res.Schema = b.schema[i]
			p.c.Summary.Add(&b.events[b.base+i], res)
		}
		p.st.Written++
		if limit > 0 && p.st.Written >= limit {
			cut, stopErr = end, errLimit
			break
		}
	}
	if err := p.flush(); err != nil {
		return err
	}
	if cut > 0 && p.c.Output != nil {
		if _, err := p.c.Output.Write(b.out[:cut]); err != nil {
			return err
		}
	}
	return stopErr
}

// maxPendingBatches bounds the full batches that wait for the final
// annotations of their last events (the enricher's window, 2048 events,
// spans about four batches of small events). Beyond it the enricher is
// flushed: stacks logged later than that for those events are lost.
const maxPendingBatches = 6

// enrichQueue feeds the enricher on the reading goroutine and holds full
// batches until every event in them has its final annotation.
type enrichQueue struct {
	e       *analysis.Enricher
	dec     *decode.Decoder
	work    chan<- *batch
	seq     int64       // sequence number of the next event pushed
	kept    []keptEvent // from head on: kept events waiting for their annotation
	head    int
	pending []*batch
}

type keptEvent struct {
	seq int64
	b   *batch
	i   int
}

// push gives ev to the enricher (decoding it if the enricher reads its
// payload).
func (q *enrichQueue) push(ev *etl.Event) {
	var res *decode.Result
	if q.e.NeedsDecode(ev) {
		res = q.dec.Decode(ev)
	}
	q.e.Push(ev, res)
	q.seq++
}

// keep notes that the event just pushed was added to b.
func (q *enrichQueue) keep(b *batch) {
	i := len(b.events) - 1
	b.ann = append(b.ann, analysis.Annotation{})
	b.stack = append(b.stack, [2]int32{})
	q.kept = append(q.kept, keptEvent{q.seq - 1, b, i})
}

// drain records the final annotations and sends the batches they
// complete, in order.
func (q *enrichQueue) drain() {
	if len(q.pending) > maxPendingBatches {
		q.e.Flush()
	}
	for a, ok := q.e.Next(); ok; a, ok = q.e.Next() {
		if q.head == len(q.kept) || q.kept[q.head].seq != a.Seq {
			continue
		}
		k := q.kept[q.head]
		q.kept[q.head] = keptEvent{}
		q.head++
		k.b.annotate(k.i, a)
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
	for sent < len(q.pending) && q.pending[sent].annotated == len(q.pending[sent].events) {
		b := q.pending[sent]
		sent++
		b.fix()
		q.work <- b
	}
	if sent > 0 {
		n := copy(q.pending, q.pending[sent:])
		clear(q.pending[n:])
		q.pending = q.pending[:n]
	}
}

// runSequentialEnriched is runSequential with analysis annotations: every
// event read goes through the enricher; a kept event is rendered at once
// but for its stack and closing brace, added when its annotation is final.
func (p *pipeline) runSequentialEnriched(ctx context.Context, dec *decode.Decoder, je *JSONEncoder) error {
	e := p.c.Analysis.NewEnricher(nil)
	needSchema := p.f.NeedsSchema()
	type openEvent struct {
		seq        int64
		start, end int
	}
	var pend []byte
	var open []openEvent
	var seq int64
	drain := func() error {
		for a, ok := e.Next(); ok; a, ok = e.Next() {
			if len(open) == 0 || open[0].seq != a.Seq {
				continue
			}
			o := open[0]
			open = open[1:]
			p.out = append(p.out, pend[o.start:o.end]...)
			p.out = je.appendStack(p.out, a.Stack)
			p.out = append(p.out, '}', '\n')
			if len(p.out) >= 256<<10 {
				if err := p.flush(); err != nil {
					return err
				}
			}
		}
		if len(open) == 0 {
			pend = pend[:0]
		} else if s := open[0].start; s > 1<<20 && s > len(pend)/2 {
			n := copy(pend, pend[s:])
			pend = pend[:n]
			for i := range open {
				open[i].start -= s
				open[i].end -= s
			}
		}
		return nil
	}
	finish := func() error {
		e.Flush()
		if err := drain(); err != nil {
			return err
		}
		return p.flush()
	}
	for p.r.Next() {
		ev := p.r.Event()
		p.st.Read++
		if err := p.tick(ctx, ev); err != nil {
			return err
		}
		keep := p.f.MatchHeader(ev)
		var res *decode.Result
		if keep || e.NeedsDecode(ev) {
			res = dec.Decode(ev)
		}
		if keep && needSchema && !p.f.MatchSchema(ev, res.Schema) {
			keep = false
		}
		a := e.Push(ev, res)
		if keep {
			start := len(pend)
			pend = je.appendEvent(pend, ev, res, &a)
			open = append(open, openEvent{seq, start, len(pend)})
			if p.c.Summary != nil {
				p.c.Summary.Add(ev, res)
			}
			p.st.Written++
		}
		seq++
		if err := drain(); err != nil {
			return err
		}
		if p.f.MaxEvents > 0 && p.st.Written >= p.f.MaxEvents {
			if err := finish(); err != nil {
				return err
			}
			return errLimit
		}
	}
	return finish()
}
