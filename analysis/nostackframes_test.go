package analysis

import (
	"fmt"
	"testing"

	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
)

// TestNoStackFrames checks, on every corpus trace at GOMAXPROCS 1 and 2,
// that a model built with Options.NoStackFrames (alone, and with the
// other options stats sets) keeps no stack-key frames and otherwise
// equals the full model: its processes with their names, lifetimes,
// events, CPU samples and GC statistics, the model's counts and
// StackKeys. net.4.5.2's full model has frames to leave out.
func TestNoStackFrames(t *testing.T) {
	atOneAndTwoProcs(t, func(t *testing.T) {
		withFrames := 0
		eachCorpusTrace(t, func(t *testing.T, files []*etl.File) {
			full, _ := Build(files, decode.New(), nil)
			stats, _ := Build(files, decode.New(), &Options{NoMethods: true, NoImageIDs: true})
			for name, c := range map[string]struct {
				opts Options
				want *Model
			}{
				"NoStackFrames":                        {Options{NoStackFrames: true}, full},
				"NoStackFrames, NoMethods, NoImageIDs": {Options{NoStackFrames: true, NoMethods: true, NoImageIDs: true}, stats},
			} {
				m, _ := Build(files, decode.New(), &c.opts)
				if len(m.keys) != 0 || len(m.arena) != 0 {
					t.Errorf("%s: %d stack keys and %d frames kept", name, len(m.keys), len(m.arena))
				}
				got, want := modelSummary(m), modelSummary(c.want)
				if i := firstDiffAt(got, want); i >= 0 {
					t.Errorf("%s: the model differs at line %d: %s, want %s", name, i, at(got, i), at(want, i))
				}
			}
			if full.StackKeys > 0 && len(full.arena) > 0 {
				withFrames++
			}
		})
		if withFrames == 0 {
			t.Error("no corpus trace's full model has stack-key frames: nothing was left out")
		}
	})
}

// modelSummary lists what a model without frames keeps: its counts, and
// per process what stats prints.
func modelSummary(m *Model) []string {
	out := []string{fmt.Sprintf("events %d, CPU samples %d, unattributed %d, stack keys %d", m.Events, m.CPUSamples, m.Unattributed, m.StackKeys)}
	for _, p := range m.Processes() {
		s := fmt.Sprintf("%d %q %q %v %v events %d samples %d", p.PID, p.ImageFileName, p.CommandLine, p.Start(), p.End(), p.Events, p.CPUSamples)
		if p.GC != nil {
			s += fmt.Sprintf(" gc %+v", *p.GC)
		}
		out = append(out, s)
	}
	return out
}

// at returns l[i], or "(none)" past its end.
func at(l []string, i int) string {
	if i < len(l) {
		return l[i]
	}
	return "(none)"
}

// TestLastPointerAfter checks lastPointerAfter against the last value
// pointersAfter gathers, for every stack-key definition (after "Key")
// and stack walk (after "StackThread") of the corpus.
func TestLastPointerAfter(t *testing.T) {
	checked := 0
	eachCorpusTrace(t, func(t *testing.T, files []*etl.File) {
		dec := decode.New()
		r := etl.NewReader(files, nil)
		defer r.Close()
		for r.Next() {
			ev := r.Event()
			k := classify(ev)
			if k != kKeyDef && k != kStack {
				continue
			}
			d := decoded(dec.Decode(ev))
			for _, name := range []string{"Key", "StackThread", "NoSuchProperty"} {
				all := pointersAfter(d, name, nil)
				last, ok := lastPointerAfter(d, name)
				if ok != (len(all) > 0) || ok && last != all[len(all)-1] {
					t.Fatalf("event at %#x+%#x, after %s: last %#x %v, pointersAfter %#x", ev.BufferOffset, ev.RecordOffset, name, last, ok, all)
				}
				if ok {
					checked++
				}
			}
		}
	})
	if checked == 0 {
		t.Error("no stack-key definition or stack walk with frames in the corpus")
	}
}
