package session_test

import (
	"testing"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/session"
)

// raceEnabled is set when the race detector is on.
var raceEnabled bool

// discard is a log file that keeps nothing.
type discard struct{}

func (discard) WriteAt(p []byte, _ int64) (int, error) { return len(p), nil }
func (discard) Close() error                           { return nil }

func discardFile(string) (session.File, error) { return discard{}, nil }

// BenchmarkSessionWrite writes small events (16 bytes of payload)
// through one provider to one session, with the clock moving one tick per
// event. Sub-benchmarks: one processor; four processors in turn; the
// same compressed; the event filtered out by level. (Events of a
// provider no session enables cost one atomic load.)
func BenchmarkSessionWrite(b *testing.B) {
	for _, c := range []struct {
		name  string
		cpus  int
		level uint8
		mode  uint32
	}{{"1cpu", 1, 0, 0}, {"4cpu", 4, 0, 0}, {"xpress", 4, 0, etl.ModeCompressed}, {"filtered", 1, 2, 0}} {
		b.Run(c.name, func(b *testing.B) {
			var tick int64
			var cpu uint16
			sys := session.New(&session.Options{Processors: c.cpus, Now: func() int64 { tick++; return tick },
				CPU: func() uint16 { cpu = (cpu + 1) & uint16(c.cpus-1); return cpu }})
			s, err := sys.StartSession("bench", &session.SessionOptions{Create: discardFile, LogFileMode: c.mode})
			if err != nil {
				b.Fatal(err)
			}
			if err := s.Enable(provA, c.level, 0, 0); err != nil {
				b.Fatal(err)
			}
			p, err := sys.RegisterProvider(provA, session.Manifest, nil)
			if err != nil {
				b.Fatal(err)
			}
			ctx := &session.Context{ProcessID: 1234, ThreadID: 5678}
			d := etl.EventDescriptor{ID: 1, Level: 4, Keyword: 1}
			data := make([]byte, 16)
			b.ReportAllocs()
			b.SetBytes(int64(0x50 + len(data)))
			for b.Loop() {
				if err := p.Write(ctx, d, data); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
			if err := s.Stop(); err != nil {
				b.Fatal(err)
			}
		})
	}
}

// TestWriteAllocates nothing: the write calls, with a context, activity
// ids and payload on the caller's stack, allocate nothing once the
// session's buffers exist.
func TestWriteAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes allocations")
	}
	sys := newSys(4)
	s, err := sys.StartSession("allocs", &session.SessionOptions{Create: discardFile, BufferSize: 4096})
	must(t, err)
	must(t, s.Enable(provA, 0, 0, 0))
	must(t, s.Enable(provTL, 0, 0, 0, session.WithProperties(session.PropertyEventKey|session.PropertyTSID)))
	must(t, s.Enable(classic, 0, 0, 0))
	p := mustRegister(t, sys, provA, session.Manifest)
	tl := mustRegister(t, sys, provTL, session.TraceLogging)
	c := mustRegister(t, sys, classic, session.Classic)
	meta := []byte("\x08\x00\x00e\x00f\x00\x01")
	n := uint32(0)
	write := func() {
		n++
		var data [24]byte
		data[0] = byte(n)
		act, rel := provA, provB
		must(t, p.Write(&session.Context{ProcessID: n, ThreadID: 2}, etl.EventDescriptor{ID: 1, Level: 4}, data[:]))
		must(t, p.WriteTransfer(&session.Context{ProcessID: n}, etl.EventDescriptor{ID: 2}, &act, &rel, data[:8]))
		must(t, tl.WriteTraceLogging(&session.Context{ProcessID: n}, etl.EventDescriptor{Level: 4}, nil, meta, data[:]))
		must(t, c.TraceEvent(&session.Context{ProcessID: n}, provC, 1, 4, 0, data[:]))
	}
	for range 1000 { // let the buffer pool grow
		write()
	}
	if a := testing.AllocsPerRun(2000, write); a != 0 {
		t.Errorf("%.1f allocations per round of writes", a)
	}
	must(t, s.Stop())
}
