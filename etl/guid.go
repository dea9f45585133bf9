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
	var u uuid.UUID
	_ = b[15]
	u[0], u[1], u[2], u[3] = b[3], b[2], b[1], b[0]
	u[4], u[5] = b[5], b[4]
	u[6], u[7] = b[7], b[6]
	copy(u[8:], b[8:16])
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
