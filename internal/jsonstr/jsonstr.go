// Package jsonstr escapes strings for JSON exactly as encoding/json does
// (the dumps' own strings: names, messages, errors, frames; package
// eventjson's AppendString), for the packages that write such strings in
// pieces: tdh renders a message's pieces straight into the JSON string.
package jsonstr

import (
	"encoding/binary"
	"unicode/utf8"
)

const lowerHex = "0123456789abcdef"

// safe marks the bytes Escape copies as they are: printable ASCII but for
// the quote, the backslash and the HTML-sensitive <, >, &.
var safe = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// Append appends s as a JSON string exactly as encoding/json writes it:
// <, > and & as \u003c, \u003e, \u0026; \b \f \n \r \t and other control
// characters as escapes; invalid UTF-8 as \ufffd; U+2028 and U+2029
// escaped.
func Append[S ~string | ~[]byte](dst []byte, s S) []byte {
	dst, _ = Escape(append(dst, '"'), s)
	return append(dst, '"')
}

// Escape appends the inside of Append's string for s, without the
// quotes, and reports whether s is valid UTF-8. A string escaped in
// pieces gives Append's bytes when every piece is valid UTF-8 (pieces
// then end at character boundaries); an invalid piece may not, as
// its incomplete character could have been completed by the next one.
func Escape[S ~string | ~[]byte](dst []byte, s S) ([]byte, bool) {
	start, valid := 0, true
	for i := 0; i < len(s); {
		for i < len(s) && safe[s[i]] {
			i++
		}
		if i == len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf { // a control character or one of "\<>& (safe)
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', lowerHex[c>>4], lowerHex[c&15])
			}
			i++
			start = i
			continue
		}
		var r rune
		var n int
		switch v := any(s).(type) {
		case string:
			r, n = utf8.DecodeRuneInString(v[i:])
		case []byte:
			r, n = utf8.DecodeRune(v[i:])
		default:
			r, n = utf8.DecodeRuneInString(string(s[i:]))
		}
		if r == utf8.RuneError && n == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += n
			start = i
			valid = false
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', lowerHex[r&15])
			i += n
			start = i
			continue
		}
		i += n
	}
	return append(dst, s[start:]...), valid
}

// SafeLen returns the length of the leading run of b that Escape copies
// as it is (printable ASCII but for the quote, the backslash and <, >,
// &), eight bytes at a time while it lasts: a renderer that writes text
// straight into a JSON string escapes it from there on only.
func SafeLen(b []byte) int {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		if !safe8(binary.LittleEndian.Uint64(b[i:])) {
			break
		}
	}
	for i < len(b) && safe[b[i]] {
		i++
	}
	return i
}

// safe8 reports whether the eight bytes of x are all safe. Below 0x80,
// adding 0x60 to a byte sets its top bit from 0x20 up, and adding 0x7F
// from 1 up, with no carry into the next byte.
func safe8(x uint64) bool {
	const ones, tops = 0x0101010101010101, 0x8080808080808080
	t := (x + 0x60*ones) & ((x ^ '\\'*ones) + 0x7F*ones) &
		(((x | 4*ones) ^ '&'*ones) + 0x7F*ones) & // " or &
		(((x | 2*ones) ^ '>'*ones) + 0x7F*ones) // < or >
	return x&tops == 0 && t&tops == tops
}
