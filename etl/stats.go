package etl

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/etwkit/etw/internal/panicerr"
)

// Stats summarizes a walk over every record of a file.
type Stats struct {
	Buffers           int                // buffers with a valid header
	CompressedBuffers int                // of which compressed
	Events            int                // records, header events and error records included
	HeaderTypes       map[HeaderType]int // records per header type
	FirstTime         int64              // earliest event FILETIME, 0 if none
	LastTime          int64              // latest event FILETIME, 0 if none
	Errors            ErrorList          // damaged buffers and records, as [*FormatError]
}

// Scan reads every record of the file and counts them. Buffers are read,
// decompressed and walked on GOMAXPROCS goroutines; the result (errors
// included, in file order) is what a walk in file order gives.
func (f *File) Scan() Stats {
	st := Stats{HeaderTypes: map[HeaderType]int{}}
	bufs := f.Buffers()
	for _, b := range bufs {
		st.Buffers++
		if b.Header.Compressed() {
			st.CompressedBuffers++
		}
	}
	st.Errors = append(st.Errors, f.IndexErrors()...)
	type part struct {
		counts      [256]int
		events      int
		first, last int64
	}
	workers := max(1, min(runtime.GOMAXPROCS(0), len(bufs)))
	parts := make([]part, workers)
	errs := make([][]error, len(bufs)) // per buffer, in the order a walk meets them
	var next atomic.Int64
	var wg sync.WaitGroup
	panics := make([]error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer panicerr.Recover(&panics[w])
			p := &parts[w]
			var rr RecordReader
			var ev Event
			for {
				i := int(next.Add(1) - 1)
				if i >= len(bufs) {
					return
				}
				b, err := f.ReadBuffer(bufs[i])
				if err != nil {
					errs[i] = append(errs[i], err)
				}
				if b == nil {
					continue
				}
				rr.Reset(b)
				for rr.Next(&ev) {
					p.counts[ev.Header]++
					p.events++
					if p.first == 0 || ev.Time < p.first {
						p.first = ev.Time
					}
					if ev.Time > p.last {
						p.last = ev.Time
					}
				}
				errs[i] = append(errs[i], rr.Errors()...)
				b.Release()
			}
		}()
	}
	wg.Wait()
	for _, err := range panics {
		if err != nil {
			// Raised again where the caller can recover it.
			panic(err)
		}
	}
	var counts [256]int
	for i := range parts {
		p := &parts[i]
		for t, n := range p.counts {
			counts[t] += n
		}
		st.Events += p.events
		if p.events > 0 {
			if st.FirstTime == 0 || p.first != 0 && p.first < st.FirstTime {
				st.FirstTime = p.first
			}
			st.LastTime = max(st.LastTime, p.last)
		}
	}
	for t, n := range counts {
		if n > 0 {
			st.HeaderTypes[HeaderType(t)] = n
		}
	}
	for _, e := range errs {
		st.Errors = append(st.Errors, e...)
	}
	return st
}
