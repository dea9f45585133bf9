// Package etltest builds small .etl files byte by byte for tests, fuzz
// seeds and fixtures. It is a test aid, not the writer: it emits exactly the
// records it is given, damaged ones included.
package etltest

import (
	"bytes"
	"encoding/binary"
	"unicode/utf16"

	"github.com/google/uuid"

	"github.com/etwkit/etw/etl"
)

// File assembles .etl bytes for tests that must not depend on the
// corpus: a header buffer with a log-file header event, then buffers of
// records built with the helpers below.
// File is an .etl file under construction.
type File struct {
	BufSize  int
	Is64     bool
	TLH      etl.LogfileHeader   // BuffersWritten is set by Bytes
	Buffers  [][]byte            // uncompressed buffers after the header buffer
	Compress func([]byte) []byte // nil: uncompressed
}

// NewFile starts a file with buffers of bufSize bytes and a 64- or 32-bit
// log-file header with plausible Windows 10 values.
func NewFile(bufSize int, is64 bool) *File {
	ps := uint32(8)
	if !is64 {
		ps = 4
	}
	return &File{
		BufSize: bufSize,
		Is64:    is64,
		TLH: etl.LogfileHeader{
			BufferSize: uint32(bufSize), MajorVersion: 10, SubVersion: 1, SubMinorVersion: 5,
			ProviderVersion: 19041, NumberOfProcessors: 4, LogFileMode: etl.ModeSequential,
			StartBuffers: 1, PointerSize: ps, CPUSpeedMHz: 3000, PerfFreq: 10000000,
			StartTime: 132247862638609634, EndTime: 132247862956080717, ReservedFlags: 1,
			HeaderTimestamp: 80000000000, LoggerName: "test session", LogFileName: `C:\t.etl`,
			TimeZone: etl.TimeZone{Bias: 300, StandardName: "Eastern Standard Time", DaylightBias: -60},
		},
	}
}

// LE16 stores v little-endian at b.
func LE16(b []byte, v uint16) { binary.LittleEndian.PutUint16(b, v) }

// LE32 stores v little-endian at b.
func LE32(b []byte, v uint32) { binary.LittleEndian.PutUint32(b, v) }

// LE64 stores v little-endian at b.
func LE64(b []byte, v uint64) { binary.LittleEndian.PutUint64(b, v) }

// UTF16Z encodes s as NUL-terminated UTF-16LE.
func UTF16Z(s string) []byte {
	u := utf16.Encode([]rune(s))
	b := make([]byte, 2*len(u)+2)
	for i, c := range u {
		LE16(b[2*i:], c)
	}
	return b
}

// TLHBytes encodes the TRACE_LOGFILE_HEADER and its strings.
func (tf *File) TLHBytes() []byte {
	h := &tf.TLH
	size, ptr := 0x110, 4
	if tf.Is64 {
		size, ptr = 0x118, 8
	}
	b := make([]byte, size)
	LE32(b[0:], h.BufferSize)
	b[4], b[5], b[6], b[7] = h.MajorVersion, h.MinorVersion, h.SubVersion, h.SubMinorVersion
	LE32(b[8:], h.ProviderVersion)
	LE32(b[0xC:], h.NumberOfProcessors)
	LE64(b[0x10:], uint64(h.EndTime))
	LE32(b[0x18:], h.TimerResolution)
	LE32(b[0x1C:], h.MaximumFileSize)
	LE32(b[0x20:], h.LogFileMode)
	LE32(b[0x24:], h.BuffersWritten)
	LE32(b[0x28:], h.StartBuffers)
	LE32(b[0x2C:], h.PointerSize)
	LE32(b[0x30:], h.EventsLost)
	LE32(b[0x34:], h.CPUSpeedMHz)
	o := 0x38 + 2*ptr
	LE32(b[o:], uint32(h.TimeZone.Bias))
	copy(b[o+4:o+0x44], UTF16Z(h.TimeZone.StandardName))
	LE32(b[o+0xA8:], uint32(h.TimeZone.DaylightBias))
	o += 0xAC + 4
	LE64(b[o:], uint64(h.BootTime))
	LE64(b[o+8:], uint64(h.PerfFreq))
	LE64(b[o+16:], uint64(h.StartTime))
	LE32(b[o+24:], h.ReservedFlags)
	LE32(b[o+28:], h.BuffersLost)
	b = append(b, UTF16Z(h.LoggerName)...)
	return append(b, UTF16Z(h.LogFileName)...)
}

// Sys builds a SYSTEM (full or compact) or PERFINFO record.
func Sys(t etl.HeaderType, version, hook uint16, tid, pid uint32, ts int64, extra, payload []byte) []byte {
	var hs int
	switch t {
	case etl.HeaderSystem32, etl.HeaderSystem64:
		hs = 0x20
	case etl.HeaderCompact32, etl.HeaderCompact64:
		hs = 0x18
	default:
		hs = 0x10
	}
	b := make([]byte, hs, hs+len(extra)+len(payload))
	LE16(b, version)
	b[2], b[3] = byte(t), 0xC0
	LE16(b[6:], hook)
	if hs == 0x10 {
		LE64(b[8:], uint64(ts))
	} else {
		LE32(b[8:], tid)
		LE32(b[12:], pid)
		LE64(b[16:], uint64(ts))
		if hs == 0x20 {
			LE32(b[24:], 5)
			LE32(b[28:], 7)
		}
	}
	b = append(append(b, extra...), payload...)
	LE16(b[4:], uint16(len(b)))
	return b
}

// Classic builds an EVENT_TRACE_HEADER or instance record.
func Classic(t etl.HeaderType, opcode, level uint8, version uint16, tid, pid uint32, ts int64, g uuid.UUID, payload []byte) []byte {
	hs := 0x30
	if t == etl.HeaderInstance32 || t == etl.HeaderInstance64 {
		hs = 0x48
	}
	b := make([]byte, hs)
	b[2], b[3], b[4], b[5] = byte(t), 0xC0, opcode, level
	LE16(b[6:], version)
	LE32(b[8:], tid)
	LE32(b[12:], pid)
	LE64(b[16:], uint64(ts))
	etl.PutGUIDWindows(b[0x18:], g)
	LE32(b[0x28:], 11)
	LE32(b[0x2C:], 13)
	if hs == 0x48 {
		LE32(b[0x30:], 77)
		LE32(b[0x34:], 66)
		etl.PutGUIDWindows(b[0x38:], g)
	}
	b = append(b, payload...)
	LE16(b, uint16(len(b)))
	return b
}

// Ext is an extended data item for [Event].
type Ext struct {
	Type etl.ExtType
	Data []byte
}

// Event builds an EVENT_HEADER (or error) record.
func Event(t etl.HeaderType, flags uint16, tid, pid uint32, ts int64, provider uuid.UUID, d etl.EventDescriptor, act uuid.UUID, ext []Ext, payload []byte) []byte {
	b := make([]byte, 0x50)
	if len(ext) > 0 {
		flags |= etl.FlagExtendedInfo
	}
	LE16(b[2:], 0xC000|uint16(t))
	LE16(b[4:], flags)
	LE32(b[8:], tid)
	LE32(b[12:], pid)
	LE64(b[16:], uint64(ts))
	etl.PutGUIDWindows(b[0x18:], provider)
	LE16(b[0x28:], d.ID)
	b[0x2A], b[0x2B], b[0x2C], b[0x2D] = d.Version, d.Channel, d.Level, d.Opcode
	LE16(b[0x2E:], d.Task)
	LE64(b[0x30:], d.Keyword)
	LE32(b[0x38:], 3)
	LE32(b[0x3C:], 4)
	etl.PutGUIDWindows(b[0x40:], act)
	for i, x := range ext {
		total := (8 + len(x.Data) + 7) &^ 7
		item := make([]byte, total)
		LE16(item, uint16(total))
		LE16(item[2:], uint16(x.Type))
		if i < len(ext)-1 {
			LE16(item[4:], 1)
		}
		LE16(item[6:], uint16(len(x.Data)))
		copy(item[8:], x.Data)
		b = append(b, item...)
	}
	b = append(b, payload...)
	LE16(b, uint16(len(b)))
	return b
}

// Message builds a WPP trace-message record; items must match flags.
func Message(msgNum, flags uint16, items ...[]byte) []byte {
	b := make([]byte, 8)
	b[3] = 0x90
	LE16(b[4:], msgNum)
	LE16(b[6:], flags)
	for _, it := range items {
		b = append(b, it...)
	}
	LE16(b, uint16(len(b)))
	return b
}

// AddBuffer appends a buffer holding the records.
func (tf *File) AddBuffer(proc uint16, flushTS int64, records ...[]byte) {
	tf.Buffers = append(tf.Buffers, tf.MakeBuffer(proc, flushTS, etl.BufferTypeGeneric, records))
}

// MakeBuffer lays records out in a buffer (8-byte aligned, zero padding)
// with a header for processor proc, unpadded: [File.Bytes] pads it.
func (tf *File) MakeBuffer(proc uint16, flushTS int64, btype uint16, records [][]byte) []byte {
	b := make([]byte, etl.BufferHeaderSize, tf.BufSize)
	for _, r := range records {
		b = append(b, r...)
		for len(b)%8 != 0 {
			b = append(b, 0)
		}
	}
	used := len(b)
	LE32(b[0x04:], uint32(used))
	LE32(b[0x08:], uint32(used))
	LE64(b[0x10:], uint64(flushTS))
	LE32(b[0x28:], uint32(proc)|7<<16)
	LE32(b[0x2C:], 3)
	LE32(b[0x30:], uint32(used))
	LE16(b[0x34:], etl.BufferFlagProcIndex)
	LE16(b[0x36:], btype)
	return b
}

// Bytes assembles the file: the header buffer (header event and
// PartitionInfoExtension), then the buffers, compressed if Compress is set.
func (tf *File) Bytes() []byte {
	tf.TLH.BuffersWritten = uint32(len(tf.Buffers) + 1)
	if tf.Compress != nil {
		tf.TLH.LogFileMode |= etl.ModeCompressed
	}
	t := etl.HeaderSystem32
	if tf.Is64 {
		t = etl.HeaderSystem64
	}
	hdr := Sys(t, 2, 0, 100, 200, tf.TLH.HeaderTimestamp, nil, tf.TLHBytes())
	part := Sys(t, 2, 0x0050, 100, 200, tf.TLH.HeaderTimestamp, nil, make([]byte, 0x30))
	var out bytes.Buffer
	hb := tf.MakeBuffer(0, 0, etl.BufferTypeHeader, [][]byte{hdr, part})
	LE16(hb[0x34:], etl.BufferFlagFlushMarker|etl.BufferFlagProcIndex)
	out.Write(Pad(hb, tf.BufSize))
	for _, b := range tf.Buffers {
		if tf.Compress != nil {
			c := tf.Compress(b[etl.BufferHeaderSize:])
			h := append([]byte(nil), b[:etl.BufferHeaderSize]...)
			LE32(h, uint32(etl.BufferHeaderSize+len(c)))
			LE16(h[0x34:], binary.LittleEndian.Uint16(h[0x34:])|etl.BufferFlagCompressed)
			out.Write(h)
			out.Write(c)
			continue
		}
		out.Write(Pad(b, tf.BufSize))
	}
	return out.Bytes()
}

// Pad fills a buffer with 0xFF up to size and sets its BufferSize.
func Pad(b []byte, size int) []byte {
	b = append([]byte(nil), b...)
	for len(b) < size {
		b = append(b, 0xFF)
	}
	LE32(b, uint32(size))
	return b
}

// LiteralLZ77 encodes b as an MS-XCA plain LZ77 stream made of literals
// only: a valid stream any conforming decoder must accept.
func LiteralLZ77(b []byte) []byte {
	var out []byte
	for len(b) > 0 {
		n := min(32, len(b))
		out = append(out, 0, 0, 0, 0)
		if n < 32 {
			// Unused flag bits are set, as Windows' compressor does.
			LE32(out[len(out)-4:], ^uint32(0)>>n)
		}
		out = append(out, b[:n]...)
		b = b[n:]
	}
	return out
}
