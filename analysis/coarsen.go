package analysis

// A merger is a value of a table's cells that its aggregate merges
// ([IORow], [DotNetBucket]).
type merger[T any] interface {
	*T
	merge(o *T)
}

// CoarsenRows merges the cells of rows into buckets 2, 4, 8… times wider
// until they number at most maxCells in all, adding values as their
// aggregate's own series do when they coarsen (an I/O cell's longest
// latency is the larger); it returns the factor, by which the rows'
// Factor is to be multiplied. For a page that shows several tables'
// rows over time under one bound.
func CoarsenRows[T any, P merger[T]](maxCells int, rows ...[]RowSeries[T]) int {
	count := func() int {
		n := 0
		for _, rs := range rows {
			for _, r := range rs {
				n += len(r.Cells)
			}
		}
		return n
	}
	f := 1
	for count() > maxCells {
		f *= 2
		for _, rs := range rows {
			for i := range rs {
				rs[i].Cells = halve(rs[i].Cells, func(c *Cell[T]) *int { return &c.Bucket },
					func(dst, src *Cell[T]) { P(&dst.Value).merge(&src.Value) })
			}
		}
	}
	return f
}

// halve merges cells, in bucket order, into buckets twice as wide (b/2),
// in place; bucket gives a cell's bucket, merge adds a cell's value into
// another's.
func halve[C any, B int | int32](cells []C, bucket func(*C) *B, merge func(dst, src *C)) []C {
	out := cells[:0]
	for _, x := range cells {
		*bucket(&x) /= 2
		if n := len(out); n > 0 && *bucket(&out[n-1]) == *bucket(&x) {
			merge(&out[n-1], &x)
			continue
		}
		out = append(out, x)
	}
	return out
}

// merge adds the counts of o to b.
func (b *DotNetBucket) merge(o *DotNetBucket) {
	b.AllocTicks += o.AllocTicks
	b.AllocBytes += o.AllocBytes
	b.Jitted += o.Jitted
}
