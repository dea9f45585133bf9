package session_test

import (
	"bytes"
	"encoding/binary"
	"slices"
	"testing"

	"github.com/google/uuid"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/session"
)

var (
	provA   = uuid.MustParse("11111111-aaaa-4aaa-8aaa-000000000001")
	provB   = uuid.MustParse("22222222-bbbb-4bbb-8bbb-000000000002")
	provC   = uuid.MustParse("33333333-cccc-4ccc-8ccc-000000000003")
	provTL  = uuid.MustParse("44444444-dddd-4ddd-8ddd-000000000004")
	classic = uuid.MustParse("55555555-eeee-4eee-8eee-000000000005")
)

// rec is what a test keeps of an event read back.
type rec struct {
	Header    etl.HeaderType
	Provider  uuid.UUID
	ID        uint16
	Level     uint8
	Keyword   uint64
	Opcode    uint8
	TID, PID  uint32
	Timestamp int64
	Time      int64
	CPU       uint16
	Activity  uuid.UUID
	Related   uuid.UUID
	Ext       []etl.ExtType
	Data      []byte
	File      int
}

// seqOf returns the little-endian u32 at the start of the payload: the
// tests number their events that way.
func (r *rec) seq() uint32 {
	if len(r.Data) < 4 {
		return ^uint32(0)
	}
	return binary.LittleEndian.Uint32(r.Data)
}

func payload(n uint32, size int) []byte {
	b := make([]byte, max(size, 4))
	binary.LittleEndian.PutUint32(b, n)
	return b
}

// openMem opens an in-memory file with the etl reader.
func openMem(t testing.TB, b []byte) *etl.File {
	t.Helper()
	f, err := etl.NewFile(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatalf("opening %d bytes: %v", len(b), err)
	}
	return f
}

// read reads the named files of fs together, in time order, without the
// header-buffer events, failing on any reader error.
func read(t testing.TB, fs *session.MemFS, names ...string) ([]rec, []*etl.File) {
	t.Helper()
	var files []*etl.File
	for _, n := range names {
		b := fs.Bytes(n)
		if b == nil {
			t.Fatalf("no file %q (have %v)", n, fs.Names())
		}
		files = append(files, openMem(t, b))
	}
	r := etl.NewReader(files, nil)
	defer r.Close()
	var out []rec
	for r.Next() {
		ev := r.Event()
		if ev.BufferIndex == 0 && ev.Header <= etl.HeaderSystem64 {
			continue // log-file header and partition info
		}
		x := rec{Header: ev.Header, Provider: ev.ProviderID, ID: ev.Descriptor.ID, Level: ev.Descriptor.Level, Keyword: ev.Descriptor.Keyword,
			Opcode: ev.Descriptor.Opcode, TID: ev.ThreadID, PID: ev.ProcessID, Timestamp: ev.Timestamp, Time: ev.Time, CPU: ev.Processor,
			Activity: ev.ActivityID, Data: slices.Clone(ev.UserData), File: ev.File}
		x.Related, _ = ev.RelatedActivityID()
		for _, it := range ev.Extended {
			x.Ext = append(x.Ext, it.Type)
		}
		out = append(out, x)
	}
	if errs := r.Errors(); len(errs) > 0 {
		t.Fatalf("reading %v: %v", names, errs)
	}
	return out, files
}

// readOne reads one file and returns its events and header.
func readOne(t testing.TB, fs *session.MemFS, name string) ([]rec, etl.LogfileHeader) {
	t.Helper()
	evs, files := read(t, fs, name)
	return evs, files[0].Header
}

func seqs(rs []rec) []uint32 {
	out := make([]uint32, len(rs))
	for i := range rs {
		out[i] = rs[i].seq()
	}
	return out
}

// newSys returns a system with n processors, a clock that advances one
// tick per read, and processors assigned round robin.
func newSys(n int) *session.System {
	var tick int64 = 1000
	var cpu uint16
	return session.New(&session.Options{
		Processors: n,
		Now:        func() int64 { tick++; return tick },
		CPU:        func() uint16 { c := cpu; cpu = (cpu + 1) % uint16(n); return c },
	})
}

func mustStart(t testing.TB, sys *session.System, name string, o *session.SessionOptions) *session.Session {
	t.Helper()
	s, err := sys.StartSession(name, o)
	if err != nil {
		t.Fatalf("StartSession(%s): %v", name, err)
	}
	return s
}

func mustRegister(t testing.TB, sys *session.System, id uuid.UUID, k session.Kind) *session.Provider {
	t.Helper()
	p, err := sys.RegisterProvider(id, k, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
