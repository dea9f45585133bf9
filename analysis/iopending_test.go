package analysis_test

import (
	"bytes"
	"testing"

	"github.com/etwkit/etw/analysis"
	"github.com/etwkit/etw/analysis/analysistest"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
)

// TestIOPendingBound: FileIo reads whose OpEnd never comes fill the
// pairing's bound (65,536 operations awaiting their OpEnd); the reads
// past it are counted as untimed (IOSummary.LatencyDropped), not silently
// left out of the latencies, and the pending ones are still timed: the
// one whose OpEnd comes is, the 65,535 others are counted untimed too.
func TestIOPendingBound(t *testing.T) {
	const hookFileIo, bound, past = uint16(0x04), 1 << 16, 3
	irp := func(i int) uint64 { return 0xFFFF_A000_0000_0000 + uint64(i)*0x40 }
	files, dec, m := kernelTrace(t, 1, "file io", func(tw *traceWriter) {
		tw.Kernel(0, hookProcess, 3, 3, appPID, appTID, analysistest.ProcessPayload(appPID, 4, "app.exe", "app.exe"))
		for i := range bound + past { // FileIo v3 Read: Offset, IrpPtr, FileObject, FileKey, TTID, IoSize, IoFlags
			p := (&analysistest.Payload{}).U64(0).U64(irp(i)).U64(0xF0).U64(0xF0).U32(appTID).U32(512).U32(0)
			tw.Kernel(1+i/64, hookFileIo, 67, 3, appPID, appTID, p.B)
		}
		for _, i := range []int{0, bound + 1} { // OperationEnd: IrpPtr, ExtraInfo, NtStatus
			p := (&analysistest.Payload{}).U64(irp(i)).U64(0).U32(0)
			tw.Kernel(2000, hookFileIo, 76, 3, appPID, appTID, p.B)
		}
	})
	io := analysis.NewIOStats(m, files, analysis.TimeAxis{})
	if _, _, err := m.Collect(files, dec, &analysis.CollectOptions{Decode: func(*etl.Event) bool { return true }, Observe: io.Observe}); err != nil {
		t.Fatal(err)
	}
	sum := io.File(5)
	if sum == nil {
		t.Fatal("no file I/O")
	}
	if sum.Total.Reads != bound+past || sum.Total.Timed != 1 || !sum.LatencyKnown || sum.LatencyDropped != past+bound-1 {
		t.Errorf("%d reads, %d timed (latency known %v), %d dropped; want %d, 1 (true), %d past the bound + %d never ended",
			sum.Total.Reads, sum.Total.Timed, sum.LatencyKnown, sum.LatencyDropped, bound+past, past, bound-1)
	}
}

// TestIOLostOpEnd: a FileIo read whose IRP a later read takes before its
// OpEnd, and one whose OpEnd never comes, are counted untimed; a trace
// without OpEnd events times nothing and says nothing dropped.
func TestIOLostOpEnd(t *testing.T) {
	const hookFileIo = uint16(0x04)
	read := func(tw *traceWriter, at int, irp uint64) { // FileIo v3 Read: Offset, IrpPtr, FileObject, FileKey, TTID, IoSize, IoFlags
		p := (&analysistest.Payload{}).U64(0).U64(irp).U64(0xF0).U64(0xF0).U32(appTID).U32(512).U32(0)
		tw.Kernel(at, hookFileIo, 67, 3, appPID, appTID, p.B)
	}
	opEnd := func(tw *traceWriter, at int, irp uint64) { // OperationEnd: IrpPtr, ExtraInfo, NtStatus
		p := (&analysistest.Payload{}).U64(irp).U64(0).U32(0)
		tw.Kernel(at, hookFileIo, 76, 3, appPID, appTID, p.B)
	}
	const a, b = 0xFFFF_A000_0000_0040, 0xFFFF_A000_0000_0080
	for _, c := range []struct {
		name           string
		ends           bool
		timed, dropped int
	}{{"with OpEnds", true, 1, 2}, {"without OpEnds", false, 0, 0}} {
		files, dec, m := kernelTrace(t, 1, "file io", func(tw *traceWriter) {
			tw.Kernel(0, hookProcess, 3, 3, appPID, appTID, analysistest.ProcessPayload(appPID, 4, "app.exe", "app.exe"))
			read(tw, 1, a)
			read(tw, 2, a) // a's first read has not ended: its OpEnd is lost
			read(tw, 3, b) // never ends
			if c.ends {
				opEnd(tw, 4, a)
			}
		})
		io := analysis.NewIOStats(m, files, analysis.TimeAxis{})
		if _, _, err := m.Collect(files, dec, &analysis.CollectOptions{Decode: func(*etl.Event) bool { return true }, Observe: io.Observe}); err != nil {
			t.Fatal(err)
		}
		sum := io.File(5)
		if sum == nil {
			t.Fatalf("%s: no file I/O", c.name)
		}
		if sum.Total.Reads != 3 || sum.Total.Timed != c.timed || sum.LatencyKnown != c.ends || sum.LatencyDropped != c.dropped {
			t.Errorf("%s: %d reads, %d timed (latency known %v), %d dropped; want 3, %d (%v), %d",
				c.name, sum.Total.Reads, sum.Total.Timed, sum.LatencyKnown, sum.LatencyDropped, c.timed, c.ends, c.dropped)
		}
	}
}

// kernelTrace writes the events write writes (a 64-bit trace of cpus
// processors, logger name) and returns the trace opened, a decoder and
// its analysis model.
func kernelTrace(t testing.TB, cpus uint32, name string, write func(*traceWriter)) ([]*etl.File, *decode.Decoder, *analysis.Model) {
	t.Helper()
	tw := newTraceWriter()
	w, err := etl.NewWriter(&tw.buf, &etl.WriterOptions{Header: etl.LogfileHeader{
		StartTime: fileTime(traceStart), Is64: true, NumberOfProcessors: cpus, LoggerName: name}})
	if err != nil {
		t.Fatal(err)
	}
	tw.W = w
	write(tw)
	if tw.Err != nil {
		t.Fatal(tw.Err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	b := tw.buf.Bytes()
	f, err := etl.NewFile(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	files, dec := []*etl.File{f}, decode.New()
	m, err := analysis.Build(files, dec, nil)
	if err != nil {
		t.Fatal(err)
	}
	return files, dec, m
}
