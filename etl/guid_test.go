package etl_test

import (
	"math/rand/v2"
	"testing"

	"github.com/etwkit/etw/etl"
	"github.com/google/uuid"
)

// TestGUIDFromWindows reads a GUID stored in Windows' layout (Data1,
// Data2 and Data3 little-endian), and every GUID PutGUIDWindows stores.
func TestGUIDFromWindows(t *testing.T) {
	// The kernel's Process class, {3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c}.
	b := []byte{0xd0, 0xa8, 0x6f, 0x3d, 0x05, 0xfe, 0xd0, 0x11, 0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c}
	want := uuid.MustParse("3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c")
	if got := etl.GUIDFromWindows(b); got != want {
		t.Fatalf("GUIDFromWindows = %v, want %v", got, want)
	}
	r := rand.New(rand.NewPCG(1, 2))
	buf := make([]byte, 16)
	for range 1000 {
		var u uuid.UUID
		for i := range u {
			u[i] = byte(r.Uint32())
		}
		etl.PutGUIDWindows(buf, u)
		if got := etl.GUIDFromWindows(buf); got != u {
			t.Fatalf("GUIDFromWindows(PutGUIDWindows(%v)) = %v", u, got)
		}
	}
}
