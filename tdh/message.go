package tdh

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/etwkit/etw/internal/decimal"
)

// Message-string expansion the way FormatMessage does it for event
// messages (decoding.md §1.8).
//
// Choices where the documentation is silent [?]:
//   - Inserts are the AppendText texts of the top-level properties (as
//     EventTraceKit passes TdhFormatProperty strings), so a mapped value
//     inserts its map text; but an integer conversion in %n!fmt! (d, i, u,
//     x, X, o, c, p) re-formats the property's integer value itself.
//   - An insert number above the number of top-level properties is left in
//     the output as written, including its !fmt! part (FormatMessage would
//     fail instead).
//   - %n is CR LF, as FormatMessage writes it; a lone "%" at the end of
//     the message is kept.
//   - "%%" followed by digits is a parameter insert (%%1936, resolved by
//     the Event Log from a parameter message file) and is kept as written;
//     any other "%%" is one "%".
//   - Floating-point conversions (e, f, g, a), which FormatMessage does
//     not support, and unknown conversions insert the property text.
//   - Length modifiers: none, l, I32 = 32 bits; h = 16; hh = 8; ll, L, q,
//     j, I64 = 64; I, z, t = the event's pointer size; w is ignored.
//   - A width or precision above maxFormatWidth is clamped to it.

// maxFormatWidth bounds the field width and precision of %n!fmt! inserts.
const maxFormatWidth = 1024

// FormatMessage expands msg's %1..%99 inserts with the text ([AppendText])
// of the top-level properties of d (1-based) and applies FormatMessage
// escapes: %0 (end), %% (percent), %n (CR LF), %r (CR), %t (tab),
// %space, %. and %!; any other %x is x. An insert may carry a printf-style
// format, %n!fmt!, e.g. %1!s!, %2!08X!, %3!I64u!, %4!-10S!. Parameter
// inserts %%N are left as they are.
func FormatMessage(msg string, d *Decoded, o *RenderOptions) string {
	return string(AppendMessage(nil, msg, d, o))
}

// AppendMessage appends the expansion of msg (see [FormatMessage]) to dst:
// with a reused dst it allocates nothing. The expansion is bounded by
// [MaxMessageBytes]: a message that would be longer (an insert repeated
// many times, long inserts) is cut at a character boundary and ends with
// [TruncatedMarker].
func AppendMessage(dst []byte, msg string, d *Decoded, o *RenderOptions) []byte {
	return appendMessage(dst, msg, d, o, nil)
}

// appendMessage is AppendMessage, with the pieces of msg and the inserts
// from plan pl when it is not nil (msg is then its schema's message).
func appendMessage(dst []byte, msg string, d *Decoded, o *RenderOptions, pl *JSONPlan) []byte {
	var top []Value
	if d != nil && d.Schema != nil && len(d.Values) >= len(d.Schema.Properties) {
		top = d.Top()
	}
	mine := pl.mine(d)
	out := dst
	limit := len(dst) + MaxMessageBytes
	for i, k := 0, 0; (pl == nil && i < len(msg)) || (pl != nil && k < len(pl.msg)); {
		if len(out) >= limit {
			return cutMessage(out, limit)
		}
		var m *msgPiece // the plan's, not copied
		if pl != nil {
			m = &pl.msg[k]
			k++
		} else {
			var next msgPiece
			next, i = nextPiece(msg, i)
			m = &next
		}
		switch {
		case m.end:
			return out
		case m.n == 0 || m.n > len(top):
			out = append(out, m.text...)
		case mine:
			out = pl.appendInsert(out, d, m, &top[m.n-1], limit)
		default:
			out = appendInsert(out, d, &top[m.n-1], m.spec, o, limit)
		}
	}
	if len(out) > limit {
		return cutMessage(out, limit)
	}
	return out
}

// msgPiece is one piece of a message: literal text, an insert or the end
// (%0). AppendMessage checks its bound before each piece.
type msgPiece struct {
	text string // literal text; for an insert, the insert as written
	n    int    // insert number (1-based); 0: literal
	spec string // the insert's !fmt!, without the marks
	end  bool   // %0: the expansion ends here
}

// nextPiece returns the piece of msg at i (i < len(msg)) and the index
// after it.
func nextPiece(msg string, i int) (msgPiece, int) {
	if c := msg[i]; c != '%' {
		j := strings.IndexByte(msg[i:], '%')
		if j < 0 {
			j = len(msg) - i
		}
		return msgPiece{text: msg[i : i+j]}, i + j
	}
	if i+1 == len(msg) {
		return msgPiece{text: "%"}, i + 1
	}
	switch c := msg[i+1]; {
	case c == '0':
		return msgPiece{end: true}, len(msg)
	case c >= '1' && c <= '9':
		n, j := int(c-'0'), i+2
		if j < len(msg) && isDigit(msg[j]) {
			n = n*10 + int(msg[j]-'0')
			j++
		}
		spec, k := "", j
		if j < len(msg) && msg[j] == '!' {
			if e := strings.IndexByte(msg[j+1:], '!'); e >= 0 {
				spec, k = msg[j+1:j+1+e], j+2+e
			}
		}
		return msgPiece{text: msg[i:k], n: n, spec: spec}, k
	case c == '%':
		j := i + 2
		for j < len(msg) && isDigit(msg[j]) {
			j++
		}
		if j > i+2 {
			return msgPiece{text: msg[i:j]}, j // a parameter insert, kept
		}
		return msgPiece{text: "%"}, j
	case c == 'n':
		return msgPiece{text: "\r\n"}, i + 2
	case c == 'r':
		return msgPiece{text: "\r"}, i + 2
	case c == 't':
		return msgPiece{text: "\t"}, i + 2
	}
	// %space, %., %! and any other %x give x.
	_, size := utf8.DecodeRuneInString(msg[i+1:])
	return msgPiece{text: msg[i+1 : i+1+size]}, i + 1 + size
}

// cutMessage cuts an expansion that reached limit at a character boundary
// at or before it and appends [TruncatedMarker].
func cutMessage(out []byte, limit int) []byte {
	cut := min(limit, len(out))
	for cut > 0 && cut < len(out) && !utf8.RuneStart(out[cut]) {
		cut--
	}
	return append(out[:cut], TruncatedMarker...)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// printfSpec is a parsed %n!fmt! format.
type printfSpec struct {
	flags      string // of "-+ #0"
	width      int    // -1 if none
	prec       int    // -1 if none
	bits       int    // integer size from the length modifier
	conversion byte
}

// parsePrintf parses a FormatMessage insert format such as "-08I64X"; ok
// is false for anything it does not understand.
func parsePrintf(s string, ptrSize int) (f printfSpec, ok bool) {
	f.width, f.prec, f.bits = -1, -1, 32
	i := 0
	for i < len(s) && strings.IndexByte("-+ #0", s[i]) >= 0 {
		if strings.IndexByte(f.flags, s[i]) < 0 {
			f.flags += s[i : i+1]
		}
		i++
	}
	num := func() int {
		n := -1
		for i < len(s) && isDigit(s[i]) {
			if n < 0 {
				n = 0
			}
			n = min(n*10+int(s[i]-'0'), maxFormatWidth)
			i++
		}
		return n
	}
	f.width = num()
	if i < len(s) && s[i] == '.' {
		i++
		if f.prec = num(); f.prec < 0 {
			f.prec = 0
		}
	}
	rest := s[i:]
	for _, m := range []struct {
		prefix string
		bits   int
	}{{"I64", 64}, {"I32", 32}, {"hh", 8}, {"ll", 64}, {"h", 16}, {"l", 32}, {"L", 64}, {"q", 64}, {"j", 64},
		{"I", ptrSize * 8}, {"z", ptrSize * 8}, {"t", ptrSize * 8}, {"w", 32}} {
		if strings.HasPrefix(rest, m.prefix) {
			f.bits, rest = m.bits, rest[len(m.prefix):]
			break
		}
	}
	if len(rest) != 1 {
		return f, false
	}
	f.conversion = rest[0]
	return f, true
}

// textSpec reports whether an insert's !fmt! spec (without the marks)
// asks for the value's text as it is: none, or a string conversion.
func textSpec(spec string) bool {
	return spec == "" || spec == "s" || spec == "S" || spec == "ws" || spec == "ls"
}

// appendInsert appends the value of one insert formatted by spec; limit
// bounds the text of arrays and structs (see [AppendTextLimit]).
func appendInsert(dst []byte, d *Decoded, v *Value, spec string, o *RenderOptions, limit int) []byte {
	if textSpec(spec) {
		dst, _ = AppendTextLimit(dst, d, v, o, limit)
		return dst
	}
	ptrSize := 8
	if d != nil && d.PointerSize == 4 {
		ptrSize = 4
	}
	f, ok := parsePrintf(spec, ptrSize)
	if !ok {
		dst, _ = AppendTextLimit(dst, d, v, o, limit)
		return dst
	}
	var n uint64
	isInt := false
	if v.Prop != nil && v.Kind == Scalar {
		if n, isInt = intValue(v); isInt && v.Prop.InType.IsSigned() {
			i, _ := v.Int()
			n = uint64(i) // sign-extended, so that %I64d of an Int32 keeps its sign
		}
	}
	switch f.conversion {
	case 'd', 'i', 'u', 'x', 'X', 'o', 'c', 'C', 'p':
		if isInt {
			return appendPrintfInt(dst, f, n, ptrSize)
		}
	}
	// Strings, floating-point and anything not an integer: the text, with
	// the precision as a maximum length and the width as a minimum.
	start := len(dst)
	dst, _ = AppendTextLimit(dst, d, v, o, limit)
	if f.prec >= 0 {
		cut, runes := start, 0
		for cut < len(dst) && runes < f.prec {
			_, size := utf8.DecodeRune(dst[cut:])
			cut += size
			runes++
		}
		dst = dst[:cut]
	}
	if f.width > 0 {
		pad := f.width - utf8.RuneCount(dst[start:])
		if pad > 0 {
			if strings.IndexByte(f.flags, '-') >= 0 {
				for ; pad > 0; pad-- {
					dst = append(dst, ' ')
				}
			} else {
				end := len(dst)
				for k := 0; k < pad; k++ {
					dst = append(dst, ' ')
				}
				copy(dst[start+pad:], dst[start:end])
				for k := start; k < start+pad; k++ {
					dst[k] = ' '
				}
			}
		}
	}
	return dst
}

// unsignedFlags drops the sign flags, which C ignores for unsigned
// conversions.
var unsignedFlags = strings.NewReplacer("+", "", " ", "")

// appendUpperHex appends v in upper-case hex without prefix or padding.
func appendUpperHex(dst []byte, v uint64) []byte {
	start := len(dst)
	dst = strconv.AppendUint(dst, v, 16)
	for i := start; i < len(dst); i++ {
		if c := dst[i]; c >= 'a' && c <= 'f' {
			dst[i] = c - 'a' + 'A'
		}
	}
	return dst
}

// appendPrintfInt formats integer n (sign-extended if signed) like the C
// runtime's printf.
func appendPrintfInt(dst []byte, f printfSpec, n uint64, ptrSize int) []byte {
	mask := ^uint64(0)
	if f.bits < 64 {
		mask = 1<<f.bits - 1
	}
	u := n & mask
	var arg any
	verb := f.conversion
	flags := f.flags
	switch verb {
	case 'd', 'i':
		s := int64(u)
		if f.bits < 64 && u&(1<<(f.bits-1)) != 0 {
			s = int64(u | ^mask)
		}
		arg, verb = s, 'd'
	case 'u':
		arg, verb = u, 'd'
		flags = unsignedFlags.Replace(flags)
	case 'x', 'X', 'o':
		arg = u
		flags = unsignedFlags.Replace(flags)
		if u == 0 {
			flags = strings.ReplaceAll(flags, "#", "") // C prints plain 0
		}
	case 'c', 'C':
		if u == 0 {
			return dst
		}
		r := rune(u)
		if !utf8.ValidRune(r) {
			r = utf8.RuneError
		}
		return utf8.AppendRune(dst, r)
	case 'p': // MSVC: upper-case hex, zero-padded to the pointer width
		return fmt.Appendf(dst, "%0*X", 2*ptrSize, n&(^uint64(0)>>(64-8*ptrSize)))
	}
	if flags == "" && f.width < 0 && f.prec < 0 {
		// The common inserts (%1!d!, %2!u!, %3!I64x!…) need no fmt.
		switch v := arg.(type) {
		case int64:
			return decimal.AppendInt(dst, v)
		case uint64:
			switch verb {
			case 'd':
				return decimal.AppendUint(dst, v)
			case 'x':
				return strconv.AppendUint(dst, v, 16)
			case 'X':
				return appendUpperHex(dst, v)
			}
		}
	}
	format := "%" + flags
	if f.width >= 0 {
		format += fmt.Sprint(f.width)
	}
	if f.prec >= 0 {
		format += "." + fmt.Sprint(f.prec)
	}
	return fmt.Appendf(dst, format+string(verb), arg)
}
