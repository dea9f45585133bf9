package tracerpt

import (
	"encoding/xml"
	"io"
	"math/rand"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// The rules the XML writers keep, from XML 1.0 (Fifth Edition):
//
//   - §2.2: a document holds only #x9 | #xA | #xD | [#x20-#xD7FF] |
//     [#xE000-#xFFFD] | [#x10000-#x10FFFF], also through character
//     references. Other C0 controls, U+FFFE, U+FFFF and invalid UTF-8 are
//     written as U+FFFD (docs/tracerpt-compat.md).
//   - §2.4: & and < are escaped everywhere, > too (tracerpt does), " inside
//     the double-quoted attribute values.
//   - §2.11: a parser turns every CR and CRLF into LF, so a CR survives only
//     as &#13;.
//   - §3.3.3: in an attribute value a parser turns every literal tab, LF
//     and CR into a space, so those survive only as &#9;, &#10;, &#13;.
//     Character data keeps literal tab and LF.
//   - Everything outside ASCII becomes a decimal character reference, as
//     tracerpt writes its ASCII files.

// TestXMLEscapeCharacterClasses: one row per character class, for
// character data and attribute values.
func TestXMLEscapeCharacterClasses(t *testing.T) {
	cases := []struct {
		class, in, text, attr string
	}{
		{"letters, digits, punctuation", "Az09 !#$%()*+,-./:;=?@[\\]^_`{|}~", "Az09 !#$%()*+,-./:;=?@[\\]^_`{|}~", "Az09 !#$%()*+,-./:;=?@[\\]^_`{|}~"},
		{"apostrophe", "'", "'", "'"},
		{"DEL (a legal XML character)", "\x7f", "\x7f", "\x7f"},
		{"ampersand", "&", "&amp;", "&amp;"},
		{"less-than", "<", "&lt;", "&lt;"},
		{"greater-than", ">", "&gt;", "&gt;"},
		{"double quote", `"`, `"`, "&quot;"},
		{"tab", "a\tb", "a\tb", "a&#9;b"},
		{"line feed", "a\nb", "a\nb", "a&#10;b"},
		{"carriage return", "a\rb", "a&#13;b", "a&#13;b"},
		{"CRLF", "a\r\nb", "a&#13;\nb", "a&#13;&#10;b"},
		{"NUL", "a\x00b", "a&#65533;b", "a&#65533;b"},
		{"other C0 controls", "\x01\x08\x0b\x0c\x1f", strings.Repeat("&#65533;", 5), strings.Repeat("&#65533;", 5)},
		{"Latin-1 and C1", "é\u0085", "&#233;&#133;", "&#233;&#133;"},
		{"BMP", "信✓\u2028", "&#20449;&#10003;&#8232;", "&#20449;&#10003;&#8232;"},
		{"top of the BMP", "\ufffd\ufffe\uffff", "&#65533;&#65533;&#65533;", "&#65533;&#65533;&#65533;"},
		{"astral", "😀\U0010FFFF", "&#128512;&#1114111;", "&#128512;&#1114111;"},
		{"invalid UTF-8", "\xff\xc3", "&#65533;&#65533;", "&#65533;&#65533;"},
		{"encoded surrogate", "\xed\xa0\x80", "&#65533;&#65533;&#65533;", "&#65533;&#65533;&#65533;"},
	}
	for _, c := range cases {
		if got := string(appendXMLText(nil, c.in)); got != c.text {
			t.Errorf("%s: text %q = %q, want %q", c.class, c.in, got, c.text)
		}
		if got := string(appendXMLAttr(nil, c.in)); got != c.attr {
			t.Errorf("%s: attribute %q = %q, want %q", c.class, c.in, got, c.attr)
		}
		b := []byte("<Data>" + c.in)
		if b, _ = escapeXMLFrom(b, len("<Data>"), nil); string(b) != "<Data>"+c.text {
			t.Errorf("%s: escapeXMLFrom %q = %q, want %q", c.class, c.in, b[len("<Data>"):], c.text)
		}
	}
}

// TestXMLEscapeSurvivesParsing: whatever the string, what an XML 1.0
// parser reads back from the escaped form is the string itself (with the
// characters XML cannot carry as U+FFFD): character data through
// encoding/xml, attribute values through §3.3.3's normalisation, which
// encoding/xml does not apply.
func TestXMLEscapeSurvivesParsing(t *testing.T) {
	var cases []string
	for c := 0; c < 256; c++ {
		cases = append(cases, "x"+string(rune(c))+"y", "x"+string([]byte{byte(c)})+"y")
	}
	cases = append(cases, "\r\n", "\n\r", "\t\t", "\ufffe", "\uffff", "\U0001F600", "\xed\xbf\xbf", "\xef\xbf\xbe")
	rng := rand.New(rand.NewSource(9))
	alphabet := []string{"a", " ", "\t", "\n", "\r", "\x00", "\x1f", "&", "<", ">", `"`, "'", "é", "\ufffe", "\uffff", "😀", "\xff", "\xc3", "&#9;", "&amp;"}
	for i := 0; i < 3000; i++ {
		var sb strings.Builder
		for j := rng.Intn(10); j > 0; j-- {
			if rng.Intn(4) == 0 {
				sb.WriteByte(byte(rng.Intn(256)))
			} else {
				sb.WriteString(alphabet[rng.Intn(len(alphabet))])
			}
		}
		cases = append(cases, sb.String())
	}
	for _, s := range cases {
		want := xmlCarried(s)

		text := appendXMLText(nil, s)
		d := xml.NewDecoder(strings.NewReader("<a>" + string(text) + "</a>"))
		var got strings.Builder
		for {
			tok, err := d.Token()
			if err != nil {
				if err != io.EOF {
					t.Fatalf("text %q → %q is not well-formed: %v", s, text, err)
				}
				break
			}
			if cd, ok := tok.(xml.CharData); ok {
				got.Write(cd)
			}
		}
		// §2.11: the parser has turned CRLF and CR into LF, so a CR
		// that comes back was written as &#13;.
		if got.String() != want {
			t.Fatalf("text %q → %q reads back as %q, want %q", s, text, got.String(), want)
		}

		attr := string(appendXMLAttr(nil, s))
		if _, err := xml.NewDecoder(strings.NewReader(`<a v="` + attr + `"/>`)).Token(); err != nil {
			t.Fatalf("attribute %q → %q is not well-formed: %v", s, attr, err)
		}
		if got, err := normalizeAttr(attr); err != nil || got != want {
			t.Fatalf("attribute %q → %q normalises to %q (%v), want %q", s, attr, got, err, want)
		}
	}
}

// xmlCarried is s as XML can carry it: C0 controls other than tab, LF and
// CR, U+FFFE, U+FFFF and invalid UTF-8 become U+FFFD.
func xmlCarried(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		if (r < 0x20 && r != '\t' && r != '\n' && r != '\r') || r == 0xFFFE || r == 0xFFFF {
			r = utf8.RuneError
		}
		b.WriteRune(r)
	}
	return b.String()
}

// normalizeAttr reads a double-quoted attribute value as an XML 1.0
// processor does (§2.11 line ends, then §3.3.3 for a CDATA attribute):
// literal CRLF, CR, LF and tab become one space each; character and the
// predefined entity references are replaced by their character.
func normalizeAttr(v string) (string, error) {
	v = strings.ReplaceAll(v, "\r\n", "\n")
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		switch c := v[i]; c {
		case '\t', '\n', '\r':
			b.WriteByte(' ')
		case '<', '"':
			return "", strconv.ErrSyntax
		case '&':
			end := strings.IndexByte(v[i:], ';')
			if end < 0 {
				return "", strconv.ErrSyntax
			}
			ref := v[i+1 : i+end]
			i += end
			switch {
			case ref == "amp":
				b.WriteByte('&')
			case ref == "lt":
				b.WriteByte('<')
			case ref == "gt":
				b.WriteByte('>')
			case ref == "quot":
				b.WriteByte('"')
			case ref == "apos":
				b.WriteByte('\'')
			case strings.HasPrefix(ref, "#"):
				n, err := strconv.ParseUint(ref[1:], 10, 32)
				if err != nil {
					return "", err
				}
				b.WriteRune(rune(n))
			default:
				return "", strconv.ErrSyntax
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

// TestXMLPlainLen: the run xmlPlainLen finds, eight bytes at a time, ends
// where the byte table says, for every byte at every place of a word and
// past the words, and in random strings.
func TestXMLPlainLen(t *testing.T) {
	ref := func(s string, attr bool) int {
		for i := 0; i < len(s); i++ {
			if !xmlPlain[btoi(attr)][s[i]] {
				return i
			}
		}
		return len(s)
	}
	for _, attr := range []bool{false, true} {
		for c := 0; c < 256; c++ {
			for at := range 19 {
				b := []byte(strings.Repeat("a", 19))
				b[at] = byte(c)
				if got, want := xmlPlainLen(string(b), attr), ref(string(b), attr); got != want {
					t.Fatalf("attr %v: byte %#x at %d: run of %d, want %d", attr, c, at, got, want)
				}
				if got, want := xmlPlainLen(b, attr), ref(string(b), attr); got != want {
					t.Fatalf("attr %v: byte %#x at %d in a []byte: run of %d, want %d", attr, c, at, got, want)
				}
			}
		}
		for _, b := range randomStrings(3, 5000, 40, "ab \t\n\r&<>\"'\x00\x1f\x7f\x80\xc3\xa9~") {
			if got, want := xmlPlainLen(b, attr), ref(b, attr); got != want {
				t.Fatalf("attr %v: %q: run of %d, want %d", attr, b, got, want)
			}
		}
	}
}
