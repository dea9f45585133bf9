package etl

import (
	"encoding/binary"
	"testing"
)

// TestTypedAgreesWithClassifySlow checks the walk's inlined fast path
// against the full checks for every marker byte, header type byte and a
// size around each minimum, at both size positions: wherever typed
// answers, classifySlow gives the same type and size and no fault.
func TestTypedAgreesWithClassifySlow(t *testing.T) {
	answered := 0
	for marker := 0; marker < 256; marker++ {
		for typ := 0; typ < 256; typ++ {
			for _, size := range []int{0, 7, 8, 0x0F, 0x10, 0x17, 0x18, 0x1F, 0x20, 0x2F, 0x30, 0x4F, 0x50, 0xFFFF} {
				for _, at := range []int{0, 4} {
					b := make([]byte, 8)
					b[2], b[3] = byte(typ), byte(marker)
					binary.LittleEndian.PutUint16(b[at:], uint16(size))
					ft, fsize := typed(b)
					if fsize == 0 {
						continue
					}
					answered++
					var f recordFault
					st, ssize := classifySlow(b, &f)
					if f.kind != faultNone || st != ft || ssize != fsize {
						t.Fatalf("% x: typed %v %d, classifySlow %v %d (%s)", b, ft, fsize, st, ssize, f.message())
					}
				}
			}
		}
	}
	if answered == 0 {
		t.Fatal("typed answered for no header")
	}
	for n := 0; n < 8; n++ {
		if _, size := typed(make([]byte, n)); size != 0 {
			t.Errorf("typed answered for %d bytes", n)
		}
	}
}
