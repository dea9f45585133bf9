package tdh

import (
	"math/rand/v2"
	"testing"
	"unicode/utf16"
)

// decodeWide is what AppendString must give for UTF-16LE b: the code
// units up to the first NUL (an odd last byte left out), through the
// standard library (U+FFFD for lone surrogates).
func decodeWide(b []byte) string {
	var units []uint16
	for i := 0; i+1 < len(b); i += 2 {
		u := uint16(b[i]) | uint16(b[i+1])<<8
		if u == 0 {
			break
		}
		units = append(units, u)
	}
	return string(utf16.Decode(units))
}

// TestAppendStringWideRuns checks AppendString on UTF-16 with ASCII runs
// of every length, NULs, odd lengths, other characters and surrogates
// (paired and lone) against the standard library's decoding.
func TestAppendStringWideRuns(t *testing.T) {
	units := []uint16{'a', 'Z', 1, 0x7F, 0x80, 0xE9, 0x4E2D, 0xD83D, 0xDE00, 0xDC00, 0}
	r := rand.New(rand.NewPCG(3, 4))
	for n := 0; n < 50000; n++ {
		var b []byte
		for k := r.IntN(24); k > 0; k-- {
			u := units[r.IntN(len(units))]
			if r.IntN(3) > 0 {
				u = uint16(' ' + r.IntN(95))
			}
			if r.IntN(40) == 0 {
				u = 0
			}
			b = append(b, byte(u), byte(u>>8))
		}
		if r.IntN(4) == 0 {
			b = append(b, byte(r.IntN(256))) // an odd length
		}
		got := AppendString([]byte("x"), b, true)
		if want := "x" + decodeWide(b); string(got) != want {
			t.Fatalf("AppendString(% x) = %q, want %q", b, got, want)
		}
	}
}
