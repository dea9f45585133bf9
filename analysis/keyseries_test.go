package analysis

import (
	"testing"

	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
)

// TestSeriesSetCoarsen: merging into buckets twice as wide keeps every
// key's sum and puts each value in bucket b/2.
func TestSeriesSetCoarsen(t *testing.T) {
	axis := TimeAxis{Start: 1000, Width: 10, Buckets: 64}
	set := newSeriesSet(axis, func(d, s *int) { *d += *s })
	a, b := set.series(), set.series()
	for i := range 64 {
		*set.at(a, axis.Start+int64(i)*10) += i
		if i%3 == 0 {
			*set.at(b, axis.Start+int64(i)*10+5) += 1
		}
	}
	if set.cells != 64+22 {
		t.Fatalf("%d cells", set.cells)
	}
	set.coarsen()
	set.coarsen()
	if set.factor != 4 || len(*a) != 16 || set.cells != 16+len(*b) {
		t.Fatalf("factor %d, %d and %d cells, %d counted", set.factor, len(*a), len(*b), set.cells)
	}
	for _, c := range *a {
		want := 0
		for i := c.b * 4; i < c.b*4+4; i++ {
			want += int(i)
		}
		if c.v != want {
			t.Errorf("bucket %d: %d, want %d", c.b, c.v, want)
		}
	}
	n := 0
	for _, c := range set.cellsOf(b) {
		n += c.Value
	}
	if n != 22 {
		t.Errorf("b adds up to %d", n)
	}
	// A later value lands in the wider bucket.
	*set.at(a, axis.Start+63*10) += 100
	if last := (*a)[len(*a)-1]; last.b != 15 || last.v != 60+61+62+63+100 {
		t.Errorf("last cell %+v", last)
	}
	if (&seriesSet[int]{}).series() != nil {
		t.Error("a series without an axis")
	}
}

// TestCorpusNetOverTime: on net.4.5.2.x64 the series of the I/O and .NET
// tables' rows add up, over the trace, to the rows' totals.
func TestCorpusNetOverTime(t *testing.T) {
	files, dec, m, axis := netAxis(t, 630)
	io, dn := NewIOStats(m, files, axis), NewDotNetStats(m, axis)
	if _, _, err := m.Collect(files, dec, &CollectOptions{Decode: func(*etl.Event) bool { return true },
		Observe: func(ev *etl.Event, res *decode.Result) { io.Observe(ev, res); dn.Observe(ev, res) }}); err != nil {
		t.Fatal(err)
	}
	const rows = 30
	t.Logf("cells held: disk %d, file %d, .NET %d", io.disk.cells.cells, io.file.cells.cells, dn.cells.cells)
	sum := io.Disk(rows)
	ot := io.DiskOverTime(rows)
	if sum == nil || ot == nil || len(ot.ByProcess) != len(sum.ByProcess) || len(ot.ByFile) != len(sum.ByFile) || len(ot.ByFile) < 10 {
		t.Fatalf("disk I/O: summary %v, over time %v", sum != nil, ot != nil)
	}
	check := func(what string, want []IORow, got []RowSeries[IORow]) {
		for i, r := range got {
			var s IORow
			for _, c := range r.Cells {
				if c.Bucket < 0 || c.Bucket >= axis.Buckets/ot.Factor+1 {
					t.Errorf("%s: bucket %d", r.Name, c.Bucket)
				}
				s.merge(&c.Value)
			}
			s.Name, s.LatencyMS = r.Name, roundTick(s.LatencyMS)
			if s != want[i] {
				t.Errorf("%s row %d: series add up to %+v, the table %+v", what, i, s, want[i])
			}
		}
	}
	check("disk by process", sum.ByProcess, ot.ByProcess)
	check("disk by file", sum.ByFile, ot.ByFile)
	alloc, jit, dot := dn.Allocations(rows), dn.JIT(rows), dn.OverTime(rows)
	if len(alloc) < 5 || len(jit) < 5 || len(dot.Allocations) != len(alloc) || len(dot.JIT) != len(jit) {
		t.Fatalf("%d types, %d namespaces; over time %d, %d", len(alloc), len(jit), len(dot.Allocations), len(dot.JIT))
	}
	for i, r := range dot.Allocations {
		var s DotNetBucket
		for _, c := range r.Cells {
			s.AllocTicks += c.Value.AllocTicks
			s.AllocBytes += c.Value.AllocBytes
		}
		if r.Name != alloc[i].Type || s.AllocTicks != alloc[i].Ticks || s.AllocBytes != alloc[i].Bytes {
			t.Errorf("allocations row %d %s: %+v, the table %+v", i, r.Name, s, alloc[i])
		}
	}
	for i, r := range dot.JIT {
		n := 0
		for _, c := range r.Cells {
			n += c.Value.Jitted
		}
		if r.Name != jit[i].Namespace || n != jit[i].Methods {
			t.Errorf("JIT row %d %s: %d, the table %+v", i, r.Name, n, jit[i])
		}
	}
	procs := 0
	for _, p := range m.Processes() {
		jitted, a := dn.Process(p)
		var s DotNetBucket
		for _, c := range dn.ProcessOverTime(p) {
			s.AllocTicks += c.Value.AllocTicks
			s.AllocBytes += c.Value.AllocBytes
			s.Jitted += c.Value.Jitted
		}
		if s.Jitted != jitted || s.AllocTicks != a.Ticks || s.AllocBytes != a.Bytes {
			t.Errorf("%s: series %+v, totals %d JIT %+v", p, s, jitted, a)
		}
		if jitted+a.Ticks > 0 {
			procs++
		}
	}
	if procs == 0 {
		t.Error("no .NET process")
	}
}

// netAxis opens and models net.4.5.2.x64 (the CLR's schemas registered)
// and cuts its time into n buckets.
func netAxis(t *testing.T, n int) ([]*etl.File, *decode.Decoder, *Model, TimeAxis) {
	t.Helper()
	files := openCorpus(t, netFile)
	dec := clrDecoder(t)
	m, err := Build(files, dec, nil)
	if err != nil {
		t.Fatal(err)
	}
	t0, t1 := m.TimeRange()
	return files, dec, m, TimeAxis{Start: t0, Width: (t1-t0)/int64(n) + 1, Buckets: n}
}
