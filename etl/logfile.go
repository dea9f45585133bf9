package etl

import (
	"encoding/binary"
	"fmt"
	"time"
	"unicode/utf16"

	"github.com/google/uuid"
)

// Log-file modes (TRACE_LOGFILE_HEADER.LogFileMode) that change how a file
// is read.
const (
	ModeSequential       = 0x00000001 // EVENT_TRACE_FILE_MODE_SEQUENTIAL
	ModeCircular         = 0x00000002 // EVENT_TRACE_FILE_MODE_CIRCULAR
	ModeAppend           = 0x00000004 // EVENT_TRACE_FILE_MODE_APPEND
	ModeNewFile          = 0x00000008 // EVENT_TRACE_FILE_MODE_NEWFILE
	ModePreallocate      = 0x00000020 // EVENT_TRACE_FILE_MODE_PREALLOCATE
	ModeRealTime         = 0x00000100 // EVENT_TRACE_REAL_TIME_MODE
	ModeBuffering        = 0x00000400 // EVENT_TRACE_BUFFERING_MODE
	ModePrivateLogger    = 0x00000800 // EVENT_TRACE_PRIVATE_LOGGER_MODE
	ModeUseKBytesForSize = 0x00002000 // EVENT_TRACE_USE_KBYTES_FOR_SIZE
	ModeRelog            = 0x00010000 // EVENT_TRACE_RELOG_MODE
	ModeSystemLogger     = 0x02000000 // EVENT_TRACE_SYSTEM_LOGGER_MODE
	ModeCompressed       = 0x04000000 // EVENT_TRACE_COMPRESSED_MODE
	ModeNoPerProcessor   = 0x10000000 // EVENT_TRACE_NO_PER_PROCESSOR_BUFFERING
)

// ClockType is the session clock recorded in TRACE_LOGFILE_HEADER.ReservedFlags.
type ClockType uint32

// Clock types.
const (
	ClockRaw        ClockType = 0 // pre-Vista default; read as system time
	ClockQPC        ClockType = 1 // QueryPerformanceCounter ticks
	ClockSystemTime ClockType = 2 // FILETIME, 100 ns units
	ClockCPUCycle   ClockType = 3 // CPU cycle counter (TSC)
)

// String returns "qpc", "system_time", "cpu_cycle", "raw" or "clock(N)".
func (c ClockType) String() string {
	switch c {
	case ClockRaw:
		return "raw"
	case ClockQPC:
		return "qpc"
	case ClockSystemTime:
		return "system_time"
	case ClockCPUCycle:
		return "cpu_cycle"
	}
	return fmt.Sprintf("clock(%d)", uint32(c))
}

// SystemTime is the Windows SYSTEMTIME structure (8 × u16), used in time-zone
// transition rules.
type SystemTime struct {
	Year, Month, DayOfWeek, Day, Hour, Minute, Second, Milliseconds uint16
}

// TimeZone is the TIME_ZONE_INFORMATION stored in the log-file header.
// Bias values are minutes, with UTC = local time + Bias.
type TimeZone struct {
	Bias         int32
	StandardName string
	StandardDate SystemTime
	StandardBias int32
	DaylightName string
	DaylightDate SystemTime
	DaylightBias int32
}

// LogfileHeader is the TRACE_LOGFILE_HEADER carried by the first event of
// the file, with the two strings that follow it, widened to one form for
// the 32- and 64-bit layouts.
type LogfileHeader struct {
	BufferSize         uint32 // bytes per buffer
	MajorVersion       uint8  // Windows major version
	MinorVersion       uint8  // Windows minor version
	SubVersion         uint8  // log layout major version
	SubMinorVersion    uint8  // log layout minor version
	ProviderVersion    uint32 // Windows build number
	NumberOfProcessors uint32
	EndTime            int64 // FILETIME (UTC); 0 if the log was not closed
	TimerResolution    uint32
	MaximumFileSize    uint32
	LogFileMode        uint32
	BuffersWritten     uint32
	StartBuffers       uint32 // union with LogInstanceGuid
	PointerSize        uint32 // bytes: 4 or 8
	EventsLost         uint32
	CPUSpeedMHz        uint32
	LoggerNameField    uint64 // the LoggerName pointer slot (a timer source since Windows 7)
	LogFileNameField   uint64 // the LogFileName pointer slot
	TimeZone           TimeZone
	BootTime           int64 // FILETIME
	PerfFreq           int64 // QPC frequency, Hz
	StartTime          int64 // FILETIME (UTC) of the session start
	ReservedFlags      uint32
	BuffersLost        uint32
	LoggerName         string // session name
	LogFileName        string // log-file path as given to the logger

	// Is64 is true for the 64-bit TRACE_LOGFILE_HEADER layout (header
	// event type SYSTEM64).
	Is64 bool
	// HeaderTimestamp is the raw timestamp of the header event: the clock
	// value that corresponds to StartTime.
	HeaderTimestamp int64
}

// LogInstanceGUID returns the LogInstanceGuid that shares storage with
// StartBuffers, PointerSize, EventsLost and CPUSpeedMHz (it is only
// meaningful for real-time sessions).
func (h *LogfileHeader) LogInstanceGUID() uuid.UUID {
	var b [16]byte
	binary.LittleEndian.PutUint32(b[0:], h.StartBuffers)
	binary.LittleEndian.PutUint32(b[4:], h.PointerSize)
	binary.LittleEndian.PutUint32(b[8:], h.EventsLost)
	binary.LittleEndian.PutUint32(b[12:], h.CPUSpeedMHz)
	return GUIDFromWindows(b[:])
}

// Clock returns the session clock type (ReservedFlags).
func (h *LogfileHeader) Clock() ClockType { return ClockType(h.ReservedFlags) }

// Version returns the packed version as tracerpt prints it
// (Major | Minor<<8 | Sub<<16 | SubMinor<<24).
func (h *LogfileHeader) Version() uint32 {
	return uint32(h.MajorVersion) | uint32(h.MinorVersion)<<8 | uint32(h.SubVersion)<<16 | uint32(h.SubMinorVersion)<<24
}

// Compressed reports whether the file was written in compressed mode.
func (h *LogfileHeader) Compressed() bool { return h.LogFileMode&ModeCompressed != 0 }

// tlh32Size and tlh64Size are the fixed sizes of TRACE_LOGFILE_HEADER.
const (
	tlh32Size = 0x110
	tlh64Size = 0x118
	tzSize    = 0xAC
)

// ParseLogfileHeader parses a TRACE_LOGFILE_HEADER and the two names that
// follow it from the payload of a log-file header event (the inverse of
// [AppendLogfileHeader]). is64 selects the layout. HeaderTimestamp is left
// 0: it is the header event's timestamp, not part of the payload.
func ParseLogfileHeader(p []byte, is64 bool) (LogfileHeader, error) {
	var h LogfileHeader
	size := tlh32Size
	ptr := 4
	if is64 {
		size, ptr = tlh64Size, 8
	}
	if len(p) < size {
		return h, fmt.Errorf("log-file header event payload is %d bytes, need %d", len(p), size)
	}
	le := binary.LittleEndian
	h.Is64 = is64
	h.BufferSize = le.Uint32(p[0x00:])
	h.MajorVersion, h.MinorVersion, h.SubVersion, h.SubMinorVersion = p[4], p[5], p[6], p[7]
	h.ProviderVersion = le.Uint32(p[0x08:])
	h.NumberOfProcessors = le.Uint32(p[0x0C:])
	h.EndTime = int64(le.Uint64(p[0x10:]))
	h.TimerResolution = le.Uint32(p[0x18:])
	h.MaximumFileSize = le.Uint32(p[0x1C:])
	h.LogFileMode = le.Uint32(p[0x20:])
	h.BuffersWritten = le.Uint32(p[0x24:])
	h.StartBuffers = le.Uint32(p[0x28:])
	h.PointerSize = le.Uint32(p[0x2C:])
	h.EventsLost = le.Uint32(p[0x30:])
	h.CPUSpeedMHz = le.Uint32(p[0x34:])
	o := 0x38
	if ptr == 8 {
		h.LoggerNameField = le.Uint64(p[o:])
		h.LogFileNameField = le.Uint64(p[o+8:])
	} else {
		h.LoggerNameField = uint64(le.Uint32(p[o:]))
		h.LogFileNameField = uint64(le.Uint32(p[o+4:]))
	}
	o += 2 * ptr
	h.TimeZone = parseTimeZone(p[o : o+tzSize])
	o += tzSize + 4 // TIME_ZONE_INFORMATION is padded to 8
	h.BootTime = int64(le.Uint64(p[o:]))
	h.PerfFreq = int64(le.Uint64(p[o+8:]))
	h.StartTime = int64(le.Uint64(p[o+16:]))
	h.ReservedFlags = le.Uint32(p[o+24:])
	h.BuffersLost = le.Uint32(p[o+28:])
	rest := p[size:]
	var n int
	h.LoggerName, n = utf16z(rest)
	h.LogFileName, _ = utf16z(rest[n:])
	return h, nil
}

func parseTimeZone(b []byte) TimeZone {
	le := binary.LittleEndian
	st := func(b []byte) SystemTime {
		return SystemTime{le.Uint16(b), le.Uint16(b[2:]), le.Uint16(b[4:]), le.Uint16(b[6:]),
			le.Uint16(b[8:]), le.Uint16(b[10:]), le.Uint16(b[12:]), le.Uint16(b[14:])}
	}
	name := func(b []byte) string { s, _ := utf16z(b[:64]); return s }
	return TimeZone{
		Bias:         int32(le.Uint32(b)),
		StandardName: name(b[4:]),
		StandardDate: st(b[0x44:]),
		StandardBias: int32(le.Uint32(b[0x54:])),
		DaylightName: name(b[0x58:]),
		DaylightDate: st(b[0x98:]),
		DaylightBias: int32(le.Uint32(b[0xA8:])),
	}
}

// utf16z decodes a NUL-terminated UTF-16LE string from b and returns it
// with the number of bytes consumed (terminator included). An unterminated
// string runs to the end of b.
func utf16z(b []byte) (string, int) {
	n := len(b) / 2
	end := n
	for i := 0; i < n; i++ {
		if b[2*i] == 0 && b[2*i+1] == 0 {
			end = i
			break
		}
	}
	u := make([]uint16, end)
	for i := range u {
		u[i] = binary.LittleEndian.Uint16(b[2*i:])
	}
	used := 2 * end
	if end < n {
		used += 2
	}
	return string(utf16.Decode(u)), used
}

// FiletimeToTime converts a FILETIME (100 ns intervals since 1601-01-01 UTC)
// to a [time.Time] in UTC.
func FiletimeToTime(ft int64) time.Time {
	// Seconds first, then the epoch: every int64 FILETIME converts
	// without overflow.
	sec := ft / ticksPerSec
	rem := ft % ticksPerSec
	if rem < 0 {
		sec--
		rem += ticksPerSec
	}
	return time.Unix(sec-unixToFiletimeSec, rem*100).UTC()
}
