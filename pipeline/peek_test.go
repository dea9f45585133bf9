package pipeline_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/pipeline"
)

// With Config.Analysis, Observe gets the decoding of each event the
// enricher reads, CPU samples included, without asking for it
// (ObserveDecode nil): the enricher reads samples' threads in place
// (analysis.Enricher.PushPeeking) only when no Observe reads its
// decodings.
func TestObserveGetsEnricherDecodings(t *testing.T) {
	f := openObserved(t)
	files := []*etl.File{f}
	dec := decode.New()
	m, _, _ := pipeline.Prepare(files, dec)
	samples, decoded := 0, 0
	_, err := pipeline.Run(context.Background(), &pipeline.Config[row]{
		Files: files, Decoder: dec, Prescanned: true, Workers: 2, Analysis: m,
		Encoder: rowEncoder{clones: &atomic.Int32{}}, Output: &rows{},
		Observe: func(ev *etl.Event, res *decode.Result) error {
			if ev.Header.Kernel() && ev.Descriptor.Opcode == 46 { // PerfInfo SampledProfile
				samples++
				if res != nil && res.Decoded != nil {
					decoded++
				}
			}
			return nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	// net.4.5.2.x64.etl has 79,528 samples (analysis.TestPushPeekingMatches).
	if samples < 79000 || decoded != samples {
		t.Errorf("Observe got the decoding of %d of %d samples, want all of net.4.5.2's 79,528", decoded, samples)
	}
}
