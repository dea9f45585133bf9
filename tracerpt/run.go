package tracerpt

import (
	"context"
	"errors"
	"io"
	"runtime"
	"sync"
	"sync/atomic"

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
	// (0: GOMAXPROCS). With 1, everything runs on the calling goroutine.
	// The reader loads buffers with the same number of goroutines.
	Workers int
	// Decoder finds schemas; nil means decode.New(). Run clones it for
	// each worker.
	Decoder *decode.Decoder
	// Prescanned tells Run that Decoder.Prescan has already read Files.
	// Otherwise Run calls it first, so that the EventSource manifests a
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
	if workers == 1 {
		err = p.runSequential(ctx, dec)
	} else {
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
	ends   []int32 // end of each event's rendering in out; -1: filtered out
	schema []*tdh.Event
}

type eventSpan struct {
	ud, udLen, extFirst, extN int32
}

const (
	batchEvents = 512
	batchBytes  = 1 << 20
)

func (b *batch) reset() {
	b.events, b.spans, b.ext, b.extOff, b.arena = b.events[:0], b.spans[:0], b.ext[:0], b.extOff[:0], b.arena[:0]
	b.out, b.ends, b.schema = b.out[:0], b.ends[:0], b.schema[:0]
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
		for p.r.Next() {
			ev := p.r.Event()
			p.st.Read++
			if err := p.tick(ctx, ev); err != nil {
				return err
			}
			if stop.Load() {
				return nil
			}
			if !p.f.MatchHeader(ev) {
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
			if cur.full() {
				cur.fix()
				work <- cur
				cur = nil
			}
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

// render decodes and renders the events of b.
func (p *pipeline) render(b *batch, d *decode.Decoder, enc Encoder) {
	needSchema := p.f.NeedsSchema()
	for i := range b.events {
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
		if enc != nil {
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
			if err == nil && !stop.Load() {
				err = p.writeBatch(b, &res)
				if err != nil {
					stop.Store(true)
				}
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
			p.c.Summary.Add(&b.events[i], res)
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
