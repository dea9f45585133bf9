package etl

// Stats summarizes a walk over every record of a file.
type Stats struct {
	Buffers           int                // buffers with a valid header
	CompressedBuffers int                // of which compressed
	Events            int                // records, header events and error records included
	HeaderTypes       map[HeaderType]int // records per header type
	FirstTime         int64              // earliest event FILETIME, 0 if none
	LastTime          int64              // latest event FILETIME, 0 if none
	Errors            []error            // damaged buffers and records, as [*FormatError]
}

// Scan reads every record of the file (in file order, decompressing
// buffers in parallel) and counts them.
func (f *File) Scan() Stats {
	st := Stats{HeaderTypes: map[HeaderType]int{}}
	for _, b := range f.Buffers() {
		st.Buffers++
		if b.Header.Compressed() {
			st.CompressedBuffers++
		}
	}
	r := NewReader([]*File{f}, &ReaderOptions{Order: FileOrder})
	defer r.Close()
	var counts [256]int
	for r.Next() {
		ev := r.Event()
		counts[ev.Header]++
		st.Events++
		if st.FirstTime == 0 || ev.Time < st.FirstTime {
			st.FirstTime = ev.Time
		}
		if ev.Time > st.LastTime {
			st.LastTime = ev.Time
		}
	}
	for t, n := range counts {
		if n > 0 {
			st.HeaderTypes[HeaderType(t)] = n
		}
	}
	st.Errors = r.Errors()
	return st
}
