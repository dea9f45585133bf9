package tracerpt

import (
	"encoding/binary"
	"math/bits"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/etwkit/etw/internal/decimal"
)

// Small allocation-free appenders shared by the encoders.

const upperHex = "0123456789ABCDEF"

// appendUpperHexBytes appends b as upper-case hex without a prefix.
func appendUpperHexBytes(dst, b []byte) []byte {
	for _, c := range b {
		dst = append(dst, upperHex[c>>4], upperHex[c&15])
	}
	return dst
}

// appendHex0x appends n as "0x" + upper-case hex, unpadded.
func appendHex0x(b []byte, n uint64) []byte {
	b = append(b, '0', 'x')
	return appendUpperHex(b, n, 1)
}

// appendUpperHex appends n in upper-case hex with at least width digits.
func appendUpperHex(b []byte, n uint64, width int) []byte {
	w := max((bits.Len64(n)+3)/4, width, 1)
	start := len(b)
	b = slices.Grow(b, w)[:start+w]
	i := start + w // the digits before i are to write
	for ; i-start >= 8; i -= 8 {
		binary.LittleEndian.PutUint64(b[i-8:i], hex8(uint32(n)))
		n >>= 32
	}
	for h := hex8(uint32(n)); i > start; h <<= 8 { // the last digits of h
		i--
		b[i] = byte(h >> 56)
	}
	return b
}

// hex8 returns the eight upper-case hex digits of n as a little-endian
// word (the first digit in the low byte): the nibbles spread one to a
// byte, in reverse, then '0' added to each and 7 more to those above 9.
func hex8(n uint32) uint64 {
	x := uint64(n)
	x = (x | x<<16) & 0x0000FFFF0000FFFF
	x = (x | x<<8) & 0x00FF00FF00FF00FF
	x = (x | x<<4) & 0x0F0F0F0F0F0F0F0F // nibble k in byte k
	x = bits.ReverseBytes64(x)
	letters := (x + 0x0606060606060606) >> 4 & 0x0101010101010101 // 1 in the bytes above 9
	return x + 0x3030303030303030 + letters*7
}

// spaces is a run of blanks the right-aligned fields are padded from.
const spaces = "                                " // 32

// appendSpaces appends n blanks.
func appendSpaces(b []byte, n int) []byte {
	for ; n > len(spaces); n -= len(spaces) {
		b = append(b, spaces...)
	}
	return append(b, spaces[:max(n, 0)]...)
}

// appendUintRight appends n right-aligned in width characters.
func appendUintRight(b []byte, n uint64, width int) []byte {
	if pad := width - decimal.Width(n); pad > 0 {
		b = appendSpaces(b, pad)
	}
	return decimal.AppendUint(b, n)
}

// isASCII reports whether b holds only bytes below 0x80, 32 and then
// eight at a time.
func isASCII(b []byte) bool {
	for len(b) >= 32 { // four words, one test
		le := binary.LittleEndian
		if (le.Uint64(b)|le.Uint64(b[8:])|le.Uint64(b[16:])|le.Uint64(b[24:]))&0x8080808080808080 != 0 {
			return false
		}
		b = b[32:]
	}
	for len(b) >= 8 {
		if binary.LittleEndian.Uint64(b)&0x8080808080808080 != 0 {
			return false
		}
		b = b[8:]
	}
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

// padRightFrom pads b with spaces so that b[start:] is at least width
// bytes long (left alignment).
func padRightFrom(b []byte, start, width int) []byte {
	for i := len(b) - start; i < width; i++ {
		b = append(b, ' ')
	}
	return b
}

// rightAlignFrom right-aligns b[start:] in width characters by inserting
// spaces before it.
func rightAlignFrom(b []byte, start, width int) []byte {
	n := len(b) - start
	if n >= width {
		return b
	}
	pad := width - n
	b = appendSpaces(b, pad)
	copy(b[start+pad:], b[start:start+n])
	copy(b[start:start+pad], spaces[:min(pad, len(spaces))])
	for i := start + len(spaces); i < start+pad; i++ {
		b[i] = ' '
	}
	return b
}

// appendDigits appends n zero-padded to width digits.
func appendDigits(b []byte, n, width int) []byte {
	if n < 0 {
		var buf [21]byte
		s := strconv.AppendInt(buf[:0], int64(n), 10)
		for i := len(s); i < width; i++ {
			b = append(b, '0')
		}
		return append(b, s...)
	}
	return decimal.AppendUintWidth(b, uint64(n), width)
}

// xmlPlain marks the bytes that xmlPlainLen's runs hold, in character
// data ([0]) and in attribute values ([1]): printable ASCII but for &, <
// and > (and " in attributes). Tab and LF, which character data keeps
// too, end a run: appendXMLEscaped copies them one at a time, so that
// after a message's CR LF the run goes on eight bytes at a time.
var xmlPlain = func() (t [2][256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		plain := c != '&' && c != '<' && c != '>'
		t[0][c] = plain
		t[1][c] = plain && c != '"'
	}
	return t
}()

// xmlPlainLen returns the length of the leading run of s that
// appendXMLEscaped copies as it is (xmlPlain's bytes): eight bytes at a
// time while they are printable ASCII other than &, <, > (and " in
// attributes), then byte by byte up to the first other one.
func xmlPlainLen[S ~string | ~[]byte](s S, attr bool) int {
	i := 0
	if attr {
		for ; i+8 <= len(s); i += 8 {
			if !xmlPlain8(load8(s[i:i+8]), true) {
				break
			}
		}
	} else {
		for ; i+8 <= len(s); i += 8 {
			if !xmlPlain8(load8(s[i:i+8]), false) {
				break
			}
		}
	}
	plain := &xmlPlain[btoi(attr)]
	for i < len(s) && plain[s[i]] {
		i++
	}
	return i
}

// load8 returns the eight bytes of s (len(s) == 8) as a little-endian
// word.
func load8[S ~string | ~[]byte](s S) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// xmlPlain8 reports whether the eight bytes of x are all printable ASCII
// (0x20 to 0x7F) other than &, < and > (and " with attr). Below 0x80,
// adding 0x60 to a byte sets its top bit from 0x20 up, and adding 0x7F
// from 1 up, with no carry into the next byte: a byte XORed with a
// character is zero, and keeps its top bit clear, where it was that
// character. x|2 is '>' for both < and >, x|4 is '&' for both " and &.
func xmlPlain8(x uint64, attr bool) bool {
	const ones, tops = 0x0101010101010101, 0x8080808080808080
	t := (x + 0x60*ones) & (((x | 2*ones) ^ '>'*ones) + 0x7F*ones)
	if attr {
		t &= ((x | 4*ones) ^ '&'*ones) + 0x7F*ones
	} else {
		t &= (x ^ '&'*ones) + 0x7F*ones
	}
	return x&tops == 0 && t&tops == tops
}

// appendXMLEscaped appends s as XML character data (or an attribute value
// when attr is set): &, <, > (and ") as entities, every non-ASCII
// character as a decimal character reference, as tracerpt writes its
// ASCII files. Tab and LF pass through in character data and become
// &#9; and &#10; in attribute values, where attribute-value normalisation
// would turn them into spaces; CR becomes &#13; so that it survives XML
// line-end normalisation; other C0 controls, U+FFFE and U+FFFF, which
// XML 1.0 cannot carry, and invalid UTF-8 become U+FFFD (&#65533;).
func appendXMLEscaped[S string | []byte](dst []byte, s S, attr bool) []byte {
	for i := 0; i < len(s); {
		j := i + xmlPlainLen(s[i:], attr)
		if j > i {
			dst = append(dst, s[i:j]...)
			if i = j; i == len(s) {
				break
			}
		}
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			switch {
			case c == '&':
				dst = append(dst, "&amp;"...)
			case c == '<':
				dst = append(dst, "&lt;"...)
			case c == '>':
				dst = append(dst, "&gt;"...)
			case c == '"' && attr:
				dst = append(dst, "&quot;"...)
			case c == '\t' || c == '\n':
				if attr {
					dst = appendCharRef(dst, rune(c))
				} else {
					dst = append(dst, c)
				}
			case c == '\r':
				dst = append(dst, "&#13;"...)
			case c < 0x20:
				dst = append(dst, "&#65533;"...)
			default:
				dst = append(dst, c)
			}
			continue
		}
		var r rune
		var n int
		switch v := any(s[i:]).(type) {
		case string:
			r, n = utf8.DecodeRuneInString(v)
		case []byte:
			r, n = utf8.DecodeRune(v)
		}
		i += n
		if r == 0xFFFE || r == 0xFFFF { // not XML characters, even as references
			r = utf8.RuneError
		}
		dst = appendCharRef(dst, r)
	}
	return dst
}

// appendXMLText appends s escaped as XML character data.
func appendXMLText(dst []byte, s string) []byte { return appendXMLString(dst, s, false) }

// appendXMLAttr appends s escaped as an XML attribute value.
func appendXMLAttr(dst []byte, s string) []byte { return appendXMLString(dst, s, true) }

// appendXMLString appends s escaped (appendXMLEscaped), its leading
// plain run copied at once.
func appendXMLString(dst []byte, s string, attr bool) []byte {
	n := xmlPlainLen(s, attr)
	dst = append(dst, s[:n]...)
	if n == len(s) {
		return dst
	}
	return appendXMLEscaped(dst, s[n:], attr)
}

// escapeXMLFrom escapes dst[start:] in place (through scratch) when it
// needs it, and returns dst and the scratch buffer for reuse.
func escapeXMLFrom(dst []byte, start int, scratch []byte) ([]byte, []byte) {
	n := xmlPlainLen(dst[start:], false)
	if start += n; start == len(dst) {
		return dst, scratch
	}
	scratch = append(scratch[:0], dst[start:]...)
	return appendXMLEscaped(dst[:start], scratch, false), scratch
}

func appendCharRef(dst []byte, r rune) []byte {
	dst = append(dst, '&', '#')
	dst = strconv.AppendInt(dst, int64(r), 10)
	return append(dst, ';')
}

func btoi(v bool) int {
	if v {
		return 1
	}
	return 0
}
