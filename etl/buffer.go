package etl

import (
	"encoding/binary"
	"fmt"
)

// BufferHeaderSize is the size of WMI_BUFFER_HEADER, the same for 32- and
// 64-bit files since Windows 7.
const BufferHeaderSize = 0x48

// Buffer flags (WMI_BUFFER_HEADER.BufferFlag).
const (
	BufferFlagFlushMarker    = 0x0001
	BufferFlagEventsLost     = 0x0002
	BufferFlagBufferLost     = 0x0004
	BufferFlagRTBackupCorupt = 0x0008
	BufferFlagRTBackup       = 0x0010
	BufferFlagProcIndex      = 0x0020 // ClientContext holds a u16 processor index
	BufferFlagCompressed     = 0x0040
)

// Buffer types (WMI_BUFFER_HEADER.BufferType).
const (
	BufferTypeGeneric     = 0
	BufferTypeRundown     = 1
	BufferTypeCtxSwap     = 2
	BufferTypeRefTime     = 3
	BufferTypeHeader      = 4
	BufferTypeBatched     = 5
	BufferTypeEmptyMarker = 6
	BufferTypeDbgInfo     = 7
)

// BufferHeader is a WMI_BUFFER_HEADER as stored in the file.
type BufferHeader struct {
	BufferSize     uint32 // bytes this buffer occupies in the file
	SavedOffset    uint32
	CurrentOffset  uint32 // logger's reservation cursor; not reliable in files
	ReferenceCount int32
	TimeStamp      int64 // flush time, raw session clock
	SequenceNumber int64
	ClockField     uint64 // ClockType/Frequency union; leftover data in files
	ClientContext  uint32 // ETW_BUFFER_CONTEXT: processor number/index and logger id
	State          uint32 // ETW_BUFFER_STATE; buffer 0's low u16 is the compression format in compressed files
	Offset         uint32 // end of the records, header included
	Flags          uint16
	Type           uint16
}

// Processor returns the processor that filled the buffer: the u16
// ProcessorIndex when BufferFlagProcIndex is set, else the u8
// ProcessorNumber.
func (h *BufferHeader) Processor() uint16 {
	if h.Flags&BufferFlagProcIndex != 0 {
		return uint16(h.ClientContext)
	}
	return uint16(h.ClientContext & 0xFF)
}

// LoggerID returns the session's logger id from the buffer context.
func (h *BufferHeader) LoggerID() uint16 { return uint16(h.ClientContext >> 16) }

// Compressed reports whether the buffer payload is compressed.
func (h *BufferHeader) Compressed() bool { return h.Flags&BufferFlagCompressed != 0 }

// ParseBufferHeader decodes a WMI_BUFFER_HEADER from b, which must hold at
// least [BufferHeaderSize] bytes.
func ParseBufferHeader(b []byte) (BufferHeader, error) {
	if len(b) < BufferHeaderSize {
		return BufferHeader{}, fmt.Errorf("buffer header needs %d bytes, have %d", BufferHeaderSize, len(b))
	}
	le := binary.LittleEndian
	return BufferHeader{
		BufferSize:     le.Uint32(b[0x00:]),
		SavedOffset:    le.Uint32(b[0x04:]),
		CurrentOffset:  le.Uint32(b[0x08:]),
		ReferenceCount: int32(le.Uint32(b[0x0C:])),
		TimeStamp:      int64(le.Uint64(b[0x10:])),
		SequenceNumber: int64(le.Uint64(b[0x18:])),
		ClockField:     le.Uint64(b[0x20:]),
		ClientContext:  le.Uint32(b[0x28:]),
		State:          le.Uint32(b[0x2C:]),
		Offset:         le.Uint32(b[0x30:]),
		Flags:          le.Uint16(b[0x34:]),
		Type:           le.Uint16(b[0x36:]),
	}, nil
}

// BufferInfo locates one buffer in a file.
type BufferInfo struct {
	Index      int   // position in file order, from 0
	FileOffset int64 // where the buffer header starts
	Header     BufferHeader
}

// Buffer is one buffer read from a file, decompressed if it was compressed.
// Data holds the header and the records, Data[:Header.Offset] (or less for a
// truncated buffer); record offsets are relative to Data. Data is
// read-only.
type Buffer struct {
	BufferInfo
	Data []byte
	// Truncated is set when the file ends before the buffer does; Data
	// then holds what was present.
	Truncated bool

	file  *File
	store *[]byte // pooled storage behind Data
}

// Records returns a reader over the buffer's records.
func (b *Buffer) Records() *RecordReader {
	rr := &RecordReader{}
	rr.Reset(b)
	return rr
}
