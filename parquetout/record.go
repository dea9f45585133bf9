package parquetout

import (
	"encoding/binary"
	"errors"
	"math"
)

// The Encoder renders each event into a record, on the pipeline's
// workers; the Writer reads the records, in order, into column values.
// The pipeline could carry typed rows (pipeline.Encoder is generic over
// what a worker renders), but a flat record is what the Writer needs: it
// copies each record once, whole, into the chunk of its row group, and the
// chunk's byte values point into that copy while an encoder goroutine
// converts and compresses it (no copy per value, no parsing on the writer
// goroutine). A record is private to this package:
//
//	u32 length of the record, these 4 bytes included
//	fixed part (fixedSize bytes, little-endian, offsets below)
//	strings: nStrings × (u32 length, bytes); absent = 0xFFFFFFFF
//	frames:  u32 count; when not 0, the u64 identity of the stack
//	         (analysis.Annotation.StackID, 0 when it has none) and the u32
//	         length of the frames that follow; per frame u64 address, u64
//	         offset, u8 flags (1 module, 2 method), module and method as
//	         strings
//	extension (NewExtendedWriter's writers only): the trace start (rel_ms)
//	         and 8 bytes per column, added by the writer after the record's
//	         length
//	typed properties (split tables only): u16 count, then per top-level
//	         printable property a tag and its value (see the tag constants);
//	         a property with names is followed by its name as a string
const (
	offTime        = 4  // i64 FILETIME
	offRaw         = 12 // i64 raw timestamp
	offFile        = 20 // u32
	offCPU         = 24 // u16
	offFlags       = 26 // u16
	offPID         = 28 // u32
	offTID         = 32 // u32
	offEventID     = 36 // u16
	offVersion     = 38 // u8
	offChannel     = 39 // u8
	offLevel       = 40 // u8
	offOpcode      = 41 // u8
	offTask        = 42 // u16
	offKeywords    = 44 // u64
	offHook        = 52 // u16
	offMsgFlags    = 54 // u16
	offInstance    = 56 // u32
	offParentInst  = 60 // u32
	offSequence    = 64 // u32
	offComponent   = 68 // u32
	offKernelTime  = 72 // u32
	offUserTime    = 76 // u32
	offProcTime    = 80 // u64
	offPresent     = 88 // u32: has* bits
	offHeader      = 92 // u8: etl.HeaderType
	offSchemaVer   = 93 // u8
	offSchemaID    = 96 // u32: 0 none, else 1 + index in the encoder's schema set
	fixedSize      = 100
	hasHook        = 1 << 0
	hasInstance    = 1 << 1
	hasWPP         = 1 << 2
	hasCPUTimes    = 1 << 3
	hasProcTime    = 1 << 4
	hasSchemaVer   = 1 << 5
	hasRelMS       = 1 << 6
	absent         = math.MaxUint32
	frameHasModule = 1
	frameHasMethod = 2
)

// hasStack marks a record with frames, which come after a header of
// stackHeader bytes (identity, length): a table leaves the header out of
// the records' size, which bounds its chunks and row groups, so that
// they end where they did before records had it, and so do the files'
// pages.
const (
	hasStack    = 1 << 7
	stackHeader = 12
)

// The strings of a record, in order.
const (
	sProcessName = iota
	sProviderGUID
	sParentGUID
	sActivityID
	sRelatedActivityID
	sExtended
	sProviderName
	sEventName
	sTaskName
	sOpcodeName
	sLevelName
	sSchemaSource
	sProperties
	sMaps
	sMessage
	sUserData
	sDecodeError
	nStrings
)

// Tags of typed property values.
const (
	tagNull  = iota
	tagInt   // i64
	tagUint  // u64
	tagFloat // f64 bits
	tagBool  // u8
	tagBytes // string: text, binary or JSON
	tagTime  // i64 microseconds since 1970
)

// rec is a parsed record; its slices point into the record's bytes.
type rec struct {
	b        []byte // the record
	fixed    []byte
	str      [nStrings][]byte
	has      [nStrings]bool
	at       [nStrings]uint32 // where each string's bytes start in the record
	framesAt int              // where the frames start in b
	props    []propValue
	typed    bool
	present  uint32
}

type propValue struct {
	tag   uint8
	n     uint64
	b     []byte
	name  []byte
	named bool
}

func (r *rec) u8(off int) uint8   { return r.fixed[off] }
func (r *rec) u16(off int) uint16 { return binary.LittleEndian.Uint16(r.fixed[off:]) }
func (r *rec) u32(off int) uint32 { return binary.LittleEndian.Uint32(r.fixed[off:]) }
func (r *rec) u64(off int) uint64 { return binary.LittleEndian.Uint64(r.fixed[off:]) }

var errRecord = errors.New("parquetout: malformed record (the input is not from parquetout.Encoder)")

// parse reads one record from b; b holds exactly the record. Names of
// typed properties are read when the record has them.
func (r *rec) parse(b []byte) error {
	if len(b) < fixedSize {
		return errRecord
	}
	r.b, r.fixed = b, b[:fixedSize]
	r.present = r.u32(offPresent)
	pos := fixedSize
	for i := range r.str {
		r.at[i] = uint32(pos + 4)
		var ok bool
		if r.str[i], r.has[i], pos, ok = recStr(b, pos); !ok {
			return errRecord
		}
	}
	var ok bool
	r.framesAt = pos
	if pos, ok = skipFrames(b, pos); !ok {
		return errRecord
	}
	r.props = r.props[:0]
	r.typed = len(b) > pos
	if !r.typed {
		return nil
	}
	if len(b)-pos < 2 {
		return errRecord
	}
	np := int(binary.LittleEndian.Uint16(b[pos:]))
	pos += 2
	for range np {
		if len(b)-pos < 2 {
			return errRecord
		}
		v := propValue{tag: b[pos], named: b[pos+1] != 0}
		pos += 2
		switch v.tag {
		case tagNull:
		case tagInt, tagUint, tagFloat, tagTime:
			if len(b)-pos < 8 {
				return errRecord
			}
			v.n = binary.LittleEndian.Uint64(b[pos:])
			pos += 8
		case tagBool:
			if len(b)-pos < 1 {
				return errRecord
			}
			v.n = uint64(b[pos])
			pos++
		case tagBytes:
			if v.b, _, pos, ok = recStr(b, pos); !ok {
				return errRecord
			}
		default:
			return errRecord
		}
		if v.named {
			if v.name, v.named, pos, ok = recStr(b, pos); !ok {
				return errRecord
			}
		}
		r.props = append(r.props, v)
	}
	if pos != len(b) {
		return errRecord
	}
	return nil
}

// frameCount reads the frame count of record b at pos: it returns the
// count, where what follows it starts (frameHeader, when the count is not
// 0), and ok false when the count is missing or more frames than the
// bytes left could hold (17 bytes each at the least), next then where it
// stopped. skipFrames and chunk.stackRecord start with it. It must stay
// small enough to inline: as a call it cost 0.6-1.2M instructions more
// on net.4.5.2.x64.etl's Parquet dumps (session 10); inlined,
// chunk.stackRecord takes 4M fewer than with its own copy of the check
// (117.4M -> 113.1M, cachegrind, -of PARQUET) and skipFrames as many
// (42.2M, --split-by-event).
func frameCount(b []byte, pos int) (nf uint32, next int, ok bool) {
	if len(b)-pos < 4 {
		return 0, pos, false
	}
	nf = binary.LittleEndian.Uint32(b[pos:])
	return nf, pos + 4, uint64(nf)*17 <= uint64(len(b)-pos-4)
}

// frameHeader reads the header of nf > 0 frames at pos: the stack's
// identity, where the frames start and where they end; ok is false when
// the header is cut or its length more than the bytes left or less than
// the frames could take.
func frameHeader(b []byte, pos int, nf uint32) (id uint64, next, end int, ok bool) {
	if len(b)-pos < 12 {
		return 0, pos, pos, false
	}
	id, n := binary.LittleEndian.Uint64(b[pos:]), binary.LittleEndian.Uint32(b[pos+8:])
	pos += 12
	return id, pos, pos + int(n), uint64(nf)*17 <= uint64(n) && uint64(n) <= uint64(len(b)-pos)
}

// skipFrames checks the frames of record b at pos: it returns where the
// record goes on after them, ok false when they are malformed (as
// chunk.stackRecord finds them).
func skipFrames(b []byte, pos int) (next int, ok bool) {
	nf, pos, ok := frameCount(b, pos)
	if !ok || nf == 0 {
		return pos, ok
	}
	_, pos, end, ok := frameHeader(b, pos, nf)
	if !ok {
		return pos, false
	}
	b = b[:end] // the frames' length bounds them
	for range nf {
		if len(b)-pos < 17 {
			return pos, false
		}
		if _, _, pos, ok = recStr(b, pos+17); !ok { // module
			return pos, false
		}
		if _, _, pos, ok = recStr(b, pos); !ok { // method
			return pos, false
		}
	}
	return pos, pos == end // the frames fill their length
}

// recStr reads the record string at pos of b: its bytes (nil when
// absent), whether it is present and where the next field starts; ok is
// false when b is too short.
func recStr(b []byte, pos int) (s []byte, has bool, next int, ok bool) {
	if pos < 0 || len(b)-pos < 4 {
		return nil, false, pos, false
	}
	n := binary.LittleEndian.Uint32(b[pos:])
	pos += 4
	if n == absent {
		return nil, false, pos, true
	}
	if uint64(n) > uint64(len(b)-pos) {
		return nil, false, pos, false
	}
	end := pos + int(n)
	return b[pos:end:end], true, end, true
}

// Appending records.

func putU16(b []byte, off int, v uint16) { binary.LittleEndian.PutUint16(b[off:], v) }
func putU32(b []byte, off int, v uint32) { binary.LittleEndian.PutUint32(b[off:], v) }
func putU64(b []byte, off int, v uint64) { binary.LittleEndian.PutUint64(b[off:], v) }

// appendStr appends s as a record string.
func appendStr[T string | []byte](b []byte, s T) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(len(s)))
	return append(b, s...)
}

// appendAbsent appends an absent string.
func appendAbsent(b []byte) []byte { return binary.LittleEndian.AppendUint32(b, absent) }

// beginStr reserves a string's length and returns where it starts; endStr
// fills the length in once the string is appended.
func beginStr(b []byte) ([]byte, int) {
	return binary.LittleEndian.AppendUint32(b, 0), len(b)
}

func endStr(b []byte, at int) []byte {
	putU32(b, at, uint32(len(b)-at-4))
	return b
}
