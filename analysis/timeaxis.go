package analysis

// TimeAxis cuts a trace's time into Buckets buckets of Width (100 ns
// units) from Start (a FILETIME): the time dimension of aggregates that a
// time range selects from. Its size is fixed, whatever the number of
// events. The zero TimeAxis has no buckets.
type TimeAxis struct {
	Start, Width int64
	Buckets      int
}

// Bucket returns the bucket of time ft: 0 for times at or before Start,
// the last bucket for times past the end, -1 when the axis has no
// buckets. It does not overflow, whatever ft.
func (a TimeAxis) Bucket(ft int64) int {
	if !a.hasBuckets() {
		return -1
	}
	if ft <= a.Start {
		return 0
	}
	// ft > Start: the difference fits in a uint64.
	b := (uint64(ft) - uint64(a.Start)) / uint64(a.Width)
	if b >= uint64(a.Buckets) {
		return a.Buckets - 1
	}
	return int(b)
}

// hasBuckets reports whether the axis has buckets (Bucket returns -1 for
// every time when it has none).
func (a TimeAxis) hasBuckets() bool { return a.Buckets > 0 && a.Width > 0 }
