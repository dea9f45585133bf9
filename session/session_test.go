package session_test

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"testing"

	"github.com/google/uuid"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/session"
)

func TestWriteReadBack(t *testing.T) {
	fs := &session.MemFS{}
	sys := newSys(2)
	s := mustStart(t, sys, "basic", &session.SessionOptions{Create: fs.Create, BufferSize: 4096})
	must(t, s.Enable(provA, 0, 0, 0))
	must(t, s.Enable(classic, 0, 0, 0))
	p := mustRegister(t, sys, provA, session.Manifest)
	p32, err := sys.RegisterProvider(provA, session.Manifest, &session.ProviderOptions{Is32Bit: true})
	must(t, err)
	pc := mustRegister(t, sys, classic, session.Classic)
	act, rel := uuid.MustParse("aaaaaaaa-0000-4000-8000-000000000001"), uuid.MustParse("bbbbbbbb-0000-4000-8000-000000000002")
	ctx := &session.Context{ProcessID: 42, ThreadID: 7, ActivityID: act, KernelTime: 3, UserTime: 4}
	d := etl.EventDescriptor{ID: 5, Version: 1, Level: 4, Opcode: 1, Task: 2, Keyword: 0x10}
	must(t, p.Write(ctx, d, payload(0, 8)))
	must(t, p.WriteTransfer(ctx, d, nil, &rel, payload(1, 8)))
	must(t, p32.Write(nil, d, payload(2, 8)))
	must(t, pc.TraceEvent(ctx, provC, 12, 3, 2, payload(3, 8)))
	must(t, p.WriteString(ctx, 2, 0, "hello"))
	stack := []byte{1, 0, 0, 0, 0, 0, 0, 0, 0x10, 0x20, 0x30, 0x40, 0, 0, 0, 0}
	must(t, p.WriteEx(ctx, d, &session.WriteOptions{ActivityID: &rel, RelatedActivityID: &act, EventProperty: 8,
		Extended: []etl.ExtendedItem{{Type: etl.ExtStackTrace64, Data: stack}}}, payload(5, 8)))
	must(t, s.Stop())

	evs, h := readOne(t, fs, "basic.etl")
	if len(evs) != 6 {
		t.Fatalf("%d events back, want 6", len(evs))
	}
	want := []struct {
		hdr      etl.HeaderType
		prov     uuid.UUID
		tid, pid uint32
		act, rel uuid.UUID
	}{
		{etl.HeaderEvent64, provA, 7, 42, act, uuid.Nil},
		{etl.HeaderEvent64, provA, 7, 42, act, rel},
		{etl.HeaderEvent32, provA, 0, 0, uuid.Nil, uuid.Nil},
		{etl.HeaderClassic64, provC, 7, 42, uuid.Nil, uuid.Nil},
		{etl.HeaderEvent64, provA, 7, 42, act, uuid.Nil},
		{etl.HeaderEvent64, provA, 7, 42, rel, act},
	}
	for i, w := range want {
		e := evs[i]
		if e.Header != w.hdr || e.Provider != w.prov || e.TID != w.tid || e.PID != w.pid || e.Activity != w.act || e.Related != w.rel {
			t.Errorf("event %d: %+v, want %+v", i, e, w)
		}
		if i < 4 && e.seq() != uint32(i) {
			t.Errorf("event %d: payload %x", i, e.Data)
		}
		if int(e.CPU) != i%2 {
			t.Errorf("event %d on cpu %d, want %d", i, e.CPU, i%2)
		}
	}
	if evs[3].Opcode != 12 || evs[3].Level != 3 || evs[0].ID != 5 || evs[0].Keyword != 0x10 {
		t.Errorf("descriptors: %+v %+v", evs[0], evs[3])
	}
	if string(evs[4].Data) != "h\x00e\x00l\x00l\x00o\x00\x00\x00" {
		t.Errorf("string event payload %q", evs[4].Data)
	}
	if !slices.Equal(evs[5].Ext, []etl.ExtType{etl.ExtRelatedActivityID, etl.ExtStackTrace64}) || evs[5].seq() != 5 {
		t.Errorf("WriteEx event: %+v", evs[5])
	}
	for i := 1; i < len(evs); i++ {
		if evs[i].Timestamp <= evs[i-1].Timestamp {
			t.Errorf("timestamps not increasing: %d then %d", evs[i-1].Timestamp, evs[i].Timestamp)
		}
	}
	if h.LoggerName != "basic" || h.LogFileName != "basic.etl" || h.NumberOfProcessors != 2 || h.BufferSize != 4096 ||
		h.LogFileMode != etl.ModeSequential || h.EventsLost != 0 || h.PerfFreq != session.DefaultFrequency ||
		h.BootTime != session.DefaultBootTime || h.StartTime != session.DefaultBootTime+1001 || h.HeaderTimestamp != 1001 ||
		h.EndTime != evs[5].Time || h.BuffersWritten < 2 {
		t.Errorf("header %+v", h)
	}
	// Stopped: control calls fail, the name is free again.
	if err := s.Stop(); err != session.ErrStopped {
		t.Errorf("second Stop: %v", err)
	}
	if sys.Session("basic") != nil {
		t.Error("a stopped session is still listed")
	}
}

// fileBuf is an in-memory io.Writer + io.WriterAt for etl.Writer.
type fileBuf struct{ b []byte }

func (f *fileBuf) Write(p []byte) (int, error) { f.b = append(f.b, p...); return len(p), nil }
func (f *fileBuf) WriteAt(p []byte, off int64) (int, error) {
	if int(off)+len(p) > len(f.b) {
		return 0, io.ErrShortWrite
	}
	return copy(f.b[off:], p), nil
}

// TestSameBytesAsEtlWriter checks that a session writes the bytes
// etl.Writer writes for the same events, in the sequential, size-bounded,
// circular and compressed forms.
func TestSameBytesAsEtlWriter(t *testing.T) {
	cases := []struct {
		name string
		mode uint32
		max  int64
	}{
		{"sequential", 0, 0},
		{"bounded", 0, 6 * 4096},
		{"circular", etl.ModeCircular, 5 * 4096},
		{"compressed", etl.ModeCompressed, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fs := &session.MemFS{}
			sys := newSys(3)
			s := mustStart(t, sys, "parity", &session.SessionOptions{Create: fs.Create, BufferSize: 4096, LogFileMode: c.mode, MaxFileSize: c.max,
				MaximumBuffers: 64})
			must(t, s.Enable(provA, 0, 0, 0))
			p := mustRegister(t, sys, provA, session.Manifest)
			ctx := &session.Context{ProcessID: 1, ThreadID: 2}
			for i := 0; i < 600; i++ {
				err := p.Write(ctx, etl.EventDescriptor{ID: uint16(i), Level: 4}, payload(uint32(i), i%90))
				if err != nil && err != session.ErrEventLost {
					t.Fatal(err)
				}
				if i == 300 {
					must(t, s.Flush())
				}
			}
			must(t, s.Stop())
			got := fs.Bytes("parity.etl")

			// The same events through etl.Writer, with the header the
			// session wrote at start.
			f := openMem(t, got)
			h := f.Header
			h.EndTime, h.BuffersWritten, h.EventsLost, h.BuffersLost = 0, 0, 0, 0
			var out fileBuf
			w, err := etl.NewWriter(&out, &etl.WriterOptions{Header: h, BufferSize: 4096, LoggerID: 1, Compress: c.mode&etl.ModeCompressed != 0,
				MaxFileSize: c.max, Circular: c.mode&etl.ModeCircular != 0})
			must(t, err)
			tick := int64(1001)
			for i := 0; i < 600; i++ {
				tick++
				ev := etl.Event{Header: etl.HeaderEvent64, ProviderID: provA, Descriptor: etl.EventDescriptor{ID: uint16(i), Level: 4},
					ProcessID: 1, ThreadID: 2, Timestamp: tick, Processor: uint16(i % 3), UserData: payload(uint32(i), i%90)}
				if err := w.WriteEvent(&ev); err != nil && err != etl.ErrLogFull {
					t.Fatal(err)
				}
				if i == 300 {
					must(t, w.Flush())
					tick++ // the session's Flush reads the clock
				}
			}
			must(t, w.Close())
			if !bytes.Equal(got, out.b) {
				t.Errorf("session wrote %d bytes, etl.Writer %d; first difference at %d", len(got), len(out.b), firstDiff(got, out.b))
			}
			if c.max != 0 && c.mode == 0 && f.Header.EventsLost == 0 {
				t.Error("the bounded file lost nothing")
			}
		})
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestDeterministic runs one scenario twice: the files are identical.
func TestDeterministic(t *testing.T) {
	run := func() map[string][]byte {
		fs := &session.MemFS{}
		sys := newSys(4)
		s1 := mustStart(t, sys, "one", &session.SessionOptions{Create: fs.Create, BufferSize: 4096, FlushTimer: 50})
		s2 := mustStart(t, sys, "two", &session.SessionOptions{Create: fs.Create, BufferSize: 8192, LogFileMode: etl.ModeNewFile | etl.ModeCompressed,
			MaxFileSize: 4 * 8192})
		must(t, s1.Enable(provA, 4, 0, 0))
		must(t, s2.Enable(provA, 0, 0x2, 0, session.WithProperties(session.PropertyEventKey|session.PropertyTSID)))
		must(t, s2.Enable(provTL, 0, 0, 0))
		p := mustRegister(t, sys, provA, session.Manifest)
		tl, err := sys.RegisterProvider(provTL, session.TraceLogging, &session.ProviderOptions{Traits: []byte("\x08\x00tlp\x00\x00")})
		must(t, err)
		for i := 0; i < 5000; i++ {
			p.Write(&session.Context{ProcessID: uint32(i % 7), SessionID: 1}, etl.EventDescriptor{ID: uint16(i), Level: uint8(i % 6), Keyword: uint64(i % 4)}, payload(uint32(i), i%33))
			if i%3 == 0 {
				tl.WriteTraceLogging(nil, etl.EventDescriptor{Level: 4}, nil, []byte("\x0b\x00\x00ev\x00f\x00\x01"), payload(uint32(i), 4))
			}
		}
		must(t, sys.StopAll())
		out := map[string][]byte{}
		for _, n := range fs.Names() {
			out[n] = fs.Bytes(n)
		}
		return out
	}
	a, b := run(), run()
	if len(a) < 3 || len(a) != len(b) {
		t.Fatalf("%d and %d files", len(a), len(b))
	}
	for n := range a {
		if !bytes.Equal(a[n], b[n]) {
			t.Errorf("%s differs between runs (at %d)", n, firstDiff(a[n], b[n]))
		}
	}
}

func TestSessionLimits(t *testing.T) {
	fs := &session.MemFS{}
	sys := session.New(nil)
	var ss []*session.Session
	for i := 0; i < session.MaxSessions; i++ {
		ss = append(ss, mustStart(t, sys, fmt.Sprint("s", i), &session.SessionOptions{Create: fs.Create, BufferSize: 4096}))
	}
	if _, err := sys.StartSession("one too many", &session.SessionOptions{Create: fs.Create}); err != session.ErrSessionLimit {
		t.Fatalf("65th session: %v", err)
	}
	if _, err := sys.StartSession("s3", &session.SessionOptions{Create: fs.Create}); err != session.ErrSessionExists {
		t.Fatalf("duplicate name: %v", err)
	}
	must(t, ss[10].Stop())
	s, err := sys.StartSession("again", &session.SessionOptions{Create: fs.Create, BufferSize: 4096})
	must(t, err)
	if s.LoggerID() != 11 {
		t.Errorf("logger id %d reused, want 11", s.LoggerID())
	}
	if len(sys.Sessions()) != session.MaxSessions {
		t.Errorf("%d sessions", len(sys.Sessions()))
	}
	must(t, sys.StopAll())

	// Option checks.
	bad := []session.SessionOptions{
		{BufferSize: 2048},
		{BufferSize: 2 << 20},
		{BufferSize: 5000},
		{LogFileMode: etl.ModeCircular},
		{LogFileMode: etl.ModeCircular | etl.ModeCompressed, MaxFileSize: 1 << 20},
		{LogFileMode: etl.ModeNewFile, MaxFileSize: 1 << 20, FileName: "nopattern.etl"},
		{LogFileMode: etl.ModeCircular | etl.ModeNewFile, MaxFileSize: 1 << 20},
		{LogFileMode: etl.ModeBuffering, MaxFileSize: 1 << 20},
		{LogFileMode: etl.ModeRealTime},
		{MaxFileSize: 4096, BufferSize: 4096},
		{ClockType: etl.ClockCPUCycle},
	}
	for i, o := range bad {
		o.Create = fs.Create
		if _, err := sys.StartSession(fmt.Sprint("bad", i), &o); err == nil {
			t.Errorf("options %+v accepted", o)
		}
	}
}

// TestConcurrentWriters writes from several goroutines while a
// controller flushes and enables: every event arrives once.
func TestConcurrentWriters(t *testing.T) {
	fs := &session.MemFS{}
	sys := session.New(&session.Options{Processors: 4})
	s := mustStart(t, sys, "conc", &session.SessionOptions{Create: fs.Create, BufferSize: 4096, FlushTimer: 3})
	must(t, s.Enable(provA, 0, 0, 0))
	p := mustRegister(t, sys, provA, session.Manifest)
	const writers, each = 4, 2000
	done := make(chan error)
	for w := range writers {
		go func() {
			var err error
			for i := range each {
				if e := p.Write(&session.Context{ThreadID: uint32(w)}, etl.EventDescriptor{ID: 1}, payload(uint32(w*each+i), 8)); e != nil {
					err = e
				}
			}
			done <- err
		}()
	}
	for i := 0; i < 50; i++ {
		sys.Advance(1)
		must(t, s.Flush())
		must(t, s.Enable(provB, 0, 0, 0))
	}
	for range writers {
		must(t, <-done)
	}
	must(t, s.Stop())
	evs, _ := readOne(t, fs, "conc.etl")
	got := seqs(evs)
	slices.Sort(got)
	if len(got) != writers*each {
		t.Fatalf("%d events", len(got))
	}
	for i, v := range got {
		if v != uint32(i) {
			t.Fatalf("event %d missing", i)
		}
	}
}
