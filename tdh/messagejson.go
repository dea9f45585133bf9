package tdh

import (
	"bytes"

	"github.com/etwkit/etw/internal/jsonstr"
)

// The message of the JSON dumps is a JSON string escaped as encoding/json
// escapes it (package jsonstr). Expanded first and escaped afterwards, each
// of its bytes is scanned once more: a plan escapes its message's literal
// text once and writes integer inserts, digits that need no escape,
// straight into the string; the other inserts' text is written into the
// string too and escaped from its first byte that needs it (most are
// plain ASCII: names, map text, arrays of numbers). That is
// AppendMessageEscaped's way (messageesc.go), with jsonMessage, which
// also converts and escapes UTF-16 strings in one pass.

// AppendMessageJSON appends the expansion of msg with no RenderOptions
// (see [AppendMessage]) as a JSON string: the bytes
// jsonstr.Append(dst, pl.AppendMessage(nil, msg, d)) gives. pl may be
// nil; msg is normally the plan's schema's message. scratch is storage
// for the text of an insert to escape, returned for reuse.
func (pl *JSONPlan) AppendMessageJSON(dst, scratch []byte, msg string, d *Decoded) (out, scratchOut []byte) {
	out, scratch = pl.AppendMessageEscaped(append(dst, '"'), scratch, msg, d, jsonMessage{})
	return append(out, '"'), scratch
}

// jsonMessage escapes a message as the inside of a JSON string (jsonstr).
type jsonMessage struct{}

func (jsonMessage) PlainLen(b []byte) int { return jsonstr.SafeLen(b) }

func (jsonMessage) AppendEscaped(dst, b []byte) []byte {
	dst, _ = jsonstr.Escape(dst, b)
	return dst
}

// appendWidePlain writes the UTF-16 string b escaped as jsonstr escapes
// (wideMsg); a string with escapes (its text is shorter than its JSON)
// is taken back.
func (jsonMessage) appendWidePlain(dst, b []byte) ([]byte, bool) {
	n := len(dst)
	dst = appendWide(dst, b, wideMsg)
	if bytes.IndexByte(dst[n:], '\\') >= 0 {
		return dst[:n], false
	}
	return dst, true
}
