package tdh

import (
	"encoding/binary"
	"slices"
	"unicode/utf16"
	"unicode/utf8"
)

// textPlain marks the ASCII characters AppendString writes in runs: all
// but NUL (which ends the string).
var textPlain = func() (t [256]bool) {
	for c := 1; c < utf8.RuneSelf; c++ {
		t[c] = true
	}
	return t
}()

// appendWideJSON appends UTF-16LE string b (up to its first NUL) as a JSON
// string literal: what AppendString and jsonQuoteFrom give together, in
// one pass. Its UTF-8 is valid (lone surrogates become U+FFFD), so only
// ASCII needs escapes.
func appendWideJSON(dst, b []byte) []byte {
	return append(appendWide(append(dst, '"'), b, true), '"')
}

// appendWide appends the text of UTF-16LE string b up to its first NUL
// (AppendString), escaped for a JSON string when json is set. A run of
// ASCII characters that need no escape (textPlain, or jsonPlain for JSON)
// is written in place, a byte each, into room made once for the rest of
// b, four characters at a time while it lasts.
func appendWide(dst, b []byte, json bool) []byte {
	plain := &textPlain
	if json {
		plain = &jsonPlain
	}
	for i := 0; i+1 < len(b); i += 2 {
		if b[i+1] == 0 && plain[b[i]] {
			n := len(dst)
			dst = slices.Grow(dst, (len(b)-i)/2)
			out := dst[:cap(dst)]
			for ; i+8 <= len(b); i += 8 {
				x := binary.LittleEndian.Uint64(b[i:])
				if !plainWide4(x, json) {
					break
				}
				// The low bytes of the four units (their high bytes
				// are zero), packed.
				x = (x | x>>8) & 0x0000FFFF0000FFFF
				binary.LittleEndian.PutUint32(out[n:], uint32(x|x>>16))
				n += 4
			}
			for ; i+1 < len(b) && b[i+1] == 0 && plain[b[i]]; i += 2 {
				out[n] = b[i]
				n++
			}
			dst = dst[:n]
			if i+1 >= len(b) {
				break
			}
		}
		c := uint16(b[i]) | uint16(b[i+1])<<8
		if c == 0 {
			break
		}
		if c < utf8.RuneSelf {
			if json {
				dst = appendJSONByte(dst, byte(c))
			} else {
				dst = append(dst, byte(c))
			}
			continue
		}
		r := rune(c)
		if utf16.IsSurrogate(r) && i+3 < len(b) {
			r2 := rune(uint16(b[i+2]) | uint16(b[i+3])<<8)
			if dr := utf16.DecodeRune(r, r2); dr != utf8.RuneError {
				i += 2
				r = dr
			}
		}
		dst = utf8.AppendRune(dst, r)
	}
	return dst
}

// plainWide4 reports whether the four UTF-16 code units of x are all
// ASCII but NUL (textPlain) or, for JSON, printable ASCII (0x20 to 0x7F)
// but the quote and the backslash (jsonPlain).
func plainWide4(x uint64, json bool) bool {
	const lanes = 0x0001000100010001
	if x&0xFF80FF80FF80FF80 != 0 { // not ASCII
		return false
	}
	if !json {
		return !hasZero16(x)
	}
	return (x+0x60*lanes)&(0x80*lanes) == 0x80*lanes && // none below 0x20
		!hasZero16(x^('"'*lanes)) && !hasZero16(x^('\\'*lanes))
}
