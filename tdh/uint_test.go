package tdh

import "testing"

// TestValueUintInTypes checks Value.Uint and Int against IsInteger and
// FixedSize for every in-type and data length up to 9 bytes: the integer
// in-types of the size the in-type fixes (4 or 8 bytes for the
// pointer-sized ones) give their value, everything else nothing.
func TestValueUintInTypes(t *testing.T) {
	data := []byte{0x81, 0x92, 0xA3, 0xB4, 0xC5, 0xD6, 0xE7, 0xF8, 0x09}
	for i := 0; i <= 0xFFFF; i++ {
		in := InType(i)
		p := &Property{Name: "V", InType: in}
		for n := 0; n <= len(data); n++ {
			ok := in.IsInteger() && n == in.FixedSize(n) && (n == 4 || n == 8 || in.FixedSize(0) != 0)
			var want uint64
			for k := n - 1; k >= 0; k-- {
				want = want<<8 | uint64(data[k])
			}
			for _, kind := range []Kind{Scalar, Array, Struct} {
				v := &Value{Prop: p, Kind: kind, Data: data[:n]}
				got, gotOK := v.Uint()
				wantOK := ok && kind == Scalar
				if gotOK != wantOK || (wantOK && got != want) {
					t.Fatalf("in-type %d, %d bytes, kind %d: Uint = %#x %v, want %#x %v", i, n, kind, got, gotOK, want, wantOK)
				}
			}
		}
	}
	if _, ok := (&Value{Data: data[:4]}).Uint(); ok {
		t.Error("Uint of a value without property succeeded")
	}
}
