package tdh

import (
	"encoding/binary"
	"slices"
	"unicode/utf16"
	"unicode/utf8"
)

// appendWideJSON appends UTF-16LE string b (up to its first NUL) as a JSON
// string literal: what AppendString and jsonQuoteFrom give together, in
// one pass. Its UTF-8 is valid (lone surrogates become U+FFFD), so only
// ASCII needs escapes.
func appendWideJSON(dst, b []byte) []byte {
	return append(appendWide(append(dst, '"'), b, wideJSON), '"')
}

// wideEscape is how appendWide escapes the text it writes.
type wideEscape uint8

const (
	wideText wideEscape = iota // not at all (AppendString)
	wideJSON                   // for a JSON string, as appendJSONText escapes
	wideMsg                    // for a JSON string, as jsonstr.Escape escapes (also <, >, &, U+2028, U+2029)
)

// widePlain marks, per wideEscape, the ASCII characters appendWide writes
// in runs: all but NUL (which ends the string) for text, those of
// jsonPlain for JSON, and of these all but <, > and & for the message.
var widePlain = func() (t [3][256]bool) {
	for c := 1; c < utf8.RuneSelf; c++ {
		t[wideText][c] = true
		t[wideJSON][c] = jsonPlain[c]
		t[wideMsg][c] = jsonPlain[c] && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// appendWide appends the text of UTF-16LE string b up to its first NUL
// (AppendString), escaped for a JSON string as esc says. A run of ASCII
// characters that need no escape (widePlain) is written in place, a byte
// each, into room made once for the rest of b, eight characters at a
// time while it lasts, then four.
func appendWide(dst, b []byte, esc wideEscape) []byte {
	plain := &widePlain[esc%3]
	for i := 0; i+1 < len(b); i += 2 {
		if b[i+1] == 0 && plain[b[i]] {
			n := len(dst)
			dst = slices.Grow(dst, (len(b)-i)/2)
			out := dst[:cap(dst)]
			for ; i+16 <= len(b); i += 16 {
				x, y := binary.LittleEndian.Uint64(b[i:]), binary.LittleEndian.Uint64(b[i+8:])
				if (x|y)&0xFF80FF80FF80FF80 != 0 { // not ASCII
					break
				}
				// The low bytes of the eight units (their high
				// bytes are zero), packed.
				p := uint64(pack4(x)) | uint64(pack4(y))<<32
				if !plain8(p, esc) {
					break
				}
				binary.LittleEndian.PutUint64(out[n:], p)
				n += 8
			}
			if i+8 <= len(b) {
				x := binary.LittleEndian.Uint64(b[i:])
				// Four, the other four bytes plain ('A').
				if p := pack4(x); x&0xFF80FF80FF80FF80 == 0 && plain8(uint64(p)|0x4141414100000000, esc) {
					binary.LittleEndian.PutUint32(out[n:], p)
					n += 4
					i += 8
				}
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
			switch {
			case esc == wideText:
				dst = append(dst, byte(c))
			case esc == wideMsg && (c == '<' || c == '>' || c == '&'):
				dst = append(dst, '\\', 'u', '0', '0', lowerHex[c>>4], lowerHex[c&15])
			default:
				dst = appendJSONByte(dst, byte(c))
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
		if esc == wideMsg && (r == '\u2028' || r == '\u2029') {
			dst = append(dst, '\\', 'u', '2', '0', '2', lowerHex[r&15])
			continue
		}
		dst = utf8.AppendRune(dst, r)
	}
	return dst
}

// pack4 returns the low bytes of the four UTF-16 code units of x,
// packed.
func pack4(x uint64) uint32 {
	x = (x | x>>8) & 0x0000FFFF0000FFFF
	return uint32(x | x>>16)
}

// plain8 reports whether the eight ASCII bytes of p are plain for esc
// (widePlain): but NUL for text; printable but the quote and the
// backslash for JSON, and but <, > and & too for the message. Below 0x80,
// adding 0x60 to a byte sets its top bit from 0x20 up, and adding 0x7F
// from 1 up, with no carry into the next byte.
func plain8(p uint64, esc wideEscape) bool {
	const ones, tops = 0x0101010101010101, 0x8080808080808080
	var t uint64
	switch esc {
	case wideText:
		t = p + 0x7F*ones
	case wideJSON:
		t = (p + 0x60*ones) & ((p ^ '"'*ones) + 0x7F*ones) & ((p ^ '\\'*ones) + 0x7F*ones)
	default:
		t = (p + 0x60*ones) & ((p ^ '\\'*ones) + 0x7F*ones) &
			(((p | 4*ones) ^ '&'*ones) + 0x7F*ones) & // " or &
			(((p | 2*ones) ^ '>'*ones) + 0x7F*ones) // < or >
	}
	return t&tops == tops
}
