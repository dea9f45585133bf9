package parquetout

import (
	"bytes"
	"context"
	"io"
	"sync/atomic"
	"testing"

	"github.com/etwkit/etw/analysis"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/etltest"
	"github.com/etwkit/etw/internal/memo"
	"github.com/etwkit/etw/pipeline"
)

// framesCheck is a pipeline encoder that renders each event's frames
// through an Encoder's memo of stacks and checks them against the
// frames rendered afresh.
type framesCheck struct {
	e          *Encoder
	got, want  []byte
	stacks     *atomic.Int64
	ids, wrong *atomic.Int64
}

func (f *framesCheck) Begin(b []byte) []byte { return b }
func (f *framesCheck) End(b []byte) []byte   { return b }
func (f *framesCheck) Clone() pipeline.Encoder[byte] {
	c := *f
	c.e = f.e.Clone().(*Encoder)
	c.got, c.want = nil, nil
	return &c
}

func (f *framesCheck) AppendEvent(b []byte, _ *etl.Event, _ *decode.Result, a *analysis.Annotation) []byte {
	if a == nil || len(a.Stack) == 0 {
		return b
	}
	f.stacks.Add(1)
	if a.StackID() != 0 {
		f.ids.Add(1)
	}
	f.got, f.want = f.e.appendFrames(f.got[:0], a), appendFrames(f.want[:0], a.Stack, a.StackID())
	if !bytes.Equal(f.got, f.want) {
		f.wrong.Add(1)
	}
	return b
}

// TestFramesByStackID: on net.4.5.2 (23,000 stacks, 3,100 distinct),
// dumped by one worker and by two, the frames an Encoder writes through
// its memo of stacks by analysis.Annotation.StackID are those of the
// annotation's stack, found again or not; a clone's memo starts empty.
func TestFramesByStackID(t *testing.T) {
	files := etltest.OpenFiles(t, etltest.CorpusFile(t, "microsoft+perfview/src/TraceEvent/TraceEvent.Tests/inputs/net.4.5.2.x64.etl.zip.unzipped/net.4.5.2.x64.etl"))
	dec := decode.New()
	m, _, err := pipeline.Prepare(files, dec)
	if err != nil {
		t.Fatal(err)
	}
	for _, workers := range []int{1, 2} {
		var stacks, ids, wrong atomic.Int64
		f := &framesCheck{e: &Encoder{}, stacks: &stacks, ids: &ids, wrong: &wrong}
		_, err := pipeline.Run(context.Background(), &pipeline.Config[byte]{
			Files: files, Decoder: dec, Prescanned: true, Workers: workers, Analysis: m,
			Encoder: f, Output: io.Discard,
		})
		if err != nil {
			t.Fatal(err)
		}
		if wrong.Load() != 0 || stacks.Load() < 20000 || ids.Load() < stacks.Load()/2 {
			t.Errorf("%d workers: %d stacks, %d with a StackID, %d written wrong: want net.4.5.2's 23,000 or so, most with an identity, none wrong",
				workers, stacks.Load(), ids.Load(), wrong.Load())
		}
	}
	e := &Encoder{stacks: memo.NewBytes(4, 1024)}
	if c := e.Clone().(*Encoder); c.stacks.Cap() != 0 {
		t.Error("a clone shares the memo of stacks")
	}
}
