package tdh

import (
	"bytes"
	"fmt"
	"testing"
	"unicode/utf8"
)

// testEscaper escapes as an output format might: <, & and \ as
// entities, other characters outside printable ASCII as numbered
// references, bytes that are not UTF-8 apart.
type testEscaper struct{}

func (testEscaper) PlainLen(b []byte) int {
	i := 0
	for i < len(b) && b[i] >= 0x20 && b[i] < 0x7F && b[i] != '<' && b[i] != '&' && b[i] != '\\' {
		i++
	}
	return i
}

func (testEscaper) AppendEscaped(dst, b []byte) []byte {
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		switch {
		case r == utf8.RuneError && n == 1:
			dst = fmt.Appendf(dst, "<bad %02x>", b[0])
		case r == '<':
			dst = append(dst, "&lt;"...)
		case r == '&':
			dst = append(dst, "&amp;"...)
		case r == '\\':
			dst = append(dst, "&bsol;"...)
		case r < 0x20 || r >= 0x7F:
			dst = fmt.Appendf(dst, "&#%d;", r)
		default:
			dst = append(dst, byte(r))
		}
		b = b[n:]
	}
	return dst
}

// TestEscaperPlainLen: testEscaper's PlainLen is what its AppendEscaped
// copies as it is.
func TestEscaperPlainLen(t *testing.T) {
	var esc testEscaper
	for _, s := range []string{"", "abc", "a<b", "a\\", "é", "\x01", "\xff", "x&y"} {
		n := esc.PlainLen([]byte(s))
		if got := esc.AppendEscaped(nil, []byte(s[:n])); string(got) != s[:n] {
			t.Fatalf("%q: plain run %q escapes to %q", s, s[:n], got)
		}
	}
}

// checkEscaped checks that pl's message msg for d escaped by
// testEscaper is the escaped expansion, twice (the second time with the
// plan's escaped text and memos made); pieces, when not nil, is whether
// the plan should have escaped it in pieces.
func checkEscaped(t *testing.T, pl *JSONPlan, msg string, d *Decoded, pieces *bool) {
	t.Helper()
	var esc testEscaper
	want := esc.AppendEscaped([]byte("x"), AppendMessage(nil, msg, d, nil))
	for range 2 {
		if got, _ := pl.AppendMessageEscaped([]byte("x"), []byte("scratch"), msg, d, esc); !bytes.Equal(got, want) {
			t.Fatalf("message %q escaped through the plan:\n got …%q\nwant …%q", msg, got[max(0, len(got)-120):], want[max(0, len(want)-120):])
		}
	}
	if pieces != nil {
		if _, _, ok := pl.appendMessageEscaped(nil, nil, msg, d, esc); ok != *pieces {
			t.Errorf("%q: escaped in pieces %v, want %v", msg, ok, *pieces)
		}
	}
}

// TestMessageEscapedNoPlan: without a plan, or with another message, the
// expansion is escaped whole.
func TestMessageEscapedNoPlan(t *testing.T) {
	e, payload := messageJSONEvent("a<%1>%2", "é\\")
	var dec Decoder
	d, err := dec.Decode(e, payload, 8)
	if err != nil {
		t.Fatal(err)
	}
	var pl *JSONPlan
	checkEscaped(t, pl, e.Message, d, nil)
	checkEscaped(t, NewJSONPlan(e), "other %2 & %1", d, nil)
	checkEscaped(t, NewJSONPlan(&Event{Message: "%1"}), e.Message, d, nil)
}
