package report

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"io"
	"math"
	"os"
	"testing"

	"github.com/etwkit/etw/analysis"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/etltest"
)

// Offsets in mytrace-evtime-min.etl (mytrace.etl of the corpus with a
// damaged timestamp; ETL_ATTACK's README): one event32 record's
// timestamp and the log-file header's StartTime.
const (
	mytraceEventTime = 8872
	mytraceStartTime = 368
)

// checkExtreme runs what reads a trace's times over files: the report
// (HTML and JSON), the model's statistics, the folded, speedscope and
// pprof profiles. None may panic; the report stays bounded.
func checkExtreme(t *testing.T, name string, files []*etl.File) {
	t.Helper()
	d, _ := Build(files, decode.New(), nil) // damage is expected
	if d == nil {
		t.Fatalf("%s: no report", name)
	}
	if err := d.WriteHTML(io.Discard); err != nil {
		t.Errorf("%s: HTML: %v", name, err)
	}
	if _, err := json.Marshal(d); err != nil {
		t.Errorf("%s: JSON: %v", name, err)
	}
	if tl := d.Timeline; tl != nil && (tl.Buckets <= 0 || tl.Buckets > 1001 || tl.BucketSec <= 0) {
		t.Errorf("%s: timeline of %d buckets of %g s", name, tl.Buckets, tl.BucketSec)
	}
	if d.Overview.DurationSec < 0 || math.IsNaN(d.Overview.DurationSec) {
		t.Errorf("%s: duration %g", name, d.Overview.DurationSec)
	}
	dec := decode.New()
	m, _ := analysis.Build(files, dec, nil)
	if first, last := m.TimeRange(); m.Events > 0 && first > last {
		t.Errorf("%s: time range %d..%d", name, first, last)
	}
	for _, p := range m.Processes() {
		if g := p.GC; g != nil && (g.PauseTotal < 0 || g.PauseMax < 0) {
			t.Errorf("%s: %v: GC pauses %v %v", name, p, g.PauseTotal, g.PauseMax)
		}
	}
	all := &analysis.CollectOptions{Select: func(*etl.Event, *decode.Result) bool { return true }}
	prof, _, _ := m.Collect(files, dec, all)
	if err := prof.WriteFolded(io.Discard); err != nil {
		t.Error(err)
	}
	if err := prof.WriteSpeedscope(io.Discard, name); err != nil {
		t.Error(err)
	}
	pp, _, _ := m.CollectPprof(files, dec, &analysis.PprofOptions{CollectOptions: *all})
	if pp.DurationNanos < 0 {
		t.Errorf("%s: pprof duration %d", name, pp.DurationNanos)
	}
	if err := pp.Write(io.Discard); err != nil {
		t.Errorf("%s: pprof: %v", name, err)
	}
}

// The attack run's reproducers (issue 29): one event's timestamp or the
// header's StartTime at 2^63, and a PktMon capture with garbage
// timestamps, made the report panic (makeslice: len out of range).
func TestExtremeTimestampReproducers(t *testing.T) {
	for _, name := range []string{"mytrace-evtime-min.etl", "mytrace-starttime-min.etl", "pktmon-159.etl"} {
		checkExtreme(t, name, etltest.OpenFiles(t, etltest.AttackFile(t, name)))
	}
}

// Other extreme values, at the same places: an event's raw timestamp and
// the header's StartTime.
func TestExtremeTimestamps(t *testing.T) {
	raw, err := os.ReadFile(etltest.AttackFile(t, "mytrace-evtime-min.etl"))
	if err != nil {
		t.Fatal(err)
	}
	// The attack file differs from mytrace.etl in the event's timestamp
	// only: each value goes there, or over StartTime (the event keeping
	// its 2^63).
	for _, c := range []struct {
		name   string
		offset int
		v      uint64
	}{
		{"event 2^62", mytraceEventTime, 1 << 62},
		{"event 2^63-1", mytraceEventTime, 1<<63 - 1},
		{"event 2^63", mytraceEventTime, 1 << 63},
		{"event 2^64-1", mytraceEventTime, math.MaxUint64},
		{"event 1", mytraceEventTime, 1},
		{"StartTime 2^62", mytraceStartTime, 1 << 62},
		{"StartTime 2^63-1", mytraceStartTime, 1<<63 - 1},
		{"StartTime 2^63", mytraceStartTime, 1 << 63},
		{"StartTime 2^64-1", mytraceStartTime, math.MaxUint64},
	} {
		b := bytes.Clone(raw)
		binary.LittleEndian.PutUint64(b[c.offset:], c.v)
		f, err := etl.NewFile(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		f.Name = c.name
		checkExtreme(t, c.name, []*etl.File{f})
	}
}

// The time axis of a trace whose events span the whole int64 range.
func TestNiceWidthExtremes(t *testing.T) {
	for _, c := range []struct {
		span    int64
		buckets int
	}{{0, 1000}, {math.MaxInt64, 1000}, {math.MaxInt64, 1}, {math.MaxInt64 / 2, 3}, {1e18, 1}} {
		w := niceWidth(c.span, c.buckets)
		if w < 10 || c.span/w+1 > int64(c.buckets)+1 {
			t.Errorf("niceWidth(%d, %d) = %d: %d buckets", c.span, c.buckets, w, c.span/w+1)
		}
	}
}
