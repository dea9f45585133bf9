package jsonstr

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// marshal is encoding/json's rendering of s (invalid UTF-8 as \ufffd).
func marshal(t *testing.T, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

func check(t *testing.T, s string) {
	t.Helper()
	want := marshal(t, s)
	if got := Append([]byte("x"), s); !bytes.Equal(got[1:], want) {
		t.Fatalf("Append(%q) = %s, want %s", s, got[1:], want)
	}
	if got := Append(nil, []byte(s)); !bytes.Equal(got, want) {
		t.Fatalf("Append([]byte(%q)) = %s, want %s", s, got, want)
	}
	if n := SafeLen([]byte(s)); n > len(s) || (n < len(s) && safe[s[n]]) || !bytes.Equal(Append(nil, s[:n])[1:n+1], []byte(s[:n])) {
		t.Fatalf("SafeLen(%q) = %d", s, n)
	}
	got, valid := Escape(nil, s)
	if valid != utf8.ValidString(s) || !bytes.Equal(got, want[1:len(want)-1]) {
		t.Fatalf("Escape(%q) = %s, %v", s, got, valid)
	}
	// Escaped in two valid pieces: the same bytes.
	for i := 0; i <= len(s); i++ {
		a, b := s[:i], s[i:]
		if !utf8.ValidString(a) || !utf8.ValidString(b) {
			continue
		}
		got, _ := Escape(nil, a)
		got, _ = Escape(got, b)
		if !bytes.Equal(got, want[1:len(want)-1]) {
			t.Fatalf("Escape of %q then %q = %s, want %s", a, b, got, want)
		}
	}
}

func TestAppend(t *testing.T) {
	for _, s := range []string{
		"", "plain", `quote " and \ backslash`, "<a href='x'>&amp;</a>", "tab\tCR\rLF\n\b\f\x00\x1f\x7f",
		"é ü 中文 🙂", "\u2028 and \u2029", "bad \xff byte", "cut \xe2\x80", "\xe2\x80\xa8", "Amount=0x1A138;\r\nKind=Small",
		"MethodNamespace=System.Collections.Generic", "01234567<", "0123456789abcde>", "abcdefgh&ijklmnop", "abcdefghijklmno\x7f~ ",
		"abcdefghijklmnop\x1f", "abcdefg\"", "abcdefghijk\\", "abcdefghijklmnopqrstuvw\xc3\xa9",
	} {
		check(t, s)
	}
}

func FuzzAppend(f *testing.F) {
	f.Add("Amount=0x1A138;\r\nKind=<Small>&")
	f.Add("\xe2\x80\xa8\xff\u2029")
	f.Fuzz(check)
}

// TestSafeLen puts every byte at every place of a run of safe bytes: the
// run ends there exactly when the byte is not safe.
func TestSafeLen(t *testing.T) {
	for c := range 256 {
		for at := range 20 {
			b := []byte("abcdefghijklmnopqrstuvwxyz")
			b[at] = byte(c)
			want := len(b)
			if !safe[c] {
				want = at
			}
			if got := SafeLen(b); got != want {
				t.Fatalf("SafeLen(%q) = %d, want %d", b, got, want)
			}
		}
	}
}
