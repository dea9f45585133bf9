package etl

import (
	"encoding/binary"
	"math/bits"

	"github.com/google/uuid"
)

// GUIDFromWindows converts a 16-byte GUID in Windows memory layout
// (Data1 as little-endian u32, Data2 and Data3 as little-endian u16, then
// the 8 bytes of Data4) into a [uuid.UUID], whose bytes are in RFC 4122
// (big-endian) order. b must hold at least 16 bytes.
func GUIDFromWindows(b []byte) uuid.UUID {
	var u uuid.UUID
	putGUID(&u, (*[16]byte)(b))
	return u
}

// putGUID stores the GUID b (Windows layout) into *u: two 8-byte loads
// and two 8-byte stores, Data1, Data2 and Data3 byte-swapped in a
// register. The record parsers store straight into the event this way:
// a GUID built in a temporary with narrower stores, then copied with one
// 16-byte load, stalls that load until the stores retire (no store
// forwarding from several stores to one wider load): ProviderID,
// Descriptor and ActivityID built so were 48 % of parseRecord's samples
// on stats of net.4.5.2 (perf annotate, 2026-11-29).
func putGUID(u *uuid.UUID, b *[16]byte) {
	x := binary.LittleEndian.Uint64(b[0:])
	y := uint64(bits.ReverseBytes32(uint32(x))) |
		uint64(bits.ReverseBytes16(uint16(x>>32)))<<32 |
		uint64(bits.ReverseBytes16(uint16(x>>48)))<<48
	binary.LittleEndian.PutUint64(u[0:], y)
	binary.LittleEndian.PutUint64(u[8:], binary.LittleEndian.Uint64(b[8:]))
}

// PutGUIDWindows writes u into b[:16] in Windows memory layout.
func PutGUIDWindows(b []byte, u uuid.UUID) {
	_ = b[15]
	binary.LittleEndian.PutUint32(b, binary.BigEndian.Uint32(u[0:]))
	binary.LittleEndian.PutUint16(b[4:], binary.BigEndian.Uint16(u[4:]))
	binary.LittleEndian.PutUint16(b[6:], binary.BigEndian.Uint16(u[6:]))
	copy(b[8:16], u[8:])
}
