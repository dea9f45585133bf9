package etl_test

import (
	"bytes"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/etltest"
)

var (
	bigOnce sync.Once
	bigFile []byte
)

// synthetic returns a 40 MiB, 8-CPU trace of 64 KiB buffers full of
// EVENT_HEADER64 records with 40-byte payloads and a related-activity item,
// flushed round-robin across CPUs as a busy system would.
func synthetic() []byte {
	bigOnce.Do(func() {
		tf := etltest.NewFile(64<<10, true)
		tf.TLH.NumberOfProcessors = 8
		rel := make([]byte, 16)
		etl.PutGUIDWindows(rel, provA)
		payload := bytes.Repeat([]byte{0x5A}, 40)
		ts := tf.TLH.HeaderTimestamp
		for i := 0; i < 640; i++ {
			var recs [][]byte
			size := etl.BufferHeaderSize
			for {
				ts += 3
				r := etltest.Event(etl.HeaderEvent64, 0, 10, 20, ts, provB, etl.EventDescriptor{ID: uint16(i)}, uuid.Nil,
					[]etltest.Ext{{Type: etl.ExtRelatedActivityID, Data: rel}}, payload)
				if size+len(r) > 64<<10 {
					break
				}
				size += (len(r) + 7) &^ 7
				recs = append(recs, r)
			}
			tf.AddBuffer(uint16(i%8), ts, recs...)
		}
		bigFile = tf.Bytes()
	})
	return bigFile
}

// benchInput returns the corpus's kernel trace when ETL_CORPUS is set, else
// the synthetic trace.
func benchInputs(b *testing.B) map[string][]byte {
	in := map[string][]byte{"synthetic-40MiB": synthetic()}
	if dir := os.Getenv("ETL_CORPUS"); dir != "" {
		for name, rel := range map[string]string{
			"ShutdownPerfDiagLogger": "airbus-cert+etl-parser/tests/example/ShutdownPerfDiagLogger.etl",
			"net.4.5.2-compressed":   "microsoft+perfview/src/TraceEvent/TraceEvent.Tests/inputs/net.4.5.2.x64.etl.zip.unzipped/net.4.5.2.x64.etl",
		} {
			if data, err := os.ReadFile(filepath.Join(dir, rel)); err == nil {
				in[name] = data
			}
		}
	}
	return in
}

func benchReader(b *testing.B, order etl.Order) {
	for name, data := range benchInputs(b) {
		b.Run(name, func(b *testing.B) {
			f, err := etl.NewFile(bytes.NewReader(data), int64(len(data)))
			if err != nil {
				b.Fatal(err)
			}
			f.Buffers()
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			events := 0
			for b.Loop() {
				r := etl.NewReader([]*etl.File{f}, &etl.ReaderOptions{Order: order})
				for r.Next() {
					events++
				}
				r.Close()
			}
			b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
		})
	}
}

// BenchmarkMerge reads every event in time order (k-way merge across CPUs).
func BenchmarkMerge(b *testing.B) { benchReader(b, etl.TimeOrder) }

// BenchmarkFileOrder reads every event in file order.
func BenchmarkFileOrder(b *testing.B) { benchReader(b, etl.FileOrder) }

// BenchmarkWalkRecords parses the records of buffers already in memory: the
// per-record cost, which must not allocate.
func BenchmarkWalkRecords(b *testing.B) {
	data := synthetic()
	f, err := etl.NewFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		b.Fatal(err)
	}
	var bufs []*etl.Buffer
	var total int64
	for _, bi := range f.Buffers() {
		buf, err := f.ReadBuffer(bi)
		if err != nil {
			b.Fatal(err)
		}
		bufs = append(bufs, buf)
		total += int64(len(buf.Data))
	}
	b.SetBytes(total)
	b.ReportAllocs()
	var rr etl.RecordReader
	var ev etl.Event
	n := 0
	for b.Loop() {
		for _, buf := range bufs {
			rr.Reset(buf)
			for rr.Next(&ev) {
				n++
			}
		}
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "records/s")
}

// TestWalkDoesNotAllocate pins the zero-allocation walk.
func TestWalkDoesNotAllocate(t *testing.T) {
	data := etltest.Sample()
	f := open(t, data)
	buf, err := f.ReadBuffer(f.Buffers()[2])
	if err != nil {
		t.Fatal(err)
	}
	var rr etl.RecordReader
	var ev etl.Event
	rr.Reset(buf)
	for rr.Next(&ev) { // warm the extended-item scratch space
	}
	allocs := testing.AllocsPerRun(100, func() {
		rr.Reset(buf)
		for rr.Next(&ev) {
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per buffer walk, want 0", allocs)
	}
}

// BenchmarkScan is File.Scan, what "tracerpt-go info" does: every buffer
// read and every record walked and counted, on GOMAXPROCS goroutines.
// MB/s are bytes of file; compare with cat's (docs/performance.md).
func BenchmarkScan(b *testing.B) {
	for name, data := range benchInputs(b) {
		b.Run(name, func(b *testing.B) {
			f, err := etl.NewFile(bytes.NewReader(data), int64(len(data)))
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				n = f.Scan().Events
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
		})
	}
}
