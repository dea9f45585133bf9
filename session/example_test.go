package session_test

import (
	"bytes"
	"fmt"

	"github.com/google/uuid"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/session"
)

// A controller starts a session that keeps its file in memory and
// enables a provider for warnings and worse with keyword 0x1; the
// provider writes three events, of which two pass; the file is read back.
func Example() {
	fs := &session.MemFS{}
	sys := session.New(&session.Options{Processors: 2})
	s, err := sys.StartSession("demo", &session.SessionOptions{Create: fs.Create, BufferSize: 4096})
	if err != nil {
		panic(err)
	}
	id := uuid.MustParse("3c0c5e5a-9f38-4f1e-9b3a-6a1e0c2d7b11")
	if err := s.Enable(id, 3, 0x1, 0); err != nil { // TRACE_LEVEL_WARNING
		panic(err)
	}
	p, err := sys.RegisterProvider(id, session.Manifest, nil)
	if err != nil {
		panic(err)
	}
	ctx := &session.Context{ProcessID: 100, ThreadID: 200}
	p.Write(ctx, etl.EventDescriptor{ID: 1, Level: 2, Keyword: 0x1}, []byte("error"))
	// 1 µs later (10 ticks at 10 MHz), a verbose event (filtered out by
	// level) and a warning without keyword (keyword 0 passes).
	sys.Advance(10)
	p.Write(ctx, etl.EventDescriptor{ID: 2, Level: 5, Keyword: 0x1}, []byte("verbose"))
	p.Write(ctx, etl.EventDescriptor{ID: 3, Level: 3}, []byte("warning"))
	if err := s.Stop(); err != nil {
		panic(err)
	}

	b := fs.Bytes("demo.etl")
	f, err := etl.NewFile(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		panic(err)
	}
	fmt.Println("logger:", f.Header.LoggerName, "processors:", f.Header.NumberOfProcessors, "lost:", f.Header.EventsLost)
	r := etl.NewReader([]*etl.File{f}, nil)
	defer r.Close()
	for r.Next() {
		ev := r.Event()
		if ev.BufferIndex == 0 {
			continue // the log-file header events
		}
		fmt.Printf("id %d level %d pid %d +%dµs %s\n", ev.Descriptor.ID, ev.Descriptor.Level, ev.ProcessID,
			(ev.Time-f.Header.StartTime)/10, ev.UserData)
	}
	// Output:
	// logger: demo processors: 2 lost: 0
	// id 1 level 2 pid 100 +0µs error
	// id 3 level 3 pid 100 +1µs warning
}
