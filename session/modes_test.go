package session_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/session"
)

// writeN writes events first..first+n-1 (payload = number) through p,
// returning how many were lost.
func writeN(t testing.TB, p *session.Provider, first, n uint32, size int) int {
	t.Helper()
	lost := 0
	for i := first; i < first+n; i++ {
		switch err := p.Write(&session.Context{ProcessID: 4, ThreadID: 8}, etl.EventDescriptor{ID: uint16(i), Level: 4}, payload(i, size)); err {
		case nil:
		case session.ErrEventLost:
			lost++
		default:
			t.Fatal(err)
		}
	}
	return lost
}

// last returns the last element of s, or ^0 if there is none.
func last(s []uint32) uint32 {
	if len(s) == 0 {
		return ^uint32(0)
	}
	return s[len(s)-1]
}

func increasing(t testing.TB, what string, s []uint32) {
	t.Helper()
	for i := 1; i < len(s); i++ {
		if s[i] <= s[i-1] {
			t.Fatalf("%s: %d after %d (at %d)", what, s[i], s[i-1], i)
		}
	}
}

func TestSequentialStopsWhenFull(t *testing.T) {
	fs := &session.MemFS{}
	sys := newSys(2)
	const max = 8 * 4096
	s := mustStart(t, sys, "seq", &session.SessionOptions{Create: fs.Create, BufferSize: 4096, MaxFileSize: max})
	must(t, s.Enable(provA, 0, 0, 0))
	p := mustRegister(t, sys, provA, session.Manifest)
	lost := writeN(t, p, 0, 1000, 100)
	st := s.Stats()
	must(t, s.Stop())
	b := fs.Bytes("seq.etl")
	evs, h := readOne(t, fs, "seq.etl")
	if len(b) != max || lost == 0 || st.EventsLost != uint64(lost) {
		t.Fatalf("file %d bytes, %d lost, stats %+v", len(b), lost, st)
	}
	// What was kept is the beginning, in order; the rest is counted.
	got := seqs(evs)
	increasing(t, "sequential", got)
	if len(got) == 0 || got[0] != 0 || int(h.EventsLost) != 1000-len(evs) || h.BuffersWritten != 8 || h.MaximumFileSize != 32 ||
		h.LogFileMode != etl.ModeSequential|etl.ModeUseKBytesForSize {
		t.Errorf("first %d, %d kept, header %+v", got[0], len(evs), h)
	}
	// Every event of the first buffers is there: nothing lost before the
	// file filled.
	for i, v := range got[:len(got)/2] {
		if v != uint32(i) {
			t.Fatalf("event %d is %d", i, v)
		}
	}
}

func TestCircularKeepsNewest(t *testing.T) {
	for _, cpus := range []int{1, 4} {
		fs := &session.MemFS{}
		sys := newSys(cpus)
		const max = 8 * 4096
		s := mustStart(t, sys, "ring", &session.SessionOptions{Create: fs.Create, BufferSize: 4096, LogFileMode: etl.ModeCircular, MaxFileSize: max})
		must(t, s.Enable(provA, 0, 0, 0))
		p := mustRegister(t, sys, provA, session.Manifest)
		const n = 3000
		if lost := writeN(t, p, 0, n, 60); lost != 0 {
			t.Fatalf("circular session lost %d events", lost)
		}
		must(t, s.Stop())
		b := fs.Bytes("ring.etl")
		evs, h := readOne(t, fs, "ring.etl")
		got := seqs(evs)
		if len(b) != max || len(got) == 0 || len(got) >= n/2 || last(got) != n-1 {
			t.Fatalf("%d cpus: %d bytes, %d events kept, last %v", cpus, len(b), len(got), last(got))
		}
		increasing(t, "circular", got)
		if h.LogFileMode&etl.ModeCircular == 0 || h.BuffersWritten <= 8 || h.EventsLost != 0 {
			t.Errorf("header mode %#x, written %d, lost %d", h.LogFileMode, h.BuffersWritten, h.EventsLost)
		}
		if cpus == 1 {
			// One processor: the newest events, all of them.
			for i := range got {
				if got[i] != got[0]+uint32(i) {
					t.Fatalf("gap at %d: %d", i, got[i])
				}
			}
		}
		// Each processor's newest event survives.
		for c := 0; c < cpus; c++ {
			last := uint32(n - cpus + c)
			if !slices.Contains(got, last) {
				t.Errorf("%d cpus: the last event of cpu %d (%d) was overwritten", cpus, c, last)
			}
		}
	}
}

func TestNewFileRotation(t *testing.T) {
	for _, mode := range []uint32{etl.ModeNewFile, etl.ModeNewFile | etl.ModeCompressed} {
		fs := &session.MemFS{}
		sys := newSys(4)
		const maxSize = 6 * 4096
		s := mustStart(t, sys, "rot", &session.SessionOptions{Create: fs.Create, BufferSize: 4096, LogFileMode: mode,
			MaxFileSize: maxSize, FileName: "rot-%d.etl"})
		must(t, s.Enable(provA, 0, 0, 0))
		p := mustRegister(t, sys, provA, session.Manifest)
		const n = 4000
		if lost := writeN(t, p, 0, n, 50); lost != 0 {
			t.Fatalf("%d lost", lost)
		}
		must(t, s.Stop())
		names := s.Stats().Files
		if len(names) < 3 || len(names) != len(fs.Names()) {
			t.Fatalf("files %v, in memory %v", names, fs.Names())
		}
		total, most := 0, 0
		for i := range names {
			name := fmt.Sprintf("rot-%d.etl", i+1)
			b := fs.Bytes(name)
			evs, files := read(t, fs, name) // each file stands alone
			h := files[0].Header
			nbuf := len(files[0].Buffers())
			most = max(most, nbuf)
			if len(b) > maxSize || h.LogFileMode&etl.ModeNewFile == 0 || h.LogFileName != name || int(h.BuffersWritten) != nbuf ||
				h.MaximumFileSize != 24 || h.Compressed() != (mode&etl.ModeCompressed != 0) {
				t.Errorf("%s: %d bytes, header %+v", name, len(b), h)
			}
			if i < len(names)-1 && len(b) < maxSize-4096 {
				t.Errorf("%s: %d bytes: rotated early", name, len(b))
			}
			total += len(evs)
		}
		if mode&etl.ModeCompressed != 0 && most <= maxSize/4096 {
			t.Errorf("compressed files hold at most %d buffers", most)
		}
		// Together, in time order, they give every event back.
		evs, _ := read(t, fs, names...)
		got := seqs(evs)
		if total != n || len(got) != n {
			t.Fatalf("%d events in the files, %d merged", total, len(got))
		}
		for i, v := range got {
			if v != uint32(i) {
				t.Fatalf("merged event %d is %d", i, v)
			}
		}
	}
}

func TestAppend(t *testing.T) {
	fs := &session.MemFS{}
	var tick int64 = 500
	sys := session.New(&session.Options{Processors: 2, Now: func() int64 { tick++; return tick }, CPU: func() uint16 { return uint16(tick % 2) }})
	opts := &session.SessionOptions{Create: fs.Create, Open: fs.Open, BufferSize: 4096, LogFileMode: etl.ModeAppend, FileName: "app.etl"}
	// The file does not exist yet: it is created.
	s := mustStart(t, sys, "first", opts)
	must(t, s.Enable(provA, 0, 0, 0))
	p := mustRegister(t, sys, provA, session.Manifest)
	writeN(t, p, 0, 300, 40)
	must(t, s.Stop())
	before := fs.Bytes("app.etl")
	_, h1 := readOne(t, fs, "app.etl")

	// A later session appends, with its own logger id.
	tick += 1_000_000
	pad := mustStart(t, sys, "other", &session.SessionOptions{Create: fs.Create, BufferSize: 4096})
	s2 := mustStart(t, sys, "second", opts)
	must(t, s2.Enable(provA, 0, 0, 0))
	writeN(t, p, 300, 300, 40)
	must(t, s2.Stop())
	must(t, pad.Stop())
	after := fs.Bytes("app.etl")
	if len(after) <= len(before) || string(after[4096:len(before)]) != string(before[4096:]) {
		t.Fatalf("the first part changed: %d then %d bytes", len(before), len(after))
	}
	evs, files := read(t, fs, "app.etl")
	h := files[0].Header
	got := seqs(evs)
	if len(got) != 600 {
		t.Fatalf("%d events back", len(got))
	}
	for i, v := range got {
		if v != uint32(i) {
			t.Fatalf("event %d is %d", i, v)
		}
	}
	if int(h.BuffersWritten) != len(after)/4096 || h.StartTime != h1.StartTime || h.EndTime != evs[599].Time ||
		h.LogFileMode&etl.ModeAppend == 0 || h.LoggerName != "first" {
		t.Errorf("header %+v", h)
	}
	// Sequence numbers continue; both logger ids appear.
	seen, ids := map[int64]bool{}, map[uint16]bool{}
	for _, b := range files[0].Buffers()[1:] {
		if seen[b.Header.SequenceNumber] {
			t.Errorf("sequence number %d twice", b.Header.SequenceNumber)
		}
		seen[b.Header.SequenceNumber] = true
		ids[b.Header.LoggerID()] = true
	}
	if len(ids) != 2 {
		t.Errorf("logger ids %v", ids)
	}

	// A file of another shape is refused.
	for _, o := range []session.SessionOptions{
		{BufferSize: 8192},
		{BufferSize: 4096, Is32Bit: true},
		{BufferSize: 4096, ClockType: etl.ClockSystemTime},
		{BufferSize: 4096, LogFileMode: etl.ModeNoPerProcessor},
	} {
		o.Create, o.Open, o.FileName = fs.Create, fs.Open, "app.etl"
		o.LogFileMode |= etl.ModeAppend
		if _, err := sys.StartSession("bad", &o); err == nil {
			t.Errorf("append with %+v accepted", o)
		}
	}
}

func TestBufferingCompressed(t *testing.T) {
	fs := &session.MemFS{}
	sys := newSys(2)
	s := mustStart(t, sys, "memz", &session.SessionOptions{Create: fs.Create, BufferSize: 4096, LogFileMode: etl.ModeBuffering | etl.ModeCompressed,
		MaximumBuffers: 64})
	must(t, s.Enable(provA, 0, 0, 0))
	p := mustRegister(t, sys, provA, session.Manifest)
	writeN(t, p, 0, 500, 40)
	must(t, s.Stop())
	evs, h := readOne(t, fs, "memz.etl")
	if len(evs) != 500 || !h.Compressed() {
		t.Errorf("%d events, header %+v", len(evs), h)
	}
	for i, e := range evs {
		if e.seq() != uint32(i) {
			t.Fatalf("event %d is %d", i, e.seq())
		}
	}
}

func TestBufferingWritesOnFlush(t *testing.T) {
	fs := &session.MemFS{}
	sys := newSys(1)
	s := mustStart(t, sys, "mem", &session.SessionOptions{Create: fs.Create, BufferSize: 4096, LogFileMode: etl.ModeBuffering, MaximumBuffers: 4})
	must(t, s.Enable(provA, 0, 0, 0))
	p := mustRegister(t, sys, provA, session.Manifest)
	if lost := writeN(t, p, 0, 1000, 100); lost != 0 {
		t.Fatalf("%d lost", lost)
	}
	if fs.File("mem.etl") != nil {
		t.Fatal("a buffering session wrote before a flush")
	}
	st := s.Stats()
	if st.NumberOfBuffers != 4 || st.BuffersOverwritten == 0 || st.BuffersWritten != 0 {
		t.Errorf("stats %+v", st)
	}
	must(t, s.Flush())
	first, _ := readOne(t, fs, "mem.etl")
	got := seqs(first)
	// The ring holds the newest 4 buffers: a run ending with the last event.
	if len(got) == 0 || len(got) > 4*(4096/(0x50+100)+1) || last(got) != 999 {
		t.Fatalf("%d events after the flush, last %d", len(got), last(got))
	}
	for i := range got {
		if got[i] != got[0]+uint32(i) {
			t.Fatalf("gap at %d", i)
		}
	}
	// Only the header and the ring's 4 buffers were written, oldest first.
	bufs := openMem(t, fs.Bytes("mem.etl")).Buffers()
	if len(bufs) != 5 {
		t.Errorf("%d buffers after the flush", len(bufs))
	}
	for i := 2; i < len(bufs); i++ {
		if bufs[i].Header.TimeStamp <= bufs[i-1].Header.TimeStamp {
			t.Errorf("buffer %d is older than buffer %d", i, i-1)
		}
	}
	// More events, then Stop writes them too.
	writeN(t, p, 1000, 10, 100)
	must(t, s.Stop())
	all, h := readOne(t, fs, "mem.etl")
	got = seqs(all)
	if len(got) != len(first)+10 || last(got) != 1009 || h.LogFileMode&etl.ModeBuffering == 0 || h.EventsLost != 0 {
		t.Errorf("%d events at the end (last %d), mode %#x", len(got), last(got), h.LogFileMode)
	}
}

func TestFlushTimerAndLoggerDelay(t *testing.T) {
	fs := &session.MemFS{}
	sys := session.New(nil) // virtual clock, moved by Advance
	timer := mustStart(t, sys, "timer", &session.SessionOptions{Create: fs.Create, BufferSize: 4096, FlushTimer: 100})
	delay := mustStart(t, sys, "delay", &session.SessionOptions{Create: fs.Create, BufferSize: 4096, LoggerDelay: 30})
	must(t, timer.Enable(provA, 0, 0, 0))
	must(t, delay.Enable(provA, 0, 0, 0))
	p := mustRegister(t, sys, provA, session.Manifest)
	size := func(name string) int { return len(fs.Bytes(name)) / 4096 }
	writeN(t, p, 0, 3, 10)
	sys.Advance(99)
	if size("timer.etl") != 1 {
		t.Fatalf("flushed before the timer: %d buffers", size("timer.etl"))
	}
	sys.Advance(1)
	if size("timer.etl") != 2 || size("delay.etl") != 1 {
		t.Fatalf("after 100 ticks: %d and %d buffers", size("timer.etl"), size("delay.etl"))
	}
	// The delay session writes a full buffer 30 ticks after it filled.
	writeN(t, p, 3, 4096/(0x50+10), 10) // fills a buffer and starts the next
	if size("delay.etl") != 1 {
		t.Fatalf("written without delay")
	}
	sys.Advance(29)
	if size("delay.etl") != 1 {
		t.Fatalf("written after 29 ticks")
	}
	sys.Advance(1)
	if size("delay.etl") != 2 {
		t.Fatalf("not written after 30 ticks: %d buffers", size("delay.etl"))
	}
	// Update: turn the timer off; a partial buffer then stays.
	must(t, timer.Update(session.Update{FlushTimer: -1}))
	before := size("timer.etl")
	writeN(t, p, 1000, 1, 10)
	sys.Advance(1000)
	if size("timer.etl") != before {
		t.Error("flushed with the timer off")
	}
	must(t, timer.Update(session.Update{FlushTimer: 10}))
	if size("timer.etl") != before+1 {
		t.Error("an old buffer was not flushed when the timer came back")
	}
	must(t, sys.StopAll())
	for _, name := range []string{"timer.etl", "delay.etl"} {
		evs, h := readOne(t, fs, name)
		if len(evs) != 3+4096/(0x50+10)+1 || h.EventsLost != 0 {
			t.Errorf("%s: %d events, %d lost", name, len(evs), h.EventsLost)
		}
	}
}

func TestUpdateBuffersAndFileSize(t *testing.T) {
	fs := &session.MemFS{}
	sys := newSys(1)
	s := mustStart(t, sys, "upd", &session.SessionOptions{Create: fs.Create, BufferSize: 4096, MaximumBuffers: 2,
		LoggerDelay: session.LoggerDelayUntilFlush})
	must(t, s.Enable(provA, 0, 0, 0))
	p := mustRegister(t, sys, provA, session.Manifest)
	if lost := writeN(t, p, 0, 3*perBuf, 200); lost != perBuf {
		t.Fatalf("2 buffers: %d lost", lost)
	}
	must(t, s.Update(session.Update{MaximumBuffers: 10}))
	if st := s.Stats(); st.MaximumBuffers != 10 {
		t.Fatalf("stats %+v", st)
	}
	if lost := writeN(t, p, 100, 3*perBuf, 200); lost != 0 {
		t.Fatalf("10 buffers: %d lost", lost)
	}
	must(t, s.Flush()) // 5 buffers written
	if st := s.Stats(); st.BuffersWritten != 5 || st.EventsLost != perBuf {
		t.Fatalf("after flush: %+v", st)
	}
	// A maximum size that leaves room for two more buffers: a third one
	// is filled (it is lost if it cannot be written when the session
	// flushes), a fourth one is not.
	must(t, s.Update(session.Update{MaxFileSize: 8 * 4096}))
	if lost := writeN(t, p, 200, 4*perBuf, 200); lost != perBuf {
		t.Fatalf("nearly full file: %d lost", lost)
	}
	must(t, s.Update(session.Update{MaxFileSize: 10 * 4096}))
	if lost := writeN(t, p, 300, perBuf, 200); lost != 0 {
		t.Fatalf("bigger file: %d lost", lost)
	}
	must(t, s.Update(session.Update{MaximumBuffers: 3, MinimumBuffers: 2}))
	if st := s.Stats(); st.MaximumBuffers != 3 || st.MinimumBuffers != 2 || st.NumberOfBuffers > 10 {
		t.Fatalf("stats %+v", st)
	}
	must(t, s.Stop())
	evs, h := readOne(t, fs, "upd.etl")
	if len(evs) != 9*perBuf || h.MaximumFileSize != 40 || h.BuffersWritten != 10 || h.EventsLost != 2*perBuf || h.BuffersLost != 0 {
		t.Errorf("%d events, header %+v", len(evs), h)
	}
	if err := s.Update(session.Update{}); err != session.ErrStopped {
		t.Errorf("Update after Stop: %v", err)
	}
	if err := s.Flush(); err != session.ErrStopped {
		t.Errorf("Flush after Stop: %v", err)
	}
}

func TestCompressedNoPerProcessorSystemClock(t *testing.T) {
	fs := &session.MemFS{}
	sys := newSys(4)
	s := mustStart(t, sys, "one", &session.SessionOptions{Create: fs.Create, BufferSize: 8192, Is32Bit: true, ClockType: etl.ClockSystemTime,
		LogFileMode: etl.ModeCompressed | etl.ModeNoPerProcessor})
	must(t, s.Enable(provA, 0, 0, 0))
	p := mustRegister(t, sys, provA, session.Manifest)
	writeN(t, p, 0, 2000, 30)
	must(t, s.Stop())
	f := openMem(t, fs.Bytes("one.etl"))
	st := f.Scan()
	h := f.Header
	if st.CompressedBuffers < 2 || len(st.Errors) != 0 || h.NumberOfProcessors != 1 || h.Is64 || h.PointerSize != 4 ||
		h.Clock() != etl.ClockSystemTime || h.LogFileMode&(etl.ModeCompressed|etl.ModeNoPerProcessor) != etl.ModeCompressed|etl.ModeNoPerProcessor {
		t.Fatalf("stats %+v header %+v", st, h)
	}
	evs, _ := readOne(t, fs, "one.etl")
	for i, e := range evs {
		if e.CPU != 0 || e.seq() != uint32(i) || e.Timestamp != e.Time || e.Time != sys.FileTime(1001+int64(i)+1) {
			t.Fatalf("event %d: cpu %d seq %d ts %d time %d", i, e.CPU, e.seq(), e.Timestamp, e.Time)
		}
	}
	if len(evs) != 2000 {
		t.Errorf("%d events", len(evs))
	}
}
