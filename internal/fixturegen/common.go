package main

import (
	"encoding/binary"
	"fmt"
	"math"
	"unicode/utf16"

	"github.com/google/uuid"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/session"
)

// machine is an emulated system writing to memory, with the virtual
// clock and a fixed processor sequence.
type machine struct {
	sys  *session.System
	fs   *session.MemFS
	cpus []uint16 // processor of the next events, in turn
	next int
}

// newMachine returns a machine of ncpu processors whose events go to the
// processors of cpus in turn (processor 0 if empty).
func newMachine(ncpu int, cpus ...uint16) *machine {
	m := &machine{fs: &session.MemFS{}, cpus: cpus}
	m.sys = session.New(&session.Options{Processors: ncpu, CPU: m.cpu})
	return m
}

func (m *machine) cpu() uint16 {
	if len(m.cpus) == 0 {
		return 0
	}
	c := m.cpus[m.next%len(m.cpus)]
	m.next++
	return c
}

// start starts a session writing name in memory.
func (m *machine) start(name string, o session.SessionOptions) (*session.Session, error) {
	o.Create = m.fs.Create
	if o.FileName == "" {
		o.FileName = name + ".etl"
	}
	return m.sys.StartSession(name, &o)
}

// collect adds the machine's files to fx.
func (m *machine) collect(fx *fixtures) {
	for _, n := range m.fs.Names() {
		fx.add(n, m.fs.Bytes(n))
	}
}

// A writer context: the process and thread the events come from.
var (
	appContext   = &session.Context{ProcessID: 0x1F40, ThreadID: 0x1F44}
	otherContext = &session.Context{ProcessID: 0x1F40, ThreadID: 0x2010}
)

// tick is the time between events: 1 µs at 10 MHz.
const tick = 10

// must panics on error: the generator's inputs are fixed.
func must(err error) {
	if err != nil {
		panic(err)
	}
}

// wrote checks that a write was logged.
func wrote(err error, what string) error {
	if err != nil {
		return fmt.Errorf("writing %s: %w", what, err)
	}
	return nil
}

// Payload encoding, little-endian as Windows lays it out.
type payload []byte

func (p payload) u8(v uint8) payload   { return append(p, v) }
func (p payload) i8(v int8) payload    { return append(p, byte(v)) }
func (p payload) u16(v uint16) payload { return binary.LittleEndian.AppendUint16(p, v) }
func (p payload) i16(v int16) payload  { return p.u16(uint16(v)) }
func (p payload) u32(v uint32) payload { return binary.LittleEndian.AppendUint32(p, v) }
func (p payload) i32(v int32) payload  { return p.u32(uint32(v)) }
func (p payload) u64(v uint64) payload { return binary.LittleEndian.AppendUint64(p, v) }
func (p payload) i64(v int64) payload  { return p.u64(uint64(v)) }
func (p payload) f32(v float32) payload {
	return p.u32(math.Float32bits(v))
}
func (p payload) f64(v float64) payload  { return p.u64(math.Float64bits(v)) }
func (p payload) bytes(b []byte) payload { return append(p, b...) }

// ptr appends a pointer-sized value.
func (p payload) ptr(v uint64, size int) payload {
	if size == 4 {
		return p.u32(uint32(v))
	}
	return p.u64(v)
}

// utf16 appends s as UTF-16LE, with a NUL if z.
func (p payload) utf16(s string, z bool) payload {
	for _, u := range utf16.Encode([]rune(s)) {
		p = p.u16(u)
	}
	if z {
		p = p.u16(0)
	}
	return p
}

// ansi appends s's bytes, with a NUL if z.
func (p payload) ansi(s string, z bool) payload {
	p = append(p, s...)
	if z {
		p = append(p, 0)
	}
	return p
}

// guid appends a GUID in Windows layout.
func (p payload) guid(g uuid.UUID) payload {
	var b [16]byte
	etl.PutGUIDWindows(b[:], g)
	return append(p, b[:]...)
}

// systemTime appends a SYSTEMTIME.
func (p payload) systemTime(y, mo, dow, d, h, mi, s, ms uint16) payload {
	for _, v := range []uint16{y, mo, dow, d, h, mi, s, ms} {
		p = p.u16(v)
	}
	return p
}

// Sample values shared by the fixtures.
var (
	sidLocalSystem = []byte{1, 1, 0, 0, 0, 0, 0, 5, 18, 0, 0, 0}                                                    // S-1-5-18
	sidUser        = []byte{1, 5, 0, 0, 0, 0, 0, 5, 21, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 0xE9, 3, 0, 0} // S-1-5-21-1-2-3-1001
	ipv6Loopback   = []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}
	sampleGUID     = uuid.MustParse("0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0")
	activityA      = uuid.MustParse("a1a1a1a1-0000-4000-8000-000000000001")
	activityB      = uuid.MustParse("b2b2b2b2-0000-4000-8000-000000000002")
	// sockaddrIn is a SOCKADDR_IN: AF_INET, port 443, 192.0.2.1.
	sockaddrIn = []byte{2, 0, 0x01, 0xBB, 192, 0, 2, 1, 0, 0, 0, 0, 0, 0, 0, 0}
	// sampleFileTime is 2024-01-01T12:34:56.789Z.
	sampleFileTime uint64 = 133485408000000000 + (12*3600+34*60+56)*10_000_000 + 7_890_000
)
