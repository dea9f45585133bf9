package etl

import (
	"encoding/binary"

	"github.com/google/uuid"
)

// GUIDFromWindows converts a 16-byte GUID in Windows memory layout
// (Data1 as little-endian u32, Data2 and Data3 as little-endian u16, then
// the 8 bytes of Data4) into a [uuid.UUID], whose bytes are in RFC 4122
// (big-endian) order. b must hold at least 16 bytes.
func GUIDFromWindows(b []byte) uuid.UUID {
	return guidAt((*[16]byte)(b))
}

// guidAt is GUIDFromWindows of 16 bytes known to be there: three loads
// with their bytes swapped and one copy of Data4, not 16 byte moves.
func guidAt(b *[16]byte) uuid.UUID {
	var u uuid.UUID
	binary.BigEndian.PutUint32(u[0:], binary.LittleEndian.Uint32(b[0:]))
	binary.BigEndian.PutUint16(u[4:], binary.LittleEndian.Uint16(b[4:]))
	binary.BigEndian.PutUint16(u[6:], binary.LittleEndian.Uint16(b[6:]))
	binary.LittleEndian.PutUint64(u[8:], binary.LittleEndian.Uint64(b[8:]))
	return u
}

// PutGUIDWindows writes u into b[:16] in Windows memory layout.
func PutGUIDWindows(b []byte, u uuid.UUID) {
	_ = b[15]
	binary.LittleEndian.PutUint32(b, binary.BigEndian.Uint32(u[0:]))
	binary.LittleEndian.PutUint16(b[4:], binary.BigEndian.Uint16(u[4:]))
	binary.LittleEndian.PutUint16(b[6:], binary.BigEndian.Uint16(u[6:]))
	copy(b[8:16], u[8:])
}
