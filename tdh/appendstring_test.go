package tdh

import (
	"math/rand/v2"
	"testing"
	"unicode/utf16"

	"github.com/etwkit/etw/internal/jsonstr"
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

// randomWide returns up to 23 UTF-16 code units, printable ASCII or from
// units, with a NUL now and then, and an odd last byte one time in four.
func randomWide(r *rand.Rand, units []uint16) []byte {
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
	return b
}

// TestAppendStringWideRuns checks AppendString on UTF-16 with ASCII runs
// of every length, NULs, odd lengths, other characters and surrogates
// (paired and lone) against the standard library's decoding.
func TestAppendStringWideRuns(t *testing.T) {
	units := []uint16{'a', 'Z', 1, 0x7F, 0x80, 0xE9, 0x4E2D, 0xD83D, 0xDE00, 0xDC00, 0}
	r := rand.New(rand.NewPCG(3, 4))
	for n := 0; n < 50000; n++ {
		b := randomWide(r, units)
		got := AppendString([]byte("x"), b, true)
		if want := "x" + decodeWide(b); string(got) != want {
			t.Fatalf("AppendString(% x) = %q, want %q", b, got, want)
		}
	}
}

// TestNulAt compares nulAt with a walk of one character at a time on
// random strings: zero bytes at odd and even offsets, zero code units
// anywhere, odd lengths.
func TestNulAt(t *testing.T) {
	naive := func(b []byte, unit int) int {
		for i := 0; i+unit <= len(b); i += unit {
			if b[i] == 0 && (unit == 1 || b[i+1] == 0) {
				return i
			}
		}
		return -1
	}
	r := rand.New(rand.NewPCG(5, 6))
	for n := 0; n < 50000; n++ {
		b := make([]byte, r.IntN(40))
		for i := range b {
			switch r.IntN(8) {
			case 0:
				b[i] = 0
			case 1:
				b[i] = 0x80 + byte(r.IntN(128))
			default:
				b[i] = byte(1 + r.IntN(127))
			}
		}
		for _, unit := range []int{1, 2} {
			if got, want := nulAt(b, unit), naive(b, unit); got != want {
				t.Fatalf("nulAt(% x, %d) = %d, want %d", b, unit, got, want)
			}
		}
	}
}

// checkWideJSON compares appendWideJSON with AppendString's text quoted
// by jsonQuoteFrom, and appendWide for the message with the text
// escaped by jsonstr.
func checkWideJSON(t *testing.T, b []byte) {
	t.Helper()
	want := jsonQuoteFrom(AppendString([]byte("x"), b, true), 1)
	if got := appendWideJSON([]byte("x"), b); string(got) != string(want) {
		t.Fatalf("appendWideJSON(% x) = %q, want %q", b, got, want)
	}
	want, _ = jsonstr.Escape([]byte("x"), AppendString(nil, b, true))
	if got := appendWide([]byte("x"), b, wideMsg); string(got) != string(want) {
		t.Fatalf("appendWide(% x, wideMsg) = %q, want %q", b, got, want)
	}
}

// TestAppendWideJSON checks the one-pass JSON strings of UTF-16 text on
// random strings of printable ASCII, characters to escape (quote,
// backslash, controls, DEL; <, > and & for the message), other
// characters, surrogates, NULs and odd lengths.
func TestAppendWideJSON(t *testing.T) {
	units := []uint16{'"', '\\', '\n', 1, 0x1F, 0x20, 0x7F, 0x80, 0xE9, 0x2028, 0x2029, 0x4E2D, 0xD83D, 0xDE00, 0xDC00, 0x225C, 0x5C00,
		'<', '>', '&', '=', '?', '"' | 0x100, '&' | 0x100, 0x3C00, 0}
	r := rand.New(rand.NewPCG(5, 6))
	for n := 0; n < 50000; n++ {
		checkWideJSON(t, randomWide(r, units))
	}
}

func FuzzAppendWideJSON(f *testing.F) {
	f.Add([]byte("a\x00\"\x00b\x00\\\x00c\x00d\x00e\x00f\x00\x3d\xd8\x00\xde"))
	f.Add([]byte("a\x00b\x00c\x00d\x00e\x00f\x00g\x00<\x00i\x00j\x00&\x00l\x00m\x00n\x00o\x00p\x00(\x20)\x20"))
	f.Fuzz(checkWideJSON)
}
