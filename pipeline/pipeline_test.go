package pipeline_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/etwkit/etw/analysis"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/etltest"
	"github.com/etwkit/etw/internal/panicerr"
	"github.com/etwkit/etw/pipeline"
	"github.com/etwkit/etw/tdh"
)

// row is what rowEncoder renders of an event: a typed element, not bytes.
type row struct {
	time    int64
	id      uint16
	pid     uint32
	process string
	frames  int
	schema  bool
}

// rowEncoder renders rows and counts its clones.
type rowEncoder struct{ clones *atomic.Int32 }

func (e rowEncoder) Begin(dst []row) []row { return append(dst, row{id: 0xFFFF}) }
func (e rowEncoder) End(dst []row) []row   { return append(dst, row{id: 0xFFFE}) }
func (e rowEncoder) Clone() pipeline.Encoder[row] {
	e.clones.Add(1)
	return e
}

func (e rowEncoder) AppendEvent(dst []row, ev *etl.Event, res *decode.Result, a *analysis.Annotation) []row {
	if ev.Header == etl.HeaderError {
		return dst
	}
	r := row{time: ev.Time, id: ev.Descriptor.ID, pid: ev.ProcessID, schema: res != nil && res.Schema != nil}
	if a != nil {
		r.pid, _ = a.IDs(ev.ProcessID, ev.ThreadID)
		if p := a.ProcessOf(r.pid); p != nil {
			r.process = p.ImageFileName
		}
		r.frames = len(a.Stack)
	}
	return append(dst, r)
}

// rows collects what Run writes.
type rows struct{ got []row }

func (w *rows) Write(p []row) (int, error) {
	w.got = append(w.got, p...)
	return len(p), nil
}

// counter counts what Run counts.
type counter struct{ events, schemas int }

func (c *counter) Count(ev *etl.Event, s *tdh.Event) {
	c.events++
	if s != nil {
		c.schemas++
	}
}
func (c *counter) Damaged(error) {}

// TestRunSameWhateverTheWorkers: a typed (non-byte) rendering, with and
// without the analysis model, filtered and limited, is the same with 1, 2
// and 3 workers; one worker clones nothing (everything runs on the calling
// goroutine); what is counted is what is written.
func TestRunSameWhateverTheWorkers(t *testing.T) {
	path := etltest.CorpusFile(t, "microsoft+perfview/src/TraceEvent/TraceEvent.Tests/inputs/net.4.5.2.x64.etl.zip.unzipped/net.4.5.2.x64.etl")
	files := etltest.OpenFiles(t, path)
	model, err := analysis.Build(files, decode.New(), nil)
	if model == nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name     string
		model    *analysis.Model
		filter   *pipeline.Filter
		min, max int
	}{
		{"all", nil, nil, 100, 0},
		{"analysis", model, nil, 100, 0},
		{"limit", model, &pipeline.Filter{MaxEvents: 57}, 57, 57},
		{"kernel", nil, &pipeline.Filter{Providers: []pipeline.Provider{{Name: "MSNT_SystemTrace"}}}, 1, 0},
		// The 777th .NET event's stack is logged after it: the limit must
		// not cut the enricher short (one worker once lost that stack).
		{"limit-stack", model, &pipeline.Filter{MaxEvents: 777, Providers: []pipeline.Provider{{Name: "Microsoft-Windows-DotNETRuntime"}}}, 777, 777},
	} {
		t.Run(c.name, func(t *testing.T) {
			var first []row
			for _, workers := range []int{1, 2, 3} {
				var clones atomic.Int32
				out := &rows{}
				cnt := &counter{}
				st, err := pipeline.Run(context.Background(), &pipeline.Config[row]{
					Files: files, Workers: workers, Decoder: decode.New(), Filter: c.filter,
					Encoder: rowEncoder{&clones}, Output: out, Counter: cnt, Analysis: c.model,
				})
				if err != nil {
					t.Fatal(err)
				}
				n := len(out.got) - 2 // Begin's and End's rows
				if n < c.min || c.max > 0 && n > c.max || st.Written != n || cnt.events != n {
					t.Fatalf("workers %d: %d rows, %d written, %d counted; want %d to %d", workers, n, st.Written, cnt.events, c.min, c.max)
				}
				if out.got[0].id != 0xFFFF || out.got[n+1].id != 0xFFFE {
					t.Fatalf("workers %d: Begin and End not around the events", workers)
				}
				if workers == 1 && clones.Load() != 0 {
					t.Errorf("workers 1: the encoder was cloned %d times (not on the calling goroutine)", clones.Load())
				}
				if first == nil {
					first = out.got
				} else if !reflect.DeepEqual(out.got, first) {
					t.Errorf("workers %d: the rows differ from one worker's", workers)
				}
			}
			if c.model != nil {
				named := 0
				for _, r := range first {
					if r.process != "" {
						named++
					}
				}
				if named == 0 {
					t.Error("no row has a process name from the model")
				}
			}
			if c.name == "limit-stack" && first[len(first)-2].frames == 0 {
				t.Error("the last event written has no stack")
			}
		})
	}
}

// heavyEncoder renders rows that say they hold a megabyte each (Sizer).
type heavyEncoder struct{ rowEncoder }

func (e heavyEncoder) Clone() pipeline.Encoder[row] { return heavyEncoder{e.rowEncoder} }
func (heavyEncoder) Size(rendered []row) int        { return len(rendered) << 20 }

// writes counts the calls to Write and the rows of the largest.
type writes struct {
	rows
	calls, most int
}

func (w *writes) Write(p []row) (int, error) {
	w.calls++
	w.most = max(w.most, len(p))
	return w.rows.Write(p)
}

// TestRunSizer: what a Sizer says bounds the rendering held before it is
// written, on the calling goroutine and on workers (rows that hold 1 MiB
// each fill a chunk each, and a batch's rendering passes its bound at
// every row: the writer renders the rest of each batch, row by row); the
// rows written are those of a run without the Sizer, in the same order.
func TestRunSizer(t *testing.T) {
	path := etltest.CorpusFile(t, "microsoft+perfview/src/TraceEvent/TraceEvent.Tests/inputs/net.4.5.2.x64.etl.zip.unzipped/net.4.5.2.x64.etl")
	files := etltest.OpenFiles(t, path)
	var clones atomic.Int32
	plain := &rows{}
	if _, err := pipeline.Run(context.Background(), &pipeline.Config[row]{Files: files, Workers: 1, Decoder: decode.New(),
		Encoder: rowEncoder{&clones}, Output: plain, Filter: &pipeline.Filter{MaxEvents: 2000}}); err != nil {
		t.Fatal(err)
	}
	for _, workers := range []int{1, 2} {
		w := &writes{}
		st, err := pipeline.Run(context.Background(), &pipeline.Config[row]{Files: files, Workers: workers, Decoder: decode.New(),
			Encoder: heavyEncoder{rowEncoder{&clones}}, Output: w, Filter: &pipeline.Filter{MaxEvents: 2000}})
		if err != nil {
			t.Fatal(err)
		}
		if st.Written != 2000 || len(w.got) != 2002 || w.most > 1 {
			t.Errorf("workers %d: %d written, %d rows, at most %d rows a write; want 2000, 2002, 1", workers, st.Written, len(w.got), w.most)
		}
		if !reflect.DeepEqual(w.got, plain.got) {
			t.Errorf("workers %d: the rows differ from those rendered without the Sizer", workers)
		}
	}
}

// panicEncoder panics on the events of its clones (the workers').
type panicEncoder struct {
	rowEncoder
	clone bool
}

func (e panicEncoder) Clone() pipeline.Encoder[row] { return panicEncoder{e.rowEncoder, true} }

func (e panicEncoder) AppendEvent(dst []row, ev *etl.Event, res *decode.Result, a *analysis.Annotation) []row {
	if e.clone {
		panic("injected encoder panic")
	}
	return e.rowEncoder.AppendEvent(dst, ev, res, a)
}

// panicWriter panics on the writes after the first (Begin's, which Run
// writes on the calling goroutine).
type panicWriter struct{ n int }

func (w *panicWriter) Write(p []row) (int, error) {
	if w.n++; w.n > 1 {
		panic("injected writer panic")
	}
	return len(p), nil
}

// A panic on a worker or on the writer goroutine is Run's error, not the
// end of the process.
func TestRunWorkerPanic(t *testing.T) {
	files := etltest.OpenFiles(t, "../testdata/etl/compressed.etl")
	for _, c := range []struct {
		name string
		enc  pipeline.Encoder[row]
		out  pipeline.Writer[row]
		want string
	}{
		{"encoder", panicEncoder{rowEncoder: rowEncoder{new(atomic.Int32)}}, &rows{}, "injected encoder panic"},
		{"writer", rowEncoder{new(atomic.Int32)}, &panicWriter{}, "injected writer panic"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := pipeline.Run(context.Background(), &pipeline.Config[row]{
				Files: files, Workers: 2, Decoder: decode.New(), Encoder: c.enc, Output: c.out,
			})
			var pe *panicerr.Error
			if !errors.As(err, &pe) || pe.Value != c.want {
				t.Fatalf("got %T %v, want a *panicerr.Error of %q", err, err, c.want)
			}
			if !strings.Contains(string(pe.Stack), "pipeline_test.go") {
				t.Errorf("the stack does not show where it panicked:\n%s", pe.Stack)
			}
		})
	}
}
