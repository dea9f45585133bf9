package pipeline_test

import (
	"context"
	"strings"
	"testing"

	"github.com/etwkit/etw/analysis"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/etltest"
	"github.com/etwkit/etw/pipeline"
)

// stackEncoder renders each event's stack as text: its frames' modules
// and .NET methods.
type stackEncoder struct{}

func (stackEncoder) Begin(dst []byte) []byte       { return dst }
func (stackEncoder) End(dst []byte) []byte         { return dst }
func (stackEncoder) Clone() pipeline.Encoder[byte] { return stackEncoder{} }
func (e stackEncoder) AppendEvent(dst []byte, ev *etl.Event, _ *decode.Result, a *analysis.Annotation) []byte {
	if a == nil {
		return append(dst, "-\n"...)
	}
	for i := range a.Stack {
		f := &a.Stack[i]
		if f.Image != nil {
			dst = append(dst, f.Image.FileName()...)
		}
		if f.Method != nil {
			dst = append(dst, '!')
			dst = f.AppendFunction(dst)
		}
		dst = append(dst, ' ')
	}
	return append(dst, '\n')
}

// heavyStackEncoder is a stackEncoder whose renderings say they weigh
// 4 KiB a byte (Sizer): a batch passes its rendering's bound within a
// few events, and the writer renders the rest.
type heavyStackEncoder struct{ stackEncoder }

func (heavyStackEncoder) Clone() pipeline.Encoder[byte] { return heavyStackEncoder{} }
func (heavyStackEncoder) Size(rendered []byte) int      { return len(rendered) << 12 }

// TestWrittenStacks: Config.Written gets each event's stack as the
// encoder rendered it (the workers keep the stacks they resolved for
// the writer), with one worker and with several, and where the writer
// renders most events (heavyStackEncoder).
func TestWrittenStacks(t *testing.T) {
	path := etltest.CorpusFile(t, "microsoft+perfview/src/TraceEvent/TraceEvent.Tests/inputs/net.4.5.2.x64.etl.zip.unzipped/net.4.5.2.x64.etl")
	files := etltest.OpenFiles(t, path)
	dec := decode.New()
	m, _, _ := pipeline.Prepare(files, dec)
	for _, c := range []struct {
		workers int
		enc     pipeline.Encoder[byte]
	}{{1, stackEncoder{}}, {3, stackEncoder{}}, {3, heavyStackEncoder{}}} {
		workers := c.workers
		var out strings.Builder
		var written []byte
		_, err := pipeline.Run(context.Background(), &pipeline.Config[byte]{
			Files: files, Workers: workers, Decoder: dec, Prescanned: true,
			Encoder: c.enc, Output: &out, Analysis: m,
			Written: func(ev *etl.Event, a *analysis.Annotation) error {
				written = stackEncoder{}.AppendEvent(written, ev, nil, a)
				return nil
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		if string(written) != out.String() {
			t.Errorf("%d workers, %T: Written's stacks differ from the rendered ones", workers, c.enc)
		}
		if n := strings.Count(out.String(), "!"); n < 10000 {
			t.Errorf("%d workers, %T: %d .NET frames: want net.4.5.2's", workers, c.enc, n)
		}
	}
}
