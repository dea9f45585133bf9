package analysis

import (
	"reflect"
	"testing"

	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
)

// TestCorpusIORowsOnce: the rows of the I/O tables are built once for a
// kind's summary and series, and again after further events: an IOStats
// asked for its tables every 500 events along net.4.5.2.x64 ends with the
// tables of one asked only at the end.
func TestCorpusIORowsOnce(t *testing.T) {
	files, dec, m, axis := netAxis(t, 100)
	asked, once := NewIOStats(m, files, axis), NewIOStats(m, files, axis)
	const rows = 20
	n := 0
	if _, _, err := m.Collect(files, dec, &CollectOptions{Decode: func(*etl.Event) bool { return true },
		Observe: func(ev *etl.Event, res *decode.Result) {
			asked.Observe(ev, res)
			once.Observe(ev, res)
			if n++; n%500 == 0 {
				asked.Disk(rows)
				asked.FileOverTime(rows)
			}
		}}); err != nil {
		t.Fatal(err)
	}
	for _, k := range []struct {
		what string
		b    *ioAgg // once's aggregate: its rows are built once
		sum  func(*IOStats, int) *IOSummary
		ot   func(*IOStats, int) *IOOverTime
	}{{"disk", &once.disk, (*IOStats).Disk, (*IOStats).DiskOverTime},
		{"file", &once.file, (*IOStats).File, (*IOStats).FileOverTime}} {
		sa, sb := k.sum(asked, rows), k.sum(once, rows)
		if k.what == "disk" && (sb == nil || len(sb.ByFile) < 5) { // net.4.5.2 has no FileIo
			t.Fatalf("%s: summary %+v", k.what, sb)
		}
		if !reflect.DeepEqual(sa, sb) {
			t.Errorf("%s: summary asked along the way %+v, at the end %+v", k.what, sa, sb)
		}
		built := k.b.keyed
		if oa, ob := k.ot(asked, rows), k.ot(once, rows); !reflect.DeepEqual(oa, ob) {
			t.Errorf("%s: series asked along the way differ from those at the end", k.what)
		}
		if sb != nil && (built == nil || k.b.keyed != built) {
			t.Errorf("%s: the rows were built again for the series", k.what)
		}
	}
}
