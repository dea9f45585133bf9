package analysis

import (
	"cmp"
	"slices"
)

// maxSeriesCells bounds the cells the per-key series of one aggregate
// hold (a key's value in one bucket is a cell); past it every series is
// merged into buckets twice as wide, so that the memory stays bounded
// whatever the trace's length and number of keys (beyond one cell a key).
const maxSeriesCells = 1 << 17

// cell is a key's value in one bucket (of the time axis, divided by the
// set's factor).
type cell[T any] struct {
	b int32
	v T
}

// seriesSet holds the series of the keys of one table over a time axis:
// for each key, its value per bucket where it has one, in time order.
type seriesSet[T any] struct {
	axis   TimeAxis
	factor int32 // axis buckets per bucket of the series
	cells  int
	all    []*[]cell[T]
	merge  func(dst, src *T)
}

func newSeriesSet[T any](axis TimeAxis, merge func(dst, src *T)) *seriesSet[T] {
	return &seriesSet[T]{axis: axis, factor: 1, merge: merge}
}

// series returns a new, empty series of the set; nil without an axis.
func (s *seriesSet[T]) series() *[]cell[T] {
	if !s.axis.hasBuckets() {
		return nil
	}
	sr := new([]cell[T])
	s.all = append(s.all, sr)
	return sr
}

// at returns the value of series sr in the bucket of time ft, which it
// adds when missing; nil when sr is nil. The pointer is valid until the
// next call.
func (s *seriesSet[T]) at(sr *[]cell[T], ft int64) *T {
	if sr == nil {
		return nil
	}
	b := int32(s.axis.Bucket(ft)) / s.factor
	c := *sr
	if n := len(c); n > 0 && c[n-1].b == b {
		return &c[n-1].v
	}
	if s.cells >= maxSeriesCells && s.factor < int32(s.axis.Buckets) {
		s.coarsen()
		return s.at(sr, ft)
	}
	*sr = append(c, cell[T]{b: b})
	s.cells++
	return &(*sr)[len(*sr)-1].v
}

// coarsen merges every series into buckets twice as wide.
func (s *seriesSet[T]) coarsen() {
	s.factor *= 2
	s.cells = 0
	for _, sr := range s.all {
		*sr = halve(*sr, func(c *cell[T]) *int32 { return &c.b }, func(dst, src *cell[T]) { s.merge(&dst.v, &src.v) })
		s.cells += len(*sr)
	}
}

// Cell is the value of one row of a table in one bucket of time.
type Cell[T any] struct {
	// Bucket is the bucket: it covers the buckets [Bucket·Factor,
	// (Bucket+1)·Factor) of the aggregate's time axis.
	Bucket int
	Value  T
}

// RowSeries is one row of a table over time: its value in the buckets
// that have one, in bucket order.
type RowSeries[T any] struct {
	Name  string
	Cells []Cell[T]
}

// cellsOf merges series (of keys shown as one row) into one, in bucket
// order.
func (s *seriesSet[T]) cellsOf(srs ...*[]cell[T]) []Cell[T] {
	by := map[int32]*T{}
	var order []int32
	for _, sr := range srs {
		if sr == nil {
			continue
		}
		for _, c := range *sr {
			if v := by[c.b]; v != nil {
				s.merge(v, &c.v)
				continue
			}
			v := c.v
			by[c.b] = &v
			order = append(order, c.b)
		}
	}
	out := make([]Cell[T], 0, len(order))
	for _, b := range order {
		out = append(out, Cell[T]{int(b), *by[b]})
	}
	sortCells(out)
	return out
}

func sortCells[T any](c []Cell[T]) {
	slices.SortFunc(c, func(a, b Cell[T]) int { return cmp.Compare(a.Bucket, b.Bucket) })
}
