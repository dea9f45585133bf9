package analysis_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/etwkit/etw/analysis"
	"github.com/etwkit/etw/analysis/analysistest"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/tracelogging"
)

// TestResolveRangeBoundaries pins the address and time rules of frame
// resolution at their edges, as TraceEvent's TraceLog states them: an
// image or .NET method holds [start, start+size), and at time t the one
// loaded at or before t and unloaded at or after t answers. The trace is
// written by our writer with kernel Image events and .NET method events.
func TestResolveRangeBoundaries(t *testing.T) {
	const (
		pid      = 300
		tid      = 301
		baseA    = 0x10000000 // 0x10000 bytes, alive all along
		baseB    = 0x10010000 // 0x1000 bytes, right after A
		baseC    = 0x20000000 // loaded at 10 µs, unloaded at 20 µs
		methodAt = 0x30000000 // M1 (0x100 bytes) 40–50 µs, then M2 (0x80 bytes) from 60 µs
	)
	w := newTraceWriter()
	ew, err := etl.NewWriter(&w.buf, &etl.WriterOptions{Header: etl.LogfileHeader{
		StartTime: fileTime(traceStart), Is64: true, NumberOfProcessors: 1, LoggerName: "range edges"}})
	if err != nil {
		t.Fatal(err)
	}
	w.W = ew
	imageEv := func(us int, op uint8 /* 3 DCStart, 10 Load, 2 Unload */, base, size uint64, path string) {
		w.Kernel(us, hookImage, op, 2, 0xFFFFFFFF, 0xFFFFFFFF, analysistest.ImagePayload(base, size, pid, path))
	}
	w.Kernel(0, hookProcess, 3, 3, pid, tid, analysistest.ProcessPayload(pid, 4, "edge.exe", "edge.exe"))
	imageEv(1, 3, baseA, 0x10000, `C:\edge\a.dll`)
	imageEv(1, 3, baseB, 0x1000, `C:\edge\b.dll`)
	imageEv(10, 10, baseC, 0x2000, `C:\edge\c-first.dll`)
	imageEv(20, 2, baseC, 0x2000, `C:\edge\c-first.dll`)
	imageEv(30, 10, baseC, 0x2000, `C:\edge\c-second.dll`)
	method := func(us int, id uint16 /* 143 load, 144 unload */, name string, size uint32) {
		w.clr(us, id, pid, tid, "MethodLoadVerbose",
			tracelogging.Uint64("MethodID", uint64(us)), tracelogging.Uint64("ModuleID", 2), tracelogging.Uint64("MethodStartAddress", methodAt),
			tracelogging.Uint32("MethodSize", size), tracelogging.Uint32("MethodToken", 0x06000001), tracelogging.Uint32("MethodFlags", 8),
			tracelogging.UnicodeString("MethodNamespace", "Edge"), tracelogging.UnicodeString("MethodName", name),
			tracelogging.UnicodeString("MethodSignature", "void  ()"), tracelogging.Uint16("ClrInstanceID", 9))
	}
	method(40, 143, "First", 0x100)
	method(50, 144, "First", 0x100)
	method(60, 143, "Second", 0x80)
	w.Kernel(100, hookThread, 2, 2, pid, tid, analysistest.ThreadPayload(pid, tid))
	if w.Err != nil {
		t.Fatal(w.Err)
	}
	if err := ew.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := etl.NewFile(bytes.NewReader(w.buf.Bytes()), int64(w.buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	m, err := analysis.Build([]*etl.File{f}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	at := func(us int) time.Time { return traceStart.Add(time.Duration(us) * time.Microsecond) }
	image := func(fr analysis.Frame) string {
		if fr.Image == nil {
			return ""
		}
		return fr.Image.FileName()
	}
	method2 := func(fr analysis.Frame) string {
		if fr.Method == nil {
			return ""
		}
		return fr.Method.Name
	}
	for _, c := range []struct {
		what  string
		addr  uint64
		us    int
		image string
	}{
		{"A's first byte", baseA, 5, "a.dll"},
		{"A's last byte", baseA + 0xFFFF, 5, "a.dll"},
		{"one past A's end is B's first byte", baseA + 0x10000, 5, "b.dll"},
		{"B's last byte", baseB + 0xFFF, 5, "b.dll"},
		{"one past B's end: no image", baseB + 0x1000, 5, ""},
		{"one before A: no image", baseA - 1, 5, ""},
		{"C at its load", baseC + 0x10, 10, "c-first.dll"},
		{"C at its unload", baseC + 0x10, 20, "c-first.dll"},
		{"C's last byte", baseC + 0x1FFF, 15, "c-first.dll"},
		{"one past C's end", baseC + 0x2000, 15, ""},
		{"the image loaded again at C's base, at its load", baseC + 0x10, 30, "c-second.dll"},
		{"the image loaded again at C's base, later", baseC + 0x10, 90, "c-second.dll"},
	} {
		if got := image(m.ResolveFrame(pid, c.addr, at(c.us))); got != c.image {
			t.Errorf("%s (%#x at %d µs): image %q, want %q", c.what, c.addr, c.us, got, c.image)
		}
	}
	for _, c := range []struct {
		what   string
		addr   uint64
		us     int
		method string
	}{
		{"M1's first byte", methodAt, 45, "First"},
		{"M1's last byte", methodAt + 0xFF, 45, "First"},
		{"one past M1's end", methodAt + 0x100, 45, ""},
		{"M1 at its unload", methodAt + 0x10, 50, "First"},
		{"M2 loaded over M1, at its load", methodAt + 0x10, 60, "Second"},
		{"M2's last byte", methodAt + 0x7F, 70, "Second"},
	} {
		if got := method2(m.ResolveFrame(pid, c.addr, at(c.us))); got != c.method {
			t.Errorf("%s (%#x at %d µs): method %q, want %q", c.what, c.addr, c.us, got, c.method)
		}
	}
	// Past M2's end but inside M1's old range, after M1's unload: not M2.
	if got := method2(m.ResolveFrame(pid, methodAt+0x80, at(70))); got == "Second" {
		t.Errorf("%#x at 70 µs: M2 (0x80 bytes) answered one past its end", methodAt+0x80)
	}
}
