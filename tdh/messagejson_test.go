package tdh

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/etwkit/etw/internal/jsonstr"
)

// messageJSONEvent returns a schema of an integer, a string and a hex
// integer with message msg, and a payload with string s.
func messageJSONEvent(msg, s string) (*Event, []byte) {
	p := func(name string, in InType) Property {
		return Property{Name: name, InType: in, LengthIndex: -1, CountIndex: -1}
	}
	e := &Event{Message: msg, Properties: []Property{
		p("Count", InTypeInt32), p("Name", InTypeUnicodeString), p("Flags", InTypeHexInt32),
	}}
	le := binary.LittleEndian
	b := le.AppendUint32(nil, uint32(0xFFFFFFF9)) // -7
	for _, c := range utf16.Encode([]rune(s)) {
		b = le.AppendUint16(b, c)
	}
	b = le.AppendUint16(b, 0)
	return e, le.AppendUint32(b, 0x1A138)
}

// TestMessageJSONPieces checks that a plan escapes a message in pieces
// where it can, and that what it gives is the escaped expansion, in
// pieces or not: messages cut at MaxMessageBytes, inserts of invalid
// UTF-16, values of fewer properties.
func TestMessageJSONPieces(t *testing.T) {
	long := strings.Repeat("<x>", MaxMessageBytes/4)
	for _, c := range []struct {
		msg, s string
		pieces bool
	}{
		{"Count=%1;%nName=\"%2\" & %3%0 ignored", "C:\\a<b>\u2028", true},
		{"%1!d! %2!s! %3!x! %3!08X! %4 %%5 %t%r%!", "", true},
		{"%2%2%1", long, false},     // cut
		{"%1 %2 %3", "\xff", true},  // the text of a string is valid UTF-8
		{"bad \xff %1", "x", false}, // the message is not
		// Literal pieces escaped as one: cut within them; at the bound
		// exactly, not cut at the end, cut before a %0.
		{strings.Repeat("a", MaxMessageBytes-1) + "%n%n<%1", "x", false},
		{strings.Repeat("&", MaxMessageBytes-2) + "%n", "x", true},
		{strings.Repeat("&", MaxMessageBytes-2) + "%n%0%1", "x", false},
	} {
		e, payload := messageJSONEvent(c.msg, c.s)
		var dec Decoder
		d, err := dec.Decode(e, payload, 8)
		if err != nil {
			t.Fatal(err)
		}
		pl := NewJSONPlan(e)
		want := jsonstr.Append([]byte("x"), AppendMessage(nil, c.msg, d, nil))
		got, _ := pl.AppendMessageJSON([]byte("x"), nil, c.msg, d)
		if !bytes.Equal(got, want) {
			t.Fatalf("%q: got %s\nwant %s", c.msg, got, want)
		}
		if _, _, ok := pl.appendMessageEscaped(nil, nil, c.msg, d, jsonMessage{}); ok != c.pieces {
			t.Errorf("%q: escaped in pieces %v, want %v", c.msg, ok, c.pieces)
		}
		checkEscaped(t, pl, c.msg, d, &c.pieces)
		// Values of fewer properties: the inserts past them as written.
		short := *d
		short.Values = d.Values[:1]
		want = jsonstr.Append(nil, AppendMessage(nil, c.msg, &short, nil))
		if got, _ = pl.AppendMessageJSON(nil, nil, c.msg, &short); !bytes.Equal(got, want) {
			t.Fatalf("%q with one value: got %s\nwant %s", c.msg, got, want)
		}
		checkEscaped(t, pl, c.msg, &short, nil)
	}
}

// TestMessageJSONNearCut compares the message as JSON with the escaped
// expansion for literal text that brings each insert to every offset
// around MaxMessageBytes: inserts of digits, of text to escape, of
// several-byte characters and of a lone surrogate, literal pieces after
// them, and %0.
func TestMessageJSONNearCut(t *testing.T) {
	for _, tail := range []string{"%1", "%2", "%3", "%2%1", "%1%n%2", "<%2>&", "%1%0%2", "%2!s!%%%3!x!", "é%2é"} {
		for _, s := range []string{"", "a", "\"\\\n", "<&>", "é中🙂", "\u2028x", "\U0001F642\U0001F642"} {
			for _, wide := range []bool{false, true} {
				e, payload := messageJSONEvent("", s)
				if wide {
					// A lone surrogate after s: U+FFFD in the text.
					k := len(payload) - 6
					payload = append(append(append([]byte(nil), payload[:k]...), 0x3d, 0xd8), payload[k:]...)
				}
				var dec Decoder
				d, err := dec.Decode(e, payload, 8)
				if err != nil {
					t.Fatal(err)
				}
				for pad := MaxMessageBytes - 24; pad <= MaxMessageBytes+1; pad++ {
					msg := strings.Repeat("a", pad) + tail
					e.Message = msg
					pl := NewJSONPlan(e)
					want := jsonstr.Append([]byte("x"), AppendMessage(nil, msg, d, nil))
					if got, _ := pl.AppendMessageJSON([]byte("x"), nil, msg, d); !bytes.Equal(got, want) {
						t.Fatalf("pad %d, tail %q, insert %q: got ...%s\nwant ...%s", pad, tail, s, got[max(0, len(got)-80):], want[max(0, len(want)-80):])
					}
					checkEscaped(t, pl, msg, d, nil)
				}
			}
		}
	}
}

// TestMessageJSONMemo renders a message through one warm plan, whose
// steps keep the last scalar they inserted the way of appendInsert, with
// a string before those inserts of every length that brings them around
// MaxMessageBytes, and values that repeat and change: each message is the
// escaped expansion.
func TestMessageJSONMemo(t *testing.T) {
	msg := strings.Repeat("a", MaxMessageBytes-40) + "%2|%3!08X!|%3!x!|%1!u!<%1!d!>"
	e, _ := messageJSONEvent(msg, "")
	pl := NewJSONPlan(e)
	var dec Decoder
	for n := 0; n < 64; n++ {
		for _, flags := range []uint32{0x1A138, 0x1A138, 7, 0x1A138} {
			_, payload := messageJSONEvent(msg, strings.Repeat("b", n))
			binary.LittleEndian.PutUint32(payload[len(payload)-4:], flags)
			d, err := dec.Decode(e, payload, 8)
			if err != nil {
				t.Fatal(err)
			}
			want := jsonstr.Append([]byte("x"), AppendMessage(nil, msg, d, nil))
			if got, _ := pl.AppendMessageJSON([]byte("x"), nil, msg, d); !bytes.Equal(got, want) {
				t.Fatalf("string of %d, flags %#x: got …%s\nwant …%s", n, flags, got[len(got)-80:], want[len(want)-80:])
			}
			checkEscaped(t, pl, msg, d, nil)
		}
	}
}
