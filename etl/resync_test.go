package etl_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/etltest"
)

// damagedBuffers returns the buffers of the attack inputs whose records
// the walk resynchronises over (at least one damaged record), read into
// memory, and the damaged records' count.
func damagedBuffers(tb testing.TB) ([]*etl.Buffer, int) {
	names := etltest.AttackTraces(tb)
	var bufs []*etl.Buffer
	damaged := 0
	var rr etl.RecordReader
	var ev etl.Event
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			tb.Fatal(err)
		}
		f, err := etl.NewFile(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			continue // not an ETL file: no records to walk
		}
		for _, bi := range f.Buffers() {
			buf, err := f.ReadBuffer(bi)
			if err != nil {
				continue
			}
			rr.Reset(buf)
			for rr.Next(&ev) {
			}
			if n := len(rr.Errors()); n > 0 {
				damaged += n
				bufs = append(bufs, buf)
			}
		}
	}
	if len(bufs) == 0 {
		tb.Skip("no attack input has a damaged record")
	}
	return bufs, damaged
}

// BenchmarkResync walks the buffers of the attack inputs that hold
// damaged records: each one is a search, 8 bytes at a time, for the next
// record that parses; a probe that fails must not allocate (only the
// error reported for the damaged record does).
func BenchmarkResync(b *testing.B) {
	bufs, damaged := damagedBuffers(b)
	var total int64
	for _, buf := range bufs {
		total += int64(len(buf.Data))
	}
	b.SetBytes(total)
	b.ReportAllocs()
	var rr etl.RecordReader
	var ev etl.Event
	for b.Loop() {
		for _, buf := range bufs {
			rr.Reset(buf)
			for rr.Next(&ev) {
			}
		}
	}
	b.ReportMetric(float64(damaged), "damaged-records/op")
}

// TestResyncAllocations: walking the attack inputs' damaged buffers
// allocates for the damaged records it reports (their errors), not for
// the positions it tries while searching for the next record (8 bytes at
// a time, thousands of them), and each error names its file offset.
func TestResyncAllocations(t *testing.T) {
	bufs, damaged := damagedBuffers(t)
	var rr etl.RecordReader
	var ev etl.Event
	allocs := testing.AllocsPerRun(2, func() {
		for _, buf := range bufs {
			rr.Reset(buf)
			for rr.Next(&ev) {
			}
		}
	})
	t.Logf("%d buffers, %d damaged records: %v allocations a walk", len(bufs), damaged, allocs)
	if allocs > float64(10*damaged) {
		t.Errorf("%v allocations for %d damaged records: the search for the next record allocates", allocs, damaged)
	}
	for _, buf := range bufs {
		rr.Reset(buf)
		for rr.Next(&ev) {
		}
		for _, err := range rr.Errors() {
			var fe *etl.FormatError
			if !errors.As(err, &fe) || fe.Offset < buf.FileOffset || !strings.Contains(err.Error(), fmt.Sprintf("%#x", fe.Offset)) {
				t.Errorf("buffer at %#x: %v does not name its file offset", buf.FileOffset, err)
			}
		}
	}
}
