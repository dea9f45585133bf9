package analysis

import (
	"fmt"
	"testing"
)

// TestCoarsenRows: rows over time past the bound are merged into
// buckets 2, 4, 8… times wider, under the bound, their sums kept (the
// longest latency the larger), their buckets in order.
func TestCoarsenRows(t *testing.T) {
	const bound = 16384
	var a, b []RowSeries[IORow]
	want := map[string]IORow{}
	for r := range 5 {
		ra := RowSeries[IORow]{Name: fmt.Sprint("a", r)}
		w := IORow{Reads: 5000, ReadBytes: 15000, WriteBytes: 20000, LatencyMS: 1250, MaxMS: 10, Timed: 5000}
		for i := range 5000 {
			ra.Cells = append(ra.Cells, Cell[IORow]{i, IORow{Reads: 1, Writes: i % 7, ReadBytes: 3, WriteBytes: 4, LatencyMS: 0.25, MaxMS: float64(i % 11), Timed: 1}})
			w.Writes += i % 7
		}
		a = append(a, ra)
		want[ra.Name] = w
	}
	b = append(b, RowSeries[IORow]{Name: "b", Cells: []Cell[IORow]{{3, IORow{Reads: 1, MaxMS: 0.5}}, {4000, IORow{Reads: 2, MaxMS: 7}}}})
	want["b"] = IORow{Reads: 3, MaxMS: 7}
	f := CoarsenRows(bound, a, b)
	n := 0
	for _, r := range append(a, b...) {
		n += len(r.Cells)
		var sum IORow
		for i, c := range r.Cells {
			if i > 0 && c.Bucket <= r.Cells[i-1].Bucket {
				t.Fatalf("%s: buckets out of order", r.Name)
			}
			sum.merge(&c.Value)
		}
		if w := want[r.Name]; sum != w {
			t.Errorf("%s: %+v, want %+v", r.Name, sum, w)
		}
	}
	if f != 2 || n > bound || b[0].Cells[1].Bucket != 2000 || b[0].Cells[0].Bucket != 1 {
		t.Errorf("factor %d, %d cells; b %v", f, n, b[0].Cells)
	}
	// .NET cells add up likewise.
	d := []RowSeries[DotNetBucket]{{Cells: []Cell[DotNetBucket]{{0, DotNetBucket{1, 2, 3}}, {1, DotNetBucket{10, 20, 30}}, {5, DotNetBucket{1, 1, 1}}}}}
	if f := CoarsenRows(2, d); f != 2 || fmt.Sprint(d[0].Cells) != "[{0 {11 22 33}} {2 {1 1 1}}]" {
		t.Errorf("factor %d, cells %v", f, d[0].Cells)
	}
}
