package session_test

import (
	"bytes"
	"testing"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/session"
)

// FuzzAppend: a session in append mode reads the file it continues, which
// may be any bytes (a damaged or hostile .etl). Starting the session either
// refuses the file with an error or appends; nothing panics, and what is
// written reads back.
func FuzzAppend(f *testing.F) {
	// Seeds: a file written by a first session, and parts of it.
	fs := &session.MemFS{}
	var tick int64 = 500
	sys := session.New(&session.Options{Processors: 2, Now: func() int64 { tick++; return tick }, CPU: func() uint16 { return uint16(tick % 2) }})
	opts := &session.SessionOptions{Create: fs.Create, Open: fs.Open, BufferSize: 4096, LogFileMode: etl.ModeAppend, FileName: "seed.etl"}
	s := mustStart(f, sys, "seed", opts)
	must(f, s.Enable(provA, 0, 0, 0))
	writeN(f, mustRegister(f, sys, provA, session.Manifest), 0, 100, 40)
	must(f, s.Stop())
	seed := fs.Bytes("seed.etl")
	f.Add(seed)
	f.Add(seed[:4096])
	f.Add(seed[:5000])
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		fs := &session.MemFS{}
		fl, err := fs.Create("app.etl")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := fl.(*session.MemFile).WriteAt(data, 0); err != nil {
			t.Fatal(err)
		}
		var tick int64 = 1_000_000
		sys := session.New(&session.Options{Processors: 2, Now: func() int64 { tick++; return tick }, CPU: func() uint16 { return uint16(tick % 2) }})
		o := &session.SessionOptions{Create: fs.Create, Open: fs.Open, BufferSize: 4096, LogFileMode: etl.ModeAppend, FileName: "app.etl"}
		s, err := sys.StartSession("fuzz", o)
		if err != nil {
			if bytes.Equal(data, seed) {
				t.Fatalf("the file a session wrote is refused: %v", err)
			}
			return // refused: not a file this session can continue
		}
		if err := s.Enable(provA, 0, 0, 0); err != nil {
			t.Fatal(err)
		}
		p, err := sys.RegisterProvider(provA, session.Manifest, nil)
		if err != nil {
			t.Fatal(err)
		}
		writeN(t, p, 0, 20, 40)
		if err := s.Stop(); err != nil {
			if bytes.Equal(data, seed) {
				t.Fatal(err)
			}
			return // a write or close error is an error, not a crash
		}
		out := fs.Bytes("app.etl")
		ef, err := etl.NewFile(bytes.NewReader(out), int64(len(out)))
		if err != nil {
			t.Fatalf("the appended file does not open: %v", err)
		}
		st := ef.Scan()
		if bytes.Equal(data, seed) && (st.Events < 120 || len(st.Errors) > 0) {
			t.Fatalf("appending 20 events to 100: %d events back, errors %v", st.Events, st.Errors)
		}
	})
}
