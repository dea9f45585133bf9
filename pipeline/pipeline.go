// Package pipeline reads the events of ETW trace files, decodes, filters
// and annotates them, has an Encoder render them on several goroutines and
// writes the renderings in order, with bounded memory. It knows no output
// format: an Encoder renders into a slice of any element type, bytes for
// text formats (tracerpt's XML, CSV and JSON Lines), rows for columnar ones
// (package parquetout), and a Writer takes the renderings in order.
//
// The output does not depend on the number of goroutines: with one, Run
// does everything on the calling goroutine.
package pipeline

import (
	"context"
	"errors"
	"fmt"
	"runtime"

	"github.com/etwkit/etw/analysis"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/tdh"
)

// Encoder renders events as elements of type E (bytes, rows) appended to a
// slice, so that Run controls buffering and renders on several goroutines
// (one Encoder each, from Clone) and writes in order.
type Encoder[E any] interface {
	// Begin appends what comes before the first event (XML root, CSV
	// header line).
	Begin(dst []E) []E
	// AppendEvent appends one event. res is its decoding (nil when not
	// decoded); a is what the analysis model says of it (Config.Analysis;
	// nil without a model). It may append nothing: the event is then not
	// written nor counted (tracerpt's formats skip error records).
	AppendEvent(dst []E, ev *etl.Event, res *decode.Result, a *analysis.Annotation) []E
	// End appends what comes after the last event.
	End(dst []E) []E
	// Clone returns an encoder with the same settings, for another
	// goroutine.
	Clone() Encoder[E]
}

// Writer takes the renderings, in order. An io.Writer is a Writer[byte].
type Writer[E any] interface {
	Write(p []E) (int, error)
}

// BuffersWriter is implemented by Writers that take several slices in one
// call, as writev(2) does: Run then gives it a batch's rendering (parts
// of about 192 KiB, up to about 1 MiB in all) at once instead of a part
// at a time. It returns the elements written; fewer than the slices hold
// only with an error.
type BuffersWriter[E any] interface {
	WriteBuffers(bufs [][]E) (int, error)
}

// Sizer is implemented by encoders whose elements hold more than their
// own size (rows with strings): Size returns the bytes that the elements
// rendered hold, which bound a batch's rendering. Without it an element
// counts for one byte.
type Sizer[E any] interface {
	Size(rendered []E) int
}

// Counter counts what Run writes (tracerpt's summary).
type Counter interface {
	// Count counts an event written; s is its schema (nil if none).
	Count(ev *etl.Event, s *tdh.Event)
	// Damaged counts a damaged buffer or record.
	Damaged(err error)
}

// Config says what Run reads, how it filters and what it writes.
type Config[E any] struct {
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
	// pass, such as the analysis model's: see Prepare). Otherwise Run
	// prescans first, so that the EventSource manifests a trace carries
	// are registered before any event is decoded and the output does not
	// depend on the order in which workers decode.
	Prescanned bool
	// Filter selects events; nil passes everything.
	Filter *Filter
	// Encoder renders events to Output; nil writes no dump.
	Encoder Encoder[E]
	Output  Writer[E]
	// Counter, if set, counts the events written and the damage met.
	Counter Counter
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
	// Analysis, if set, annotates each event from the model (built from
	// the same files) for the Encoder: ids the header lacks, the process,
	// the resolved stack. Every event read goes through an
	// analysis.Enricher, filtered or not, so that stacks logged by
	// separate events reach the events they belong to. Leave it nil for
	// encoders that write no annotation: it costs time.
	Analysis *analysis.Model
	// Observe and Written let a caller share the pass (see observe.go):
	// Observe sees every event read, Written every event written with its
	// annotation.
	Observe       func(ev *etl.Event, res *decode.Result) error
	ObserveDecode func(ev *etl.Event) bool
	Written       func(ev *etl.Event, a *analysis.Annotation) error
}

// Stats reports what Run did.
type Stats struct {
	Read    int           // events delivered by the reader
	Written int           // events rendered (and counted by the Counter)
	Errors  etl.ErrorList // damaged buffers and records
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

// flushBytes is when the calling goroutine's rendering goes to Output.
const flushBytes = 256 << 10

// Run reads every event of c.Files, keeps those c.Filter selects, renders
// them with c.Encoder to c.Output and counts them with c.Counter.
// Decoding and rendering run on c.Workers goroutines; the output is the
// same whatever their number. Run returns when the input is exhausted,
// the event limit is reached, ctx is cancelled, writing fails, or
// (strict) the input is damaged.
func Run[E any](ctx context.Context, c *Config[E]) (Stats, error) {
	workers := c.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if c.Workers > etl.MaxWorkers {
		return Stats{}, fmt.Errorf("pipeline: %d workers: at most %d", c.Workers, etl.MaxWorkers)
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
	// Windows: over many inputs the dumps' memory peaks in this pass, and
	// the merge's buffers are what grows with the number of inputs.
	r := etl.NewReader(c.Files, &etl.ReaderOptions{Order: c.Order, Workers: workers, Windows: true})
	defer r.Close()
	p := &run[E]{c: c, f: f, r: r, needSchema: f.NeedsSchema(), chunks: newChunkPool[E](workers), slabs: newSlabs()}
	p.sizer, _ = c.Encoder.(Sizer[E])
	if c.Analysis != nil && c.Written != nil {
		// The writer takes the stacks the workers resolved.
		p.slabs.frames = &sharedFrames{p: slabPool[analysis.Frame]{size: frameChunk}}
	}
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
	switch {
	case workers == 1 && c.Analysis == nil:
		err = p.runSequential(ctx, dec)
	case workers == 1:
		err = p.runBatches(ctx, dec, c.Encoder)
	default:
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

// run is one Run in progress.
type run[E any] struct {
	c          *Config[E]
	f          *Filter
	needSchema bool
	sizer      Sizer[E]
	chunks     *chunkPool[E] // the batches' rendering storage
	slabs      *slabs        // the batches' payloads and stacks (the reading goroutine's)
	r          *etl.Reader
	st         Stats
	out        []E // the calling goroutine's rendering
	total      int64
	offsets    []int64 // furthest buffer offset per file, for progress
	nerr       int
}

func (p *run[E]) flush() error {
	if len(p.out) == 0 || p.c.Output == nil {
		p.out = p.out[:0]
		return nil
	}
	_, err := p.c.Output.Write(p.out)
	p.out = p.out[:0]
	return err
}

// tick runs every few thousand events on the reading goroutine: new
// reader errors become warnings, progress is reported, ctx is checked.
func (p *run[E]) tick(ctx context.Context, ev *etl.Event) error {
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
func (p *run[E]) checkErrors() error {
	errs := p.r.Errors()
	if len(errs) == p.nerr {
		return nil
	}
	for _, e := range errs[p.nerr:] {
		p.st.Errors = append(p.st.Errors, e)
		if p.c.Counter != nil {
			p.c.Counter.Damaged(e)
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

// render decodes ev with d (unless res, its decoding with d, is given),
// checks the filter's schema criteria and renders it with enc (annotated
// with a) at the end of out. It returns the event's schema and whether the
// event is to be written. Sequential and parallel runs render every event
// through it.
func (p *run[E]) render(out []E, d *decode.Decoder, enc Encoder[E], ev *etl.Event, res *decode.Result, a *analysis.Annotation) ([]E, *tdh.Event, bool) {
	if res == nil {
		res = d.Decode(ev)
	}
	var s *tdh.Event
	if res != nil {
		s = res.Schema
	}
	if p.needSchema && !p.f.MatchSchema(ev, s) {
		return out, nil, false
	}
	if enc == nil {
		return out, s, ev.Header != etl.HeaderError
	}
	n := len(out)
	out = enc.AppendEvent(out, ev, res, a)
	return out, s, len(out) != n
}

// count counts an event written (its schema s) and reports whether the
// event limit is reached. Sequential and parallel runs count every event
// through it, in output order.
func (p *run[E]) count(ev *etl.Event, s *tdh.Event) bool {
	if p.c.Counter != nil {
		p.c.Counter.Count(ev, s)
	}
	p.st.Written++
	return p.f.MaxEvents > 0 && p.st.Written >= p.f.MaxEvents
}

// runSequential reads, decodes and renders on the calling goroutine,
// straight from the reader's events (no copies).
func (p *run[E]) runSequential(ctx context.Context, dec *decode.Decoder) error {
	enc := p.c.Encoder
	held := 0 // bytes in p.out
	for p.r.Next() {
		ev := p.r.Event()
		p.st.Read++
		if err := p.tick(ctx, ev); err != nil {
			return err
		}
		// An event Observe asked to be decoded is decoded once: nothing
		// decodes with dec between observe and render.
		res := p.observeDecoded(ev, dec)
		if err := p.observed(ev, res); err != nil {
			return err
		}
		if !p.f.MatchHeader(ev) {
			continue
		}
		var s *tdh.Event
		var ok bool
		n := len(p.out)
		if p.out, s, ok = p.render(p.out, dec, enc, ev, res, nil); !ok {
			continue
		}
		held += p.size(p.out[n:])
		if err := p.written(ev, nil); err != nil {
			return err
		}
		if p.count(ev, s) {
			if err := p.flush(); err != nil {
				return err
			}
			return errLimit
		}
		if held >= flushBytes {
			held = 0
			if err := p.flush(); err != nil {
				return err
			}
		}
	}
	return p.flush()
}

// size returns the bytes the elements of out hold (Sizer).
func (p *run[E]) size(out []E) int {
	if p.sizer != nil {
		return p.sizer.Size(out)
	}
	return len(out)
}
