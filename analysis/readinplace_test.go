package analysis

import (
	"fmt"
	"testing"

	"github.com/etwkit/etw/etl"
)

// TestCorpusModelReadInPlace: on every corpus trace, the model Build
// makes on one core (which reads CPU samples' ids in place on the
// reading goroutine) and on two (whose loaders decode ahead, and read
// samples in place) is the model of a Builder that decodes every event
// it reads (Builder.Observe): the same events and CPU samples counted for
// each process, the same processes and threads over the same times.
func TestCorpusModelReadInPlace(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the model of every corpus trace three times")
	}
	samples := 0
	atOneAndTwoProcs(t, func(t *testing.T) {
		eachCorpusTrace(t, func(t *testing.T, files []*etl.File) {
			// A damaged trace's model is what could be read: compared
			// as well.
			m, _ := Build(files, nil, nil)
			want := feedBuilder(files, nil)
			samples += want.CPUSamples
			got, wantSum := append(modelSummary(m), threadSummary(m)...), append(modelSummary(want), threadSummary(want)...)
			if i := firstDiffAt(got, wantSum); i >= 0 {
				t.Errorf("the model differs at line %d: %s, decoding every event %s", i, at(got, i), at(wantSum, i))
			}
		})
	})
	if samples < 2*6000 {
		t.Errorf("%d CPU samples in the models at GOMAXPROCS 1 and 2: want net.4.5.2's 6,000 or more each", samples)
	}
}

// threadSummary lists each process's threads with their times.
func threadSummary(m *Model) []string {
	var out []string
	for _, p := range m.Processes() {
		for _, th := range p.Threads() {
			out = append(out, fmt.Sprintf("%d/%d %q %v %v", th.PID, th.TID, th.Name, th.Start(), th.End()))
		}
	}
	return out
}
