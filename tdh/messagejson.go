package tdh

import (
	"bytes"
	"unicode/utf8"

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

const (
	opLiteral = -1 - iota // escStep.piece: no insert (the message's last text)
	opEnd                 // the end (%0)
)

// insertMemo is what a step of a plan's message wrote for the last scalar
// it inserted the way of appendInsert: the value's size and bytes and the
// pointer size, the insert's bytes before escaping (raw) and its JSON (or
// its text escaped, for AppendMessageEscaped).
type insertMemo struct {
	size, ptr int // size 0: none
	val       uint64
	raw       int
	json      []byte
}

// maxInsertMemo bounds the JSON an insertMemo keeps.
const maxInsertMemo = 256

// holds returns the bytes of scalar v of property pp as an integer, and
// reports whether a memo keeps inserts like it (memo) and holds v's
// (hit), for a message of raw bytes so far: a scalar's insert of 1, 2, 4
// or 8 bytes (integers, floats, map text; not a GUID's 16 or other kinds)
// depends on its bytes and the pointer size ptr alone, and the memo's
// text fits within MaxMessageBytes.
func (m *insertMemo) holds(v *Value, pp *planProp, ptr, raw int) (val uint64, memo, hit bool) {
	sz := len(v.Data)
	if v.Kind != Scalar || v.Prop != pp.prop || (sz != 1 && sz != 2 && sz != 4 && sz != 8) {
		return 0, false, false
	}
	val = leUint(v.Data)
	return val, true, m.size == sz && m.val == val && m.ptr == ptr && raw+m.raw < MaxMessageBytes
}

// keep remembers text, the insert of a scalar of size bytes holding val
// (holds'), r bytes before escaping, unless the message's bound cut it
// (raw, the expansion's bytes with it) or it is too long to keep.
func (m *insertMemo) keep(size int, val uint64, ptr, r, raw int, text []byte) {
	if raw < MaxMessageBytes && len(text) <= maxInsertMemo {
		// Not cut by the bound: the same text wherever it fits.
		m.size, m.val, m.ptr, m.raw = size, val, ptr, r
		m.json = append(m.json[:0], text...)
	}
}

// planMessage resets what the plan made of its message for an escaper,
// and checks that the message's text is valid UTF-8 (msgValid): pieces
// escaped apart give the whole text's escape only then.
func (pl *JSONPlan) planMessage() {
	pl.msgEscBy, pl.msgEsc, pl.msgEscSteps = nil, pl.msgEsc[:0], pl.msgEscSteps[:0]
	pl.msgValid = true
	for i := range pl.msg {
		pl.msgValid = pl.msgValid && utf8.ValidString(pl.msg[i].text)
	}
}

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
