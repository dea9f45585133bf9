package etl

import (
	"encoding/binary"
	"reflect"
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

// TestEventScalarsHoldNoPointers keeps parseRecord's clearing of Event's
// leading fields as bytes sound: no field before Extended may hold a
// pointer (the collector would miss the cleared one).
func TestEventScalarsHoldNoPointers(t *testing.T) {
	var pointerFree func(ty reflect.Type) bool
	pointerFree = func(ty reflect.Type) bool {
		switch ty.Kind() {
		case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
			return true
		case reflect.Array:
			return pointerFree(ty.Elem())
		case reflect.Struct:
			for i := range ty.NumField() {
				if !pointerFree(ty.Field(i).Type) {
					return false
				}
			}
			return true
		}
		return false
	}
	ty := reflect.TypeFor[Event]()
	n := 0
	for i := range ty.NumField() {
		f := ty.Field(i)
		if f.Offset >= eventScalars {
			continue
		}
		n++
		if !pointerFree(f.Type) {
			t.Errorf("Event.%s (%v, at %d) before Extended (%d) may hold a pointer", f.Name, f.Type, f.Offset, eventScalars)
		}
	}
	if n < 20 {
		t.Errorf("only %d fields before Extended (at %d)", n, eventScalars)
	}
}
