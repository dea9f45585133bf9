package tdh_test

import (
	"fmt"
	"strings"

	"github.com/etwkit/etw/tdh"
)

// htmlText escapes message text for HTML, one character at a time (a
// line break, CR LF, becomes <br>: the CR is dropped, the LF replaced).
type htmlText struct{}

func (htmlText) PlainLen(b []byte) int {
	i := 0
	for i < len(b) && b[i] >= 0x20 && b[i] < 0x7F && b[i] != '<' && b[i] != '>' && b[i] != '&' {
		i++
	}
	return i
}

// htmlReplacer is made once: AppendEscaped runs for every message.
var htmlReplacer = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", "\r", "", "\n", "<br>")

func (htmlText) AppendEscaped(dst, b []byte) []byte {
	return append(dst, htmlReplacer.Replace(string(b))...)
}

func ExampleJSONPlan_AppendMessageEscaped() {
	e := &tdh.Event{Message: "<%1> opened %2%n", Properties: []tdh.Property{
		{Name: "Pid", InType: tdh.InTypeUInt32, LengthIndex: -1, CountIndex: -1},
		{Name: "Path", InType: tdh.InTypeUnicodeString, LengthIndex: -1, CountIndex: -1},
	}}
	payload := []byte{0x10, 0x27, 0, 0, 'a', 0, '&', 0, 'b', 0, 0, 0}
	var dec tdh.Decoder
	d, err := dec.Decode(e, payload, 8)
	if err != nil {
		panic(err)
	}
	plan := tdh.NewJSONPlan(e) // kept per schema: its literal text is escaped once
	out, _ := plan.AppendMessageEscaped(nil, nil, e.Message, d, htmlText{})
	fmt.Println(string(out))
	// Output:
	// &lt;10000&gt; opened a&amp;b<br>
}
