package etl_test

import (
	"bytes"
	"errors"
	"io"
	"path/filepath"
	"testing"

	"github.com/google/uuid"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/etltest"
)

// fileBuf is an in-memory io.Writer + io.WriterAt, like an *os.File.
type fileBuf struct{ b []byte }

func (f *fileBuf) Write(p []byte) (int, error) { f.b = append(f.b, p...); return len(p), nil }
func (f *fileBuf) WriteAt(p []byte, off int64) (int, error) {
	if int(off)+len(p) > len(f.b) {
		return 0, io.ErrShortWrite
	}
	return copy(f.b[off:], p), nil
}

func testHeader() etl.LogfileHeader {
	return etl.LogfileHeader{Is64: true, NumberOfProcessors: 4, StartTime: 132247862638609634, HeaderTimestamp: 80000000000,
		LoggerName: "writer test", LogFileName: `C:\w.etl`, CPUSpeedMHz: 3000, TimerResolution: 156250}
}

// everyKind returns one event of every record kind the writer can write.
func everyKind() []etl.Event {
	sid := []byte{1, 1, 0, 0, 0, 0, 0, 5, 18, 0, 0, 0}
	ts := int64(80000000100)
	next := func() int64 { ts += 10; return ts }
	return []etl.Event{
		{Header: etl.HeaderSystem64, HookID: 0x0301, ClassVersion: 3, ThreadID: 1, ProcessID: 2, Timestamp: next(), KernelTime: 3, UserTime: 4, UserData: []byte("proc"), Processor: 0},
		{Header: etl.HeaderSystem64, HookID: 0x0524, ClassVersion: 2, Timestamp: next(), Processor: 1, UserData: []byte{1},
			Extended: []etl.ExtendedItem{{Type: etl.ExtPEBSIndex, Data: make([]byte, 8)}, {Type: etl.ExtPMCCounters, Data: make([]byte, 16)}}},
		{Header: etl.HeaderCompact32, HookID: 0x0502, ClassVersion: 2, ThreadID: 5, ProcessID: 6, Timestamp: next(), Processor: 2},
		{Header: etl.HeaderPerfInfo64, HookID: 0x0F2E, ClassVersion: 2, Timestamp: next(), UserData: []byte{9, 9}, Processor: 3},
		{Header: etl.HeaderClassic32, ProviderID: provA, Descriptor: etl.EventDescriptor{Opcode: 1, Level: 4}, ClassVersion: 2, Timestamp: next(), UserData: []byte("c32")},
		{Header: etl.HeaderClassic64, ProviderID: provB, Descriptor: etl.EventDescriptor{Opcode: 2}, Timestamp: next(), Processor: 1},
		{Header: etl.HeaderInstance64, ProviderID: provA, InstanceID: 7, ParentInstanceID: 6, ParentGUID: provB, Timestamp: next(), Processor: 2},
		{Header: etl.HeaderEvent64, ProviderID: provB, Descriptor: etl.EventDescriptor{ID: 5, Version: 1, Channel: 16, Level: 4, Opcode: 1, Task: 3, Keyword: 0x80},
			ActivityID: uuid.MustParse("11111111-2222-3333-4444-555555555555"), Timestamp: next(), Processor: 3, UserData: []byte("hello"),
			Extended: []etl.ExtendedItem{{Type: etl.ExtRelatedActivityID, Data: provA[:]}, {Type: etl.ExtSID, Data: sid}}},
		{Header: etl.HeaderEvent32, ProviderID: provA, Descriptor: etl.EventDescriptor{ID: 6}, Timestamp: next(), UserData: []byte{1, 2, 3}},
		{Header: etl.HeaderMessage, Descriptor: etl.EventDescriptor{ID: 12}, MessageFlags: 0x2F, ProviderID: provA, SequenceNumber: 9, Timestamp: next(), ThreadID: 4, ProcessID: 5, UserData: []byte("wpp"), Processor: 1},
		{Header: etl.HeaderError, ProviderID: provB, Descriptor: etl.EventDescriptor{ID: 1}, Flags: etl.Flag64BitHeader, Timestamp: next(), Processor: 2},
	}
}

func readBack(t *testing.T, b []byte, order etl.Order) ([]etl.Event, *etl.File) {
	t.Helper()
	f := open(t, b)
	evs, errs := collect(t, []*etl.File{f}, order)
	if len(errs) != 0 {
		t.Fatalf("reading back: %v", errs)
	}
	return evs, f
}

func TestWriterEveryKind(t *testing.T) {
	for _, compress := range []bool{false, true} {
		var out fileBuf
		w, err := etl.NewWriter(&out, &etl.WriterOptions{Header: testHeader(), BufferSize: 4096, Compress: compress})
		if err != nil {
			t.Fatal(err)
		}
		want := everyKind()
		for i := range want {
			if err := w.WriteEvent(&want[i]); err != nil {
				t.Fatalf("event %d (%v): %v", i, want[i].Header, err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		got, f := readBack(t, out.b, etl.TimeOrder)
		got = got[2:] // header and partition info
		if len(got) != len(want) {
			t.Fatalf("compress=%v: %d events back, want %d", compress, len(got), len(want))
		}
		for i := range want {
			// What the reader adds: consumer flags and the buffer context.
			back, _ := reparse(t, &want[i])
			back.LoggerID, back.Processor = 1, want[i].Processor
			back.Flags |= etl.FlagProcessorIndex
			if !sameEvent(&got[i], back) {
				t.Errorf("compress=%v event %d:\n got %+v\nwant %+v", compress, i, got[i], *back)
			}
		}
		h := f.Header
		st := f.Scan()
		if int(h.BuffersWritten) != st.Buffers || h.EndTime != got[len(got)-1].Time || h.Compressed() != compress || (st.CompressedBuffers > 0) != compress {
			t.Errorf("compress=%v: header %+v, stats %+v", compress, h, st)
		}
	}
}

func TestWriterSplitsBuffersAndKeepsOrder(t *testing.T) {
	var out fileBuf
	w, err := etl.NewWriter(&out, &etl.WriterOptions{Header: testHeader(), BufferSize: 1024})
	if err != nil {
		t.Fatal(err)
	}
	const n = 2000
	for i := 0; i < n; i++ {
		ev := etl.Event{Header: etl.HeaderEvent64, ProviderID: provB, Descriptor: etl.EventDescriptor{ID: uint16(i)},
			Timestamp: 80000000000 + int64(i), Processor: uint16(i * 7 % 4), UserData: bytes.Repeat([]byte{byte(i)}, i%50)}
		if err := w.WriteEvent(&ev); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got, f := readBack(t, out.b, etl.TimeOrder)
	got = got[2:]
	for i, ev := range got {
		if int(ev.Descriptor.ID) != i || int(ev.Processor) != i*7%4 || len(ev.UserData) != i%50 {
			t.Fatalf("event %d: id %d cpu %d", i, ev.Descriptor.ID, ev.Processor)
		}
	}
	bufs := f.Buffers()
	if len(got) != n || len(bufs) < 100 {
		t.Errorf("%d events in %d buffers", len(got), len(bufs))
	}
	for i, b := range bufs {
		last := i == len(bufs)-1
		if (b.Header.Flags&etl.BufferFlagFlushMarker != 0) != (i == 0 || last) || b.Header.BufferSize != 1024 {
			t.Errorf("buffer %d: flags %#x size %d", i, b.Header.Flags, b.Header.BufferSize)
		}
	}
	// Out-of-order events on one processor are refused.
	w, _ = etl.NewWriter(&fileBuf{}, &etl.WriterOptions{Header: testHeader()})
	w.WriteEvent(&etl.Event{Header: etl.HeaderEvent64, Timestamp: 80000000100})
	if err := w.WriteEvent(&etl.Event{Header: etl.HeaderEvent64, Timestamp: 80000000050}); err == nil {
		t.Error("an event earlier than the previous one on the same processor was accepted")
	}
}

func TestWriterUnseekableAndKilled(t *testing.T) {
	var out bytes.Buffer // no WriterAt: the header is not completed
	w, err := etl.NewWriter(&out, &etl.WriterOptions{Header: testHeader(), BufferSize: 1024})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 100; i++ {
		w.WriteEvent(&etl.Event{Header: etl.HeaderEvent64, Timestamp: 80000000000 + int64(i), UserData: make([]byte, 40)})
	}
	w.Flush()
	flushed := out.Len() // a writer killed here left this much on disk
	for i := 100; i < 120; i++ {
		w.WriteEvent(&etl.Event{Header: etl.HeaderEvent64, Timestamp: 80000000000 + int64(i), UserData: make([]byte, 40)})
	}
	w.Close()
	evs, f := readBack(t, out.Bytes(), etl.FileOrder)
	if len(evs) != 122 || f.Header.BuffersWritten != 0 || f.Header.EndTime != 0 {
		t.Errorf("%d events, header %+v", len(evs), f.Header)
	}
	killed, _ := readBack(t, out.Bytes()[:flushed], etl.FileOrder)
	if len(killed) != 102 {
		t.Errorf("killed writer: %d events readable, want 102", len(killed))
	}
	// Killed in the middle of a buffer's records: that buffer is reported,
	// its whole records and the rest are read.
	f2 := open(t, out.Bytes()[:flushed-1024+etl.BufferHeaderSize+200])
	evs2, errs := collect(t, []*etl.File{f2}, etl.FileOrder)
	if len(errs) == 0 || !errors.Is(errs[0], io.ErrUnexpectedEOF) || len(evs2) < 90 {
		t.Errorf("torn buffer: %d events, errors %v", len(evs2), errs)
	}
}

func TestWriterTimeFromFiletime(t *testing.T) {
	for _, h := range []etl.LogfileHeader{testHeader(), func() etl.LogfileHeader { h := testHeader(); h.PerfFreq = 2337949; return h }()} {
		var out fileBuf
		w, _ := etl.NewWriter(&out, &etl.WriterOptions{Header: h})
		ft := h.StartTime + 123456789
		w.WriteEvent(&etl.Event{Header: etl.HeaderEvent64, Time: ft})
		w.Close()
		evs, _ := readBack(t, out.b, etl.FileOrder)
		if d := evs[2].Time - ft; d < -5 || d > 5 {
			t.Errorf("freq %d: FILETIME %d came back as %d", h.PerfFreq, ft, evs[2].Time)
		}
	}
}

// TestCorpusRelog writes every corpus file's events through the writer
// and reads them back: same events, same order.
func TestCorpusRelog(t *testing.T) {
	for _, p := range etltest.CorpusTraces(t) {
		rel, _ := filepath.Rel(etltest.CorpusDir(t), p)
		src := openPath(t, p)
		want, _ := collect(t, []*etl.File{src}, etl.TimeOrder)
		h := src.Header
		h.EndTime, h.BuffersWritten = 0, 0
		for _, compress := range []bool{false, true} {
			var out fileBuf
			w, err := etl.NewWriter(&out, &etl.WriterOptions{Header: h, BufferSize: int(max(h.BufferSize, 64<<10)), Compress: compress})
			if err != nil {
				t.Fatalf("%s: %v", rel, err)
			}
			var kept []etl.Event
			for i := range want {
				ev := &want[i]
				if ev.BufferIndex == 0 && (ev.HookID == 0 || ev.HookID == 0x0050) && ev.Header <= etl.HeaderSystem64 {
					continue // the writer makes its own header events
				}
				if ev.Header == etl.HeaderInstance32 || ev.Header == etl.HeaderInstance64 {
					if h.SubVersion < 1 || (h.SubVersion == 1 && h.SubMinorVersion == 0) {
						continue
					}
				}
				if err := w.WriteEvent(ev); err != nil {
					t.Fatalf("%s: event %d: %v", rel, i, err)
				}
				kept = append(kept, *ev)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			got, _ := readBack(t, out.b, etl.TimeOrder)
			got = got[2:]
			if len(got) != len(kept) {
				t.Fatalf("%s compress=%v: %d events back, want %d", rel, compress, len(got), len(kept))
			}
			for i := range kept {
				k := kept[i]
				k.LoggerID, k.Flags = 1, k.Flags|etl.FlagProcessorIndex
				if !sameEvent(&got[i], &k) || got[i].Time != kept[i].Time {
					t.Fatalf("%s compress=%v event %d:\n got %+v\nwant %+v", rel, compress, i, got[i], k)
				}
			}
		}
	}
}

// BenchmarkWriter writes small EVENT_HEADER events across 4 processors.
func BenchmarkWriter(b *testing.B) {
	for _, compress := range []bool{false, true} {
		b.Run(map[bool]string{false: "plain", true: "xpress"}[compress], func(b *testing.B) {
			w, err := etl.NewWriter(io.Discard, &etl.WriterOptions{Header: testHeader(), Compress: compress})
			if err != nil {
				b.Fatal(err)
			}
			ev := etl.Event{Header: etl.HeaderEvent64, ProviderID: provB, Descriptor: etl.EventDescriptor{ID: 1, Level: 4}, UserData: make([]byte, 40)}
			rec, _ := etl.AppendRecord(nil, &ev)
			b.SetBytes(int64(len(rec)))
			b.ReportAllocs()
			ts := int64(80000000000)
			for b.Loop() {
				ts++
				ev.Timestamp, ev.Processor = ts, uint16(ts&3)
				if err := w.WriteEvent(&ev); err != nil {
					b.Fatal(err)
				}
			}
			w.Close()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
		})
	}
}

func TestWriterCircular(t *testing.T) {
	var out fileBuf
	const bufSize, ringFile = 1024, 8 * 1024
	w, err := etl.NewWriter(&out, &etl.WriterOptions{Header: testHeader(), BufferSize: bufSize, MaxFileSize: ringFile, Circular: true})
	if err != nil {
		t.Fatal(err)
	}
	const n = 600
	for i := 0; i < n; i++ {
		ev := etl.Event{Header: etl.HeaderEvent64, Descriptor: etl.EventDescriptor{ID: uint16(i)}, Timestamp: 80000000000 + int64(i), Processor: uint16(i % 2), UserData: make([]byte, 24)}
		if err := w.WriteEvent(&ev); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if len(out.b) != ringFile {
		t.Fatalf("circular file is %d bytes, want %d", len(out.b), ringFile)
	}
	got, f := readBack(t, out.b, etl.TimeOrder)
	got = got[2:]
	h := f.Header
	if h.LogFileMode&etl.ModeCircular == 0 || h.MaximumFileSize != 8 || h.LogFileMode&etl.ModeUseKBytesForSize == 0 || int(h.BuffersWritten) <= ringFile/bufSize {
		t.Errorf("header: mode %#x max %d written %d", h.LogFileMode, h.MaximumFileSize, h.BuffersWritten)
	}
	// The newest events survive, in order, ending with the last one.
	if len(got) == 0 || len(got) >= n || got[len(got)-1].Descriptor.ID != n-1 {
		t.Fatalf("%d events survive, last id %v", len(got), got[len(got)-1].Descriptor.ID)
	}
	for i := 1; i < len(got); i++ {
		if got[i].Descriptor.ID <= got[i-1].Descriptor.ID {
			t.Fatalf("event %d (id %d) after id %d: wrap not ordered", i, got[i].Descriptor.ID, got[i-1].Descriptor.ID)
		}
	}
}

func TestWriterSequentialMaxSize(t *testing.T) {
	var out fileBuf
	w, err := etl.NewWriter(&out, &etl.WriterOptions{Header: testHeader(), BufferSize: 1024, MaxFileSize: 4 * 1024})
	if err != nil {
		t.Fatal(err)
	}
	accepted, lost := 0, 0
	for i := 0; i < 300; i++ {
		err := w.WriteEvent(&etl.Event{Header: etl.HeaderEvent64, Timestamp: 80000000000 + int64(i), UserData: make([]byte, 24)})
		switch {
		case err == nil:
			accepted++
		case errors.Is(err, etl.ErrLogFull):
			lost++
		default:
			t.Fatal(err)
		}
	}
	w.Close()
	got, f := readBack(t, out.b, etl.FileOrder)
	if len(out.b) > 4*1024 || lost == 0 {
		t.Fatalf("file %d bytes, %d lost", len(out.b), lost)
	}
	if int(f.Header.EventsLost) != lost+accepted-(len(got)-2) {
		t.Errorf("EventsLost %d; %d refused, %d accepted, %d read back", f.Header.EventsLost, lost, accepted, len(got)-2)
	}
}

func TestWriterMarksLastBufferAfterFlush(t *testing.T) {
	var out fileBuf
	w, _ := etl.NewWriter(&out, &etl.WriterOptions{Header: testHeader(), BufferSize: 1024})
	w.WriteEvent(&etl.Event{Header: etl.HeaderEvent64, Timestamp: 80000000001})
	w.Flush()
	w.Close()
	bufs := open(t, out.b).Buffers()
	if len(bufs) != 2 || bufs[1].Header.Flags != etl.BufferFlagProcIndex|etl.BufferFlagFlushMarker {
		t.Errorf("buffers %+v", bufs)
	}
}

func TestRingSlot(t *testing.T) {
	// A file of 8 slots whose first (the header buffer) is fixed: the
	// 8th buffer (n = 8) overwrites slot 1, the oldest, and so on round
	// the 7 ring slots.
	for n, want := range map[int]int{0: 0, 7: 7, 8: 1, 9: 2, 14: 7, 15: 1, 22: 1} {
		if got := etl.RingSlot(n, 1, 8); got != want {
			t.Errorf("RingSlot(%d, 1, 8) = %d, want %d", n, got, want)
		}
	}
}
