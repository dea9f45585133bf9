package tdh_test

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/etwkit/etw/tdh"
)

// TestMessageBound: a message whose expansion would pass MaxMessageBytes
// (its text, an insert repeated, a long array or string insert) is cut
// there, at a character boundary, and ends with TruncatedMarker, through
// a plan and without, the same bytes; one of MaxMessageBytes exactly is
// whole.
func TestMessageBound(t *testing.T) {
	u32 := tdh.Property{Name: "N", InType: tdh.InTypeUInt32, LengthIndex: -1, CountIndex: -1}
	arr := tdh.Property{Name: "A", InType: tdh.InTypeUInt16, IsArray: true, Count: 40000, LengthIndex: -1, CountIndex: -1}
	str := tdh.Property{Name: "S", InType: tdh.InTypeUnicodeString, LengthIndex: -1, CountIndex: -1}
	le32 := binary.LittleEndian.AppendUint32(nil, 4294967295)
	var utf16z []byte
	for _, u := range utf16.Encode([]rune(strings.Repeat("é", 40000) + "\x00")) {
		utf16z = binary.LittleEndian.AppendUint16(utf16z, u)
	}
	for _, c := range []struct {
		name    string
		prop    tdh.Property
		payload []byte
		msg     string
		cut     bool
	}{
		{"text", u32, le32, strings.Repeat("a", tdh.MaxMessageBytes+100), true},
		{"text of the bound", u32, le32, strings.Repeat("a", tdh.MaxMessageBytes-10) + "%1", false},
		{"insert repeated", u32, le32, strings.Repeat("%1,", 30000), true},
		{"array insert", arr, make([]byte, 80000), "x%1", true},
		{"string insert", str, utf16z, "x%1", true},
	} {
		e := &tdh.Event{Properties: []tdh.Property{c.prop}, Message: c.msg}
		var dec tdh.Decoder
		d, err := dec.Decode(e, c.payload, 8)
		if err != nil || len(d.Extra) != 0 {
			t.Fatalf("%s: decode: %v, %d bytes left over", c.name, err, len(d.Extra))
		}
		prefix := []byte("prefix") // the bound is the expansion's, past dst
		want := tdh.AppendMessage(prefix, c.msg, d, nil)
		got := tdh.NewJSONPlan(e).AppendMessage(prefix, c.msg, d)
		if !bytes.Equal(got, want) {
			t.Errorf("%s: through the plan %d bytes, without %d", c.name, len(got), len(want))
		}
		n := len(want) - len(prefix)
		cut := bytes.HasSuffix(want, []byte(tdh.TruncatedMarker))
		if !bytes.HasPrefix(want, prefix) || !utf8.Valid(want) || cut != c.cut || n > tdh.MaxMessageBytes+len(tdh.TruncatedMarker) ||
			(c.cut && n < tdh.MaxMessageBytes-utf8.UTFMax+len(tdh.TruncatedMarker)) || (!c.cut && n != tdh.MaxMessageBytes) {
			t.Errorf("%s: %d bytes of expansion (bound %d), cut %v (want %v), valid UTF-8 %v", c.name, n, tdh.MaxMessageBytes, cut, c.cut, utf8.Valid(want))
		}
		if k := bytes.Count(want, []byte(tdh.TruncatedMarker)); c.cut && k != 1 {
			t.Errorf("%s: the marker %d times", c.name, k)
		}
	}
}
