package mof

import (
	"bytes"
	"encoding/binary"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// decodeText turns the bytes of a MOF file into text: UTF-8 (with or
// without a byte order mark) or UTF-16 little- or big-endian (with a byte
// order mark, or recognised by its NUL bytes when it has none, as mofcomp
// writes and reads). Invalid UTF-8 bytes are taken as Windows-1252.
func decodeText(b []byte) string {
	switch {
	case bytes.HasPrefix(b, []byte{0xEF, 0xBB, 0xBF}):
		b = b[3:]
	case bytes.HasPrefix(b, []byte{0xFF, 0xFE}):
		return utf16Text(b[2:], binary.LittleEndian)
	case bytes.HasPrefix(b, []byte{0xFE, 0xFF}):
		return utf16Text(b[2:], binary.BigEndian)
	case len(b) >= 4 && b[0] != 0 && b[1] == 0 && b[2] != 0 && b[3] == 0:
		return utf16Text(b, binary.LittleEndian)
	case len(b) >= 4 && b[0] == 0 && b[1] != 0 && b[2] == 0 && b[3] != 0:
		return utf16Text(b, binary.BigEndian)
	}
	if utf8.Valid(b) {
		return string(b)
	}
	var sb strings.Builder
	sb.Grow(len(b))
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n == 1 {
			r = cp1252(b[0])
		}
		sb.WriteRune(r)
		b = b[n:]
	}
	return sb.String()
}

func utf16Text(b []byte, order binary.ByteOrder) string {
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = order.Uint16(b[2*i:])
	}
	return string(utf16.Decode(u))
}

// cp1252 maps a Windows-1252 byte to its rune (undefined bytes map to the
// C1 control of the same value).
func cp1252(c byte) rune {
	if c < 0x80 || c >= 0xA0 {
		return rune(c)
	}
	return [32]rune{
		0x20AC, 0x81, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x8D, 0x017D, 0x8F,
		0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x9D, 0x017E, 0x0178,
	}[c-0x80]
}

type tokKind uint8

const (
	tEOF    tokKind = iota
	tIdent          // names and keywords (class, ref, true, …), $alias
	tInt            // integer literal (sign handled by the parser)
	tReal           // real literal
	tString         // "…" (unescaped)
	tChar           // '…' (unescaped)
	tPunct          // one of [](){};:,=
	tPragma         // a whole #pragma line (text after "#pragma")
)

type token struct {
	kind tokKind
	text string // identifier, literal text, unescaped string, punctuation
	line int
	col  int
}

// lexer splits MOF text into tokens. Comments, white space and
// backslash-newline continuations are skipped.
type lexer struct {
	src  string
	pos  int
	line int
	col  int // 1-based column of pos
}

func newLexer(src string) *lexer { return &lexer{src: src, line: 1, col: 1} }

func (l *lexer) advance(n int) {
	for i := 0; i < n && l.pos < len(l.src); i++ {
		if l.src[l.pos] == '\n' {
			l.line++
			l.col = 1
		} else {
			l.col++
		}
		l.pos++
	}
}

func (l *lexer) peekByte(off int) byte {
	if l.pos+off < len(l.src) {
		return l.src[l.pos+off]
	}
	return 0
}

// skipSpace skips white space, comments and line continuations; it
// reports an unterminated block comment.
func (l *lexer) skipSpace() *lexError {
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v' || c == 0:
			l.advance(1)
		case c == '\\' && (l.peekByte(1) == '\n' || (l.peekByte(1) == '\r' && l.peekByte(2) == '\n')):
			l.advance(1)
		case c == '/' && l.peekByte(1) == '/':
			for l.pos < len(l.src) && l.src[l.pos] != '\n' {
				l.advance(1)
			}
		case c == '/' && l.peekByte(1) == '*':
			line, col := l.line, l.col
			end := strings.Index(l.src[l.pos+2:], "*/")
			if end < 0 {
				return &lexError{line, col, "unterminated /* comment"}
			}
			l.advance(end + 4)
		case c >= utf8.RuneSelf:
			// Non-breaking and other Unicode spaces show up in
			// hand-edited files.
			r, n := utf8.DecodeRuneInString(l.src[l.pos:])
			if r == 0xFEFF || r == 0xA0 || r == 0x2028 || r == 0x2029 || (r >= 0x2000 && r <= 0x200B) || r == 0x3000 {
				l.pos += n
				l.col++
				continue
			}
			return nil
		default:
			return nil
		}
	}
	return nil
}

type lexError struct {
	line, col int
	msg       string
}

func isIdentStart(c byte) bool {
	return c == '_' || c == '$' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= utf8.RuneSelf
}

func isIdentByte(c byte) bool {
	return isIdentStart(c) || (c >= '0' && c <= '9')
}

// next returns the next token.
func (l *lexer) next() (token, *lexError) {
	if err := l.skipSpace(); err != nil {
		return token{}, err
	}
	if l.pos >= len(l.src) {
		return token{kind: tEOF, line: l.line, col: l.col}, nil
	}
	line, col := l.line, l.col
	c := l.src[l.pos]
	switch {
	case c == '#':
		return l.pragma(line, col)
	case c == '"' || c == '\'':
		s, err := l.quoted(c)
		if err != nil {
			return token{}, err
		}
		k := tString
		if c == '\'' {
			k = tChar
		}
		return token{kind: k, text: s, line: line, col: col}, nil
	case c >= '0' && c <= '9' || (c == '.' && l.peekByte(1) >= '0' && l.peekByte(1) <= '9'):
		return l.number(line, col), nil
	case isIdentStart(c):
		start := l.pos
		for l.pos < len(l.src) && isIdentByte(l.src[l.pos]) {
			if l.src[l.pos] >= utf8.RuneSelf {
				_, n := utf8.DecodeRuneInString(l.src[l.pos:])
				l.pos += n
				l.col++
				continue
			}
			l.advance(1)
		}
		return token{kind: tIdent, text: l.src[start:l.pos], line: line, col: col}, nil
	case strings.IndexByte("[](){};:,=+-.", c) >= 0:
		l.advance(1)
		return token{kind: tPunct, text: string(c), line: line, col: col}, nil
	}
	r, _ := utf8.DecodeRuneInString(l.src[l.pos:])
	return token{}, &lexError{line, col, "unexpected character " + strconvQuoteRune(r)}
}

func strconvQuoteRune(r rune) string {
	if r < 0x20 || r == 0x7F {
		return "U+" + strings.ToUpper(strconvHex(uint64(r)))
	}
	return "'" + string(r) + "'"
}

func strconvHex(n uint64) string {
	const digits = "0123456789abcdef"
	var b [16]byte
	i := len(b)
	for {
		i--
		b[i] = digits[n&15]
		n >>= 4
		if n == 0 {
			break
		}
	}
	return string(b[i:])
}

// number reads an integer (decimal, 0x hexadecimal, binary with a b
// suffix is not used by WMI files) or a real literal.
func (l *lexer) number(line, col int) token {
	start := l.pos
	if l.src[l.pos] == '0' && (l.peekByte(1) == 'x' || l.peekByte(1) == 'X') {
		l.advance(2)
		for l.pos < len(l.src) && isHex(l.src[l.pos]) {
			l.advance(1)
		}
		return token{kind: tInt, text: l.src[start:l.pos], line: line, col: col}
	}
	real := false
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		switch {
		case c >= '0' && c <= '9':
		case c == '.' && !real:
			real = true
		case (c == 'e' || c == 'E') && l.pos > start:
			real = true
			if n := l.peekByte(1); n == '+' || n == '-' {
				l.advance(1)
			}
		default:
			k := tInt
			if real {
				k = tReal
			}
			return token{kind: k, text: l.src[start:l.pos], line: line, col: col}
		}
		l.advance(1)
	}
	k := tInt
	if real {
		k = tReal
	}
	return token{kind: k, text: l.src[start:l.pos], line: line, col: col}
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// quoted reads a string or character literal, unescaping \\ \" \' \n \t
// \r \b \f \0, \xHHHH and \ followed by a newline (a continuation).
func (l *lexer) quoted(q byte) (string, *lexError) {
	line, col := l.line, l.col
	l.advance(1)
	var sb strings.Builder
	for {
		if l.pos >= len(l.src) {
			return "", &lexError{line, col, "unterminated string"}
		}
		c := l.src[l.pos]
		switch c {
		case q:
			l.advance(1)
			return sb.String(), nil
		case '\n':
			return "", &lexError{line, col, "string not terminated before the end of the line"}
		case '\\':
			if l.pos+1 >= len(l.src) {
				return "", &lexError{line, col, "unterminated string"}
			}
			e := l.src[l.pos+1]
			l.advance(2)
			switch e {
			case 'n':
				sb.WriteByte('\n')
			case 't':
				sb.WriteByte('\t')
			case 'r':
				sb.WriteByte('\r')
			case 'b':
				sb.WriteByte('\b')
			case 'f':
				sb.WriteByte('\f')
			case '0':
				sb.WriteByte(0)
			case '\n':
				// continuation
			case '\r':
				if l.peekByte(0) == '\n' {
					l.advance(1)
				}
			case 'x', 'X':
				var n uint64
				digits := 0
				for digits < 4 && l.pos < len(l.src) && isHex(l.src[l.pos]) {
					n = n<<4 | uint64(hexVal(l.src[l.pos]))
					l.advance(1)
					digits++
				}
				if digits == 0 {
					sb.WriteByte(e)
				} else {
					sb.WriteRune(rune(n))
				}
			default:
				sb.WriteByte(e)
			}
		default:
			sb.WriteByte(c)
			l.advance(1)
		}
	}
}

func hexVal(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

// pragma reads a preprocessor line ("#pragma …", or any other # line,
// which is returned with its directive name) up to the end of the line,
// joining backslash-newline continuations. Comments at the end of the
// line are dropped.
func (l *lexer) pragma(line, col int) (token, *lexError) {
	var sb strings.Builder
	l.advance(1)
	inStr := false
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		if c == '\\' && (l.peekByte(1) == '\n' || (l.peekByte(1) == '\r' && l.peekByte(2) == '\n')) && !inStr {
			l.advance(1)
			if l.src[l.pos] == '\r' {
				l.advance(1)
			}
			l.advance(1)
			sb.WriteByte(' ')
			continue
		}
		if c == '\n' {
			break
		}
		if !inStr && c == '/' && l.peekByte(1) == '/' {
			for l.pos < len(l.src) && l.src[l.pos] != '\n' {
				l.advance(1)
			}
			break
		}
		if !inStr && c == '/' && l.peekByte(1) == '*' {
			end := strings.Index(l.src[l.pos+2:], "*/")
			if end < 0 {
				return token{}, &lexError{l.line, l.col, "unterminated /* comment"}
			}
			l.advance(end + 4)
			sb.WriteByte(' ')
			continue
		}
		if c == '"' {
			inStr = !inStr
		} else if c == '\\' && inStr && l.pos+1 < len(l.src) && l.src[l.pos+1] != '\n' {
			sb.WriteByte(c)
			l.advance(1)
			c = l.src[l.pos]
		}
		sb.WriteByte(c)
		l.advance(1)
	}
	return token{kind: tPragma, text: strings.TrimSpace(strings.TrimRight(sb.String(), "\r")), line: line, col: col}, nil
}
