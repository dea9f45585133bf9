package tables

import (
	"context"
	"io"
	"sync"
	"sync/atomic"

	"github.com/etwkit/etw/analysis"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/parquetout"
	"github.com/etwkit/etw/pipeline"
)

// The events table is the Parquet dump's (package parquetout: the same
// columns, rendered by its Encoder on the pipeline's workers) with three
// columns more: trace, utid and stack_id.
var eventColumns = []parquetout.Column{
	{Name: "trace", Bits: 32},
	{Name: "utid", Bits: 64, Optional: true},
	{Name: "stack_id", Bits: 64, Optional: true},
}

// eventsTable writes the events table. The pipeline's Written hook
// queues each event's trace, utid and stack id; the parquetout writer
// takes them, in the same order, for the rows of the records the
// pipeline writes next (both on the pipeline's writing goroutine).
type eventsTable struct {
	pw   *parquetout.Writer
	vals []int64 // queued values, len(eventColumns) per event
	head int
	rows int64
}

// newEventsTable starts the events table on out; next gives the files
// after the first when opts bound their rows.
func newEventsTable(out io.Writer, opts *Options, next func() (io.Writer, error)) (*eventsTable, error) {
	e := &eventsTable{}
	x := &parquetout.Extension{Columns: eventColumns, Values: e.next}
	if opts.MaxFileRows > 0 {
		x.MaxFileRows, x.NextFile = opts.MaxFileRows, next
	}
	pw, err := parquetout.NewExtendedWriter(out, &parquetout.Options{PageBufferSize: pageBufferSize, TempDir: opts.TempDir}, x)
	if err != nil {
		return nil, err
	}
	e.pw = pw
	return e, nil
}

// queue adds the values of the next row.
func (e *eventsTable) queue(trace int32, utid, stack int64) {
	if e.head == len(e.vals) {
		e.vals, e.head = e.vals[:0], 0
	}
	e.vals = append(e.vals, int64(trace), utid, stack)
}

// next takes the values of the next row (parquetout.Extension.Values).
func (e *eventsTable) next(dst []int64) {
	if e.head+len(dst) > len(e.vals) {
		// A record without its Written call: not from this package's
		// pipeline. Its ids are unknown.
		clear(dst)
		return
	}
	copy(dst, e.vals[e.head:])
	e.head += len(dst)
	e.rows++
}

// run is the trace's second pass: the pipeline writes every event to the
// events table (rendered by parquetout's Encoder on its workers) and, in
// the same pass, the observers write the samples, stacks, frames, disk
// I/O and packets.
func (t *traceState) run(ctx context.Context, dec *decode.Decoder) (pipeline.Stats, error) {
	ev := t.w.events
	var counter pipeline.Counter
	if t.agg != nil {
		counter = t.agg
	}
	enc := parquetout.NewEncoder(t.files, false)
	ev.pw.SetEncoder(enc)
	return pipeline.Run(ctx, &pipeline.Config[byte]{
		Counter:       counter,
		Files:         t.files,
		Workers:       t.w.opts.Workers,
		Decoder:       dec,
		Prescanned:    true,
		Encoder:       enc,
		Output:        ev.pw,
		Analysis:      t.m,
		ObserveDecode: needsIODecode,
		Observe: func(e *etl.Event, res *decode.Result) error {
			if analysis.IsCPUSample(e, res) {
				t.sampleSeqs.push(t.read)
			}
			t.read++
			return t.observeIO(e, res)
		},
		Written: func(e *etl.Event, a *analysis.Annotation) error {
			var utid, stack int64
			if a != nil {
				utid = t.utid(a)
				var err error
				if stack, err = t.stackID(a.Stack); err != nil {
					return err
				}
				if t.sampleSeqs.take(a.Seq) {
					if err := t.sample(int32(e.Processor), utid, stack, a); err != nil {
						return err
					}
				}
			}
			ev.queue(t.id, utid, stack)
			return nil
		},
	})
}

// sampleQueue holds the sequence numbers (analysis.Annotation.Seq) of
// the CPU samples read and not yet written, in order: the reading
// goroutine pushes each sample's before the event goes on to be written,
// the writing goroutine takes them as their events come. The writer
// compares each event with the first without the lock.
type sampleQueue struct {
	mu   sync.Mutex
	seqs []int64
	head atomic.Int64 // seqs[0] + 1; 0 when empty
}

// push adds the sequence number of a sample read.
func (q *sampleQueue) push(seq int64) {
	q.mu.Lock()
	if len(q.seqs) == 0 {
		q.head.Store(seq + 1)
	}
	q.seqs = append(q.seqs, seq)
	q.mu.Unlock()
}

// take reports whether the event of sequence number seq is the next
// sample not written, and takes it. Every event must come to take, in
// order: only take removes the first, so a first equal to seq stays
// until the lock is held.
func (q *sampleQueue) take(seq int64) bool {
	if q.head.Load() != seq+1 {
		return false
	}
	q.mu.Lock()
	q.seqs = q.seqs[1:]
	if len(q.seqs) == 0 {
		q.head.Store(0)
	} else {
		q.head.Store(q.seqs[0] + 1)
	}
	q.mu.Unlock()
	return true
}
