package tracerpt

import (
	"fmt"
	"math"
	"math/rand"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestXMLEscape(t *testing.T) {
	for in, want := range map[string]string{
		"plain":             "plain",
		`a<b>&"c"`:          `a&lt;b&gt;&amp;"c"`,
		"信息 ":               "&#20449;&#24687; ",
		"line\nnext\ttab\r": "line\nnext\ttab&#13;",
		"ctl\x01":           "ctl&#65533;",
		"bad\xff":           "bad&#65533;",
		"😀":                 "&#128512;",
	} {
		if got := appendXMLText(nil, in); string(got) != want {
			t.Errorf("text %q = %q, want %q", in, got, want)
		}
	}
	if got := appendXMLAttr(nil, `a"b`); string(got) != "a&quot;b" {
		t.Errorf("attr = %q", got)
	}
	b := []byte("<Data>x<y")
	b, _ = escapeXMLFrom(b, 6, nil)
	if string(b) != "<Data>x&lt;y" {
		t.Errorf("escapeXMLFrom = %q", b)
	}
}

// TestPaddingWidths: the right-aligned decimal, the zero-padded hex and
// the right-aligned field are fmt's %*d, %0*X and %*s, at every width up to
// past the padding's run of blanks and for numbers of every length.
func TestPaddingWidths(t *testing.T) {
	nums := []uint64{0, 1, 9, 10, 15, 16, 99, 100, 255, 4095, 65535, 1 << 32, 1<<32 - 1, 0x9A0F_E1D2_C3B4_A596, 0x1_9ABC_DEF0, 132404548206236167, math.MaxUint64}
	for p := uint64(1); p < 1e19; p *= 10 {
		nums = append(nums, p-1, p)
	}
	for _, n := range nums {
		for width := 0; width <= 70; width++ {
			if got, want := string(appendUintRight([]byte("x"), n, width)), fmt.Sprintf("x%*d", width, n); got != want {
				t.Fatalf("appendUintRight(%d, %d) = %q, want %q", n, width, got, want)
			}
			if got, want := string(appendUpperHex([]byte("x"), n, width)), fmt.Sprintf("x%0*X", width, n); got != want {
				t.Fatalf("appendUpperHex(%d, %d) = %q, want %q", n, width, got, want)
			}
			field := strconv.FormatUint(n, 10)
			if got, want := string(rightAlignFrom([]byte("ab, "+field), 4, width)), fmt.Sprintf("ab, %*s", width, field); got != want {
				t.Fatalf("rightAlignFrom(%q, %d) = %q, want %q", field, width, got, want)
			}
		}
	}
}

func TestPaddingHelpers(t *testing.T) {
	if got := string(appendUpperHex(nil, 0x20ec, 8)); got != "000020EC" {
		t.Error(got)
	}
	if got := string(appendHex0x(nil, 0)); got != "0x0" {
		t.Error(got)
	}
	if got := string(appendHex0x(nil, 0xF00000000008)); got != "0xF00000000008" {
		t.Error(got)
	}
	if got := string(rightAlignFrom([]byte("ab, xyz"), 4, 6)); got != "ab,    xyz" {
		t.Errorf("%q", got)
	}
}

func TestTimeCreated(t *testing.T) {
	const ft = 132247862638609634 // 2020-01-29T15:44:23.8609634Z
	// time/tzdata is linked in (zone_test.go): the zone always loads.
	tor, err := time.LoadLocation("America/Toronto")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		zone string
		want string
	}{
		{"", "2020-01-29T15:44:23.860963400Z"},
		{"-05:00", "2020-01-29T10:44:23.860963400-05:00"},
		{"+0530", "2020-01-29T21:14:23.860963400+05:30"},
		{"America/Toronto", "2020-01-29T10:44:23.860963400-05:00"},
	} {
		loc, err := ParseZone(c.zone)
		if err != nil {
			t.Fatal(err)
		}
		if got := string(newTimeFormatter(loc).appendTimeCreated(nil, ft)); got != c.want {
			t.Errorf("%s: %s, want %s", c.zone, got, c.want)
		}
	}
	// Random instants of 1970–2076 (either side of many daylight-time
	// changes) against the standard library, with one formatter.
	f := newTimeFormatter(tor)
	rng := rand.New(rand.NewSource(2))
	const till2076 = 150000000000000000
	changed := 0
	for i := 0; i < 5000; i++ {
		ft := filetimeEpochDelta + rng.Int63n(till2076-filetimeEpochDelta)
		if got, want := string(f.appendTimeCreated(nil, ft)), wantTimeCreated(ft, tor); got != want {
			t.Fatalf("%d: %s, want %s", ft, got, want)
		}
		if _, off := time.Unix((ft-filetimeEpochDelta)/1e7, 0).In(tor).Zone(); off != -5*3600 {
			changed++
		}
	}
	if changed == 0 {
		t.Error("no instant in daylight time: the loop cannot fail")
	}
	for _, bad := range []string{"+25:00", "-5:5:5", "Not/AZone", "+123456"} {
		if _, err := ParseZone(bad); err == nil {
			t.Errorf("ParseZone(%q) accepted", bad)
		}
	}
}

func TestRFC3339(t *testing.T) {
	const ft = 132247862638609634
	if got := string(appendRFC3339(nil, ft)); got != "2020-01-29T15:44:23.8609634Z" {
		t.Error(got)
	}
}

func TestCultureLongDate(t *testing.T) {
	day := time.Date(2021, 6, 1, 21, 40, 0, 0, time.UTC)
	for name, want := range map[string]string{
		"en-US": "Tuesday, June 1, 2021",
		"en-ca": "June 1, 2021",
		"en-GB": "01 June 2021",
		"de-DE": "Dienstag, 1. Juni 2021",
		"es-ES": "martes, 1 de junio de 2021",
		"ja-JP": "2021年6月1日",
		"xx-YY": "Tuesday, 01 June 2021",
	} {
		c, known, err := ParseCulture(name)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.FormatLongDate(day); got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
		if known == (name == "xx-YY") {
			t.Errorf("%s: known = %v", name, known)
		}
	}
	if _, _, err := ParseCulture("en US<"); err == nil {
		t.Error("bad culture accepted")
	}
	if c, _, _ := ParseCulture(""); c.Name != "en-US" {
		t.Error(c.Name)
	}
}

func TestEncodings(t *testing.T) {
	b, _ := toWindows1252From([]byte("keep, café € 😀\n"), 6, nil)
	if want := "keep, caf\xe9 \x80 ?\n"; string(b) != want {
		t.Errorf("Windows-1252: %q, want %q", b, want)
	}
	var out strings.Builder
	w := NewUTF16Writer(&out)
	s := "a€😀"
	w.Write([]byte(s[:2])) // a character split between writes
	w.Write([]byte(s[2:]))
	if want := "a\x00\xac\x20\x3d\xd8\x00\xde"; out.String() != want {
		t.Errorf("UTF-16: %q, want %q", out.String(), want)
	}
	if !isASCII([]byte("0123456789abcdef")) || isASCII([]byte("0123456789abcdé")) {
		t.Error("isASCII")
	}
	// A byte above 0x7F anywhere in texts of every length up to past two
	// blocks of 32.
	for n := range 80 {
		text := []byte(strings.Repeat("x", n))
		if !isASCII(text) {
			t.Fatalf("isASCII(%d × x) = false", n)
		}
		for i := range n {
			text[i] = 0x80
			if isASCII(text) {
				t.Fatalf("isASCII(0x80 at %d of %d) = true", i, n)
			}
			text[i] = 'x'
		}
	}
}

// TestCSVQuoteFrom: quoteFrom quotes a field as the plain rule says
// (always, or when it holds a comma, a quote, a CR or an LF), doubling its
// quotes, for every special byte at every place of a word and past it,
// and for random fields.
func TestCSVQuoteFrom(t *testing.T) {
	ref := func(field string, always bool) string {
		if !always && !strings.ContainsAny(field, ",\"\r\n") {
			return field
		}
		return `"` + strings.ReplaceAll(field, `"`, `""`) + `"`
	}
	check := func(field string) {
		t.Helper()
		for _, always := range []bool{false, true} {
			var e CSVEncoder
			got := string(e.quoteFrom([]byte("a, "+field), 3, always))
			if want := "a, " + ref(field, always); got != want {
				t.Fatalf("quoteFrom(%q, always %v) = %q, want %q", field, always, got, want)
			}
		}
	}
	for _, c := range []byte{',', '"', '\r', '\n', 'x', 0, 0x80, 0xff, '+', '-'} {
		for at := range 19 {
			f := []byte(strings.Repeat("0", 19))
			f[at] = c
			check(string(f))
			check(string(f[:at+1]))
		}
	}
	for _, f := range randomStrings(5, 5000, 30, "ab,\"\r\n \x00\xff+-x") {
		check(f)
	}
}

// randomStrings returns n strings of up to max-1 bytes of alphabet,
// random from seed.
func randomStrings(seed int64, n, max int, alphabet string) []string {
	rng := rand.New(rand.NewSource(seed))
	out := make([]string, n)
	for k := range out {
		b := make([]byte, rng.Intn(max))
		for i := range b {
			b[i] = alphabet[rng.Intn(len(alphabet))]
		}
		out[k] = string(b)
	}
	return out
}
