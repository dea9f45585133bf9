package report

import (
	"testing"

	"github.com/etwkit/etw/analysis"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
)

// Every view is complete: a unique id, a title, a collector, a template
// that parses with the page's functions.
func TestViewsList(t *testing.T) {
	ids := map[string]bool{}
	for _, v := range views {
		if v.id == "" || v.title == "" || v.collect == nil || v.present == nil || v.page == nil || v.tmpl == "" || ids[v.id] {
			t.Errorf("view %q incomplete or repeated", v.id)
		}
		ids[v.id] = true
		if tmpl().Lookup(v.id) == nil {
			t.Errorf("view %q: no template", v.id)
		}
	}
}

// The I/O and .NET aggregates keep a time dimension: their totals per
// bucket of the timeline's axis add up to the whole trace's, and each
// count sits in the bucket of its event.
func TestViewsTimeDimension(t *testing.T) {
	files := []*etl.File{openBytes(synthTrace())}
	dec := decode.New()
	m, err := analysis.Build(files, dec, nil)
	if err != nil {
		t.Fatal(err)
	}
	o := (&Options{Buckets: 10}).withDefaults()
	c := &collector{o: &o, m: m, files: files}
	c.prepare()
	if errs := c.pass(dec); errs != nil {
		t.Fatal(errs)
	}
	if c.axis.Buckets < 2 || c.axis.Buckets > 10 {
		t.Fatalf("axis %+v", c.axis)
	}
	var io *analysis.IOStats
	var clr *analysis.DotNetStats
	for _, f := range c.views {
		switch v := f.(type) {
		case *ioCollector:
			io = v.stats
		case *dotnetCollector:
			clr = v.stats
		}
	}
	if io == nil || clr == nil {
		t.Fatal("no I/O or .NET collector")
	}
	for _, k := range []struct {
		name   string
		series []analysis.IORow
		total  *analysis.IOSummary
	}{{"disk", io.DiskSeries(), io.Disk(10)}, {"file", io.FileSeries(), io.File(10)}} {
		var sum analysis.IORow
		used := 0
		for _, r := range k.series {
			if r.Reads+r.Writes > 0 {
				used++
			}
			sum.Reads += r.Reads
			sum.Writes += r.Writes
			sum.ReadBytes += r.ReadBytes
			sum.WriteBytes += r.WriteBytes
			sum.Timed += r.Timed
		}
		tot := k.total.Total
		if len(k.series) != c.axis.Buckets || sum.Reads != tot.Reads || sum.Writes != tot.Writes || sum.ReadBytes != tot.ReadBytes ||
			sum.WriteBytes != tot.WriteBytes || sum.Timed != tot.Timed || used == 0 {
			t.Errorf("%s: series %d buckets, sum %+v, total %+v", k.name, len(k.series), sum, tot)
		}
	}
	// Disk I/O at 300-310 µs of a ~950 µs trace: one bucket of ten.
	if b := c.axis.Bucket(filetime(synthStart) + 3050); io.DiskSeries()[b].Reads != synthDiskReads {
		t.Errorf("disk reads in bucket %d: %+v", b, io.DiskSeries())
	}
	var ticks, jitted int
	var bytes uint64
	for _, b := range clr.Series() {
		ticks, bytes, jitted = ticks+b.AllocTicks, bytes+b.AllocBytes, jitted+b.Jitted
	}
	if ticks != 3 || bytes != synthAllocBytes || jitted != synthJitted {
		t.Errorf(".NET series: %d ticks, %d bytes, %d jitted", ticks, bytes, jitted)
	}
}
