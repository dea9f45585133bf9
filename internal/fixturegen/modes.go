package main

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/session"
	tl "github.com/etwkit/etw/tracelogging"
)

// ModesProviderName is the TraceLogging provider of the logging-mode
// fixtures (compressed, circular, lost-events, newfile-%d): its events
// decode without a schema file.
const ModesProviderName = "EtwKit-Fixtures-Modes"

// tickEvent is event seq of the logging-mode fixtures: its sequence
// number, and a text whose length varies so that records differ in size.
func tickEvent(seq int) tl.Event {
	text := fmt.Sprintf("tick %d ", seq) + strings.Repeat("abcdefghij", 4+seq%9)
	return tl.Event{Name: "Tick", Fields: []tl.FieldValue{
		tl.Uint32("Seq", uint32(seq)),
		tl.UnicodeString("Text", text),
	}}
}

// modesSession starts a session with the modes provider enabled and
// registered.
func modesSession(m *machine, name string, o session.SessionOptions) (*session.Session, *session.Provider, error) {
	s, err := m.start(name, o)
	if err != nil {
		return nil, nil, err
	}
	id := tl.ProviderGUID(ModesProviderName)
	must(s.Enable(id, 0, 0, 0))
	p, err := m.sys.RegisterProvider(id, session.TraceLogging, &session.ProviderOptions{Traits: tl.EncodeProviderTraits(ModesProviderName, nil)})
	return s, p, err
}

// writeTicks writes n Tick events, one every tick, and returns how many
// were lost (ErrEventLost).
func writeTicks(m *machine, p *session.Provider, n int) (lost int, err error) {
	for seq := range n {
		ev := tickEvent(seq)
		meta, data, err := ev.Encode()
		if err != nil {
			return lost, err
		}
		ctx := appContext
		if seq%3 == 2 {
			ctx = otherContext
		}
		switch err := p.WriteTraceLogging(ctx, etl.EventDescriptor{Level: 4, Keyword: 0x1}, nil, meta, data); {
		case errors.Is(err, session.ErrEventLost):
			lost++
		case err != nil:
			return lost, err
		}
		m.sys.Advance(tick)
	}
	return lost, nil
}

// countEvents reads a file back and returns its header and the number of
// events after the header buffer.
func countEvents(b []byte) (etl.LogfileHeader, int, error) {
	f, err := etl.NewFile(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return etl.LogfileHeader{}, 0, err
	}
	r := etl.NewReader([]*etl.File{f}, nil)
	defer r.Close()
	n := 0
	for r.Next() {
		if r.Event().BufferIndex != 0 {
			n++
		}
	}
	return f.Header, n, r.Errors().Err()
}

// Events written to the logging-mode fixtures.
const (
	compressedEvents = 160
	circularEvents   = 300
	lostEvents       = 100
	newFileEvents    = 60
)

// genCompressed writes a compressed session on 4 processors: several
// XPRESS-compressed buffers per processor.
func genCompressed(fx *fixtures) error {
	m := newMachine(4, 0, 1, 2, 3, 3, 2, 1)
	s, p, err := modesSession(m, "compressed", session.SessionOptions{BufferSize: 4 << 10, LogFileMode: etl.ModeSequential | etl.ModeCompressed})
	if err != nil {
		return err
	}
	if lost, err := writeTicks(m, p, compressedEvents); err != nil || lost != 0 {
		return fmt.Errorf("%d events lost, %v", lost, err)
	}
	if err := s.Stop(); err != nil {
		return err
	}
	m.collect(fx)
	fx.events["compressed.etl"] = compressedEvents
	return nil
}

// genCircular writes a circular session whose file wraps several times:
// it keeps the newest events.
func genCircular(fx *fixtures) error {
	m := newMachine(1)
	s, p, err := modesSession(m, "circular", session.SessionOptions{BufferSize: 4 << 10, LogFileMode: etl.ModeCircular, MaxFileSize: 16 << 10})
	if err != nil {
		return err
	}
	if lost, err := writeTicks(m, p, circularEvents); err != nil || lost != 0 {
		return fmt.Errorf("%d events lost, %v", lost, err)
	}
	if err := s.Stop(); err != nil {
		return err
	}
	m.collect(fx)
	_, n, err := countEvents(fx.files["circular.etl"])
	if err != nil {
		return err
	}
	fx.events["circular.etl"] = n
	return nil
}

// genLostEvents writes a sequential session whose file is full after two
// buffers: the later events are lost, and the header counts them.
func genLostEvents(fx *fixtures) error {
	m := newMachine(2, 0, 1)
	s, p, err := modesSession(m, "lost-events", session.SessionOptions{BufferSize: 4 << 10, MaxFileSize: 12 << 10})
	if err != nil {
		return err
	}
	if _, err := writeTicks(m, p, lostEvents); err != nil {
		return err
	}
	if err := s.Stop(); err != nil {
		return err
	}
	m.collect(fx)
	h, n, err := countEvents(fx.files["lost-events.etl"])
	if err != nil {
		return err
	}
	if h.EventsLost == 0 || n+int(h.EventsLost) != lostEvents {
		return fmt.Errorf("%d events kept and %d lost, of %d", n, h.EventsLost, lostEvents)
	}
	fx.events["lost-events.etl"] = n
	return nil
}

// genNewFile writes a new-file session that moves to the next file every
// two buffers: newfile-1.etl, newfile-2.etl, newfile-3.etl.
func genNewFile(fx *fixtures) error {
	m := newMachine(1)
	s, p, err := modesSession(m, "newfile", session.SessionOptions{FileName: "newfile-%d.etl", BufferSize: 4 << 10,
		LogFileMode: etl.ModeNewFile, MaxFileSize: 12 << 10})
	if err != nil {
		return err
	}
	if lost, err := writeTicks(m, p, newFileEvents); err != nil || lost != 0 {
		return fmt.Errorf("%d events lost, %v", lost, err)
	}
	if err := s.Stop(); err != nil {
		return err
	}
	m.collect(fx)
	total := 0
	for _, name := range m.fs.Names() {
		_, n, err := countEvents(fx.files[name])
		if err != nil {
			return err
		}
		fx.events[name] = n
		total += n
	}
	if total != newFileEvents {
		return fmt.Errorf("%d events in %d files, %d written", total, len(m.fs.Names()), newFileEvents)
	}
	return nil
}
