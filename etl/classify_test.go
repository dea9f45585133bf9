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

// TestClassifySlowTypes checks the table typed and classifySlow share
// (headerKinds) against the header layouts written out here: for every
// type byte, a typed header is of a known type at its size position and
// minimum size, a fault of its size below that minimum, or a fault of an
// unknown type.
func TestClassifySlowTypes(t *testing.T) {
	type layout struct{ at, min int }
	kernel := func(min int) layout { return layout{4, min} } // the size after the version and the type
	want := map[HeaderType]layout{
		HeaderSystem32: kernel(0x20), HeaderSystem64: kernel(0x20),
		HeaderCompact32: kernel(0x18), HeaderCompact64: kernel(0x18),
		HeaderPerfInfo32: kernel(0x10), HeaderPerfInfo64: kernel(0x10),
		HeaderClassic32: {0, 0x30}, HeaderClassic64: {0, 0x30},
		HeaderInstance32: {0, 0x30}, HeaderInstance64: {0, 0x30},
		HeaderEvent32: {0, 0x50}, HeaderEvent64: {0, 0x50}, HeaderError: {0, 0x50},
	}
	for typ := 0; typ < 256; typ++ {
		l, known := want[HeaderType(typ)]
		for _, at := range []int{0, 4} {
			for _, size := range []int{0x0F, 0x10, 0x17, 0x18, 0x1F, 0x20, 0x2F, 0x30, 0x4F, 0x50, 0xFFFF} {
				b := make([]byte, 8)
				b[2], b[3] = byte(typ), 0xC0
				binary.LittleEndian.PutUint16(b[at:], uint16(size))
				var f recordFault
				got, gotSize := classifySlow(b, &f)
				switch {
				case !known:
					if f.kind != faultUnknownType {
						t.Fatalf("% x: %v %d (%s), want an unknown type", b, got, gotSize, f.message())
					}
				case at != l.at:
					// The size is elsewhere: this one reads 0.
					if f.kind != faultSize {
						t.Fatalf("% x: %v %d (%s), want a size fault (size at +%d)", b, got, gotSize, f.message(), l.at)
					}
				case size < l.min:
					if f.kind != faultSize {
						t.Fatalf("% x: %v %d (%s), want a size fault (minimum %#x)", b, got, gotSize, f.message(), l.min)
					}
				default:
					if f.kind != faultNone || got != HeaderType(typ) || gotSize != size {
						t.Fatalf("% x: %v %d (%s), want %v %d", b, got, gotSize, f.message(), HeaderType(typ), size)
					}
				}
			}
		}
	}
}
