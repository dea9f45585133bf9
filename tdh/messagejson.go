package tdh

import (
	"bytes"

	"github.com/etwkit/etw/internal/jsonstr"
)

// The message of the JSON dumps is a JSON string escaped as encoding/json
// escapes it (package jsonstr). Expanded first and escaped afterwards, each
// of its bytes is scanned once more: a plan escapes its message's literal
// text once (planMessageJSON) and writes integer inserts, digits that need
// no escape, straight into the string; the other inserts' text is written
// into the string too and escaped from its first byte that needs it (most
// are plain ASCII: names, map text, arrays of numbers).

// msgOp is one step of a plan's message for JSON: a run of literal
// pieces, an insert, or the end (%0). Its text, escaped, is
// msgJSON[start:end], raw bytes unescaped: for an insert, the insert as
// written, which an event with fewer values shows as it is.
type msgOp struct {
	start, end int32
	raw        int32
	piece      int32 // the insert's index in JSONPlan.msg; opLiteral, opEnd
	n          int32 // the insert's number (msgPiece.n); 0 for the others
	text       bool  // the insert's text as it is (textSpec)
}

const (
	opLiteral = -1 - iota
	opEnd
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

// planMessageJSON makes the steps of the plan's message for JSON,
// consecutive literal pieces in one step: appendMessage checks its bound
// before each piece, and a step of several pieces gives the same
// expansion (see appendMessageJSON).
func (pl *JSONPlan) planMessageJSON() {
	pl.msgOps, pl.msgJSON, pl.msgJSONValid = pl.msgOps[:0], pl.msgJSON[:0], true
	pl.msgEscBy, pl.msgEsc, pl.msgEscSteps = nil, pl.msgEsc[:0], pl.msgEscSteps[:0]
	for i := range pl.msg {
		m := &pl.msg[i]
		op := msgOp{start: int32(len(pl.msgJSON)), raw: int32(len(m.text)), piece: int32(i), n: int32(m.n), text: textSpec(m.spec)}
		switch {
		case m.end:
			op.piece = opEnd
		case m.n == 0:
			op.piece = opLiteral
			if k := len(pl.msgOps) - 1; k >= 0 && pl.msgOps[k].piece == opLiteral {
				op = pl.msgOps[k]
				op.raw += int32(len(m.text))
				pl.msgOps = pl.msgOps[:k]
			}
		}
		var valid bool
		pl.msgJSON, valid = jsonstr.Escape(pl.msgJSON, m.text)
		pl.msgJSONValid = pl.msgJSONValid && valid
		op.end = int32(len(pl.msgJSON))
		pl.msgOps = append(pl.msgOps, op)
	}
	// The memos' storage is kept (their JSON buffers too), their values
	// forgotten.
	n := len(pl.msgOps)
	if cap(pl.msgMemo) < n {
		pl.msgMemo = append(pl.msgMemo[:cap(pl.msgMemo)], make([]insertMemo, n-cap(pl.msgMemo))...)
	}
	pl.msgMemo = pl.msgMemo[:n]
	for i := range pl.msgMemo {
		m := &pl.msgMemo[i]
		*m = insertMemo{json: m.json[:0]}
	}
}

// AppendMessageJSON appends the expansion of msg with no RenderOptions
// (see [AppendMessage]) as a JSON string: the bytes
// jsonstr.Append(dst, pl.AppendMessage(nil, msg, d)) gives. pl may be
// nil; msg is normally the plan's schema's message. scratch is storage
// for the text of an insert to escape, returned for reuse.
func (pl *JSONPlan) AppendMessageJSON(dst, scratch []byte, msg string, d *Decoded) (out, scratchOut []byte) {
	if out, scratch, ok := pl.appendMessageJSON(dst, scratch, msg, d); ok {
		return out, scratch
	}
	scratch = pl.AppendMessage(scratch[:0], msg, d)
	return jsonstr.Append(dst, scratch), scratch
}

// appendMessageJSON is AppendMessageJSON for the events whose message the
// plan escapes piece by piece; ok is false, and dst unchanged, for the
// others: no plan or not the plan's message or values, a message that is
// cut ([MaxMessageBytes]), text that is not valid UTF-8 (its pieces,
// escaped apart, could differ from the whole).
func (pl *JSONPlan) appendMessageJSON(dst, scratch []byte, msg string, d *Decoded) (_, _ []byte, ok bool) {
	if pl == nil || pl.schema == nil || msg != pl.schema.Message || !pl.msgJSONValid || !pl.mine(d) {
		return dst, scratch, false
	}
	var top []Value
	if len(d.Values) >= len(d.Schema.Properties) {
		top = d.Top()
	}
	n0 := len(dst) // dst is not kept live through the loop: out[:n0] is it
	out := append(dst, '"')
	raw := 0 // bytes of the expansion so far (appendMessage's len(out))
	for k := range pl.msgOps {
		// appendMessage cuts the expansion before a piece once it has
		// MaxMessageBytes: before a step, and within a step of literal
		// pieces, whose last piece makes raw larger than the bound,
		// which the next step or the end sees.
		op := &pl.msgOps[k]
		if raw >= MaxMessageBytes {
			return out[:n0], scratch, false
		}
		if op.piece == opEnd {
			break
		}
		if op.piece < 0 || int(op.n) > len(top) {
			// Literal text, or an insert of a value the event lacks.
			out = append(out, pl.msgJSON[op.start:op.end]...)
			raw += int(op.raw)
			continue
		}
		v, pp := &top[op.n-1], &pl.props[op.n-1]
		if v.Kind == Scalar && v.Prop == pp.prop && op.text {
			n := len(out)
			if pp.wide {
				// A UTF-16 string, escaped as it is converted; one
				// with escapes (its text is shorter than its JSON)
				// takes the way below.
				out = appendWide(out, v.Data, wideMsg)
				if bytes.IndexByte(out[n:], '\\') < 0 {
					raw += len(out) - n
					continue
				}
				out = out[:n]
			} else {
				// Digits, a sign or "0x" and hex digits: nothing to
				// escape.
				var isInt bool
				if out, isInt = pp.appendText(out, v); isInt {
					raw += len(out) - n
					continue
				}
			}
		}
		// The insert's text straight into the string (appendMessage's
		// bound, with the text from n), escaped from the first byte
		// that needs it, through scratch.
		mm := &pl.msgMemo[k]
		val, memo, hit := mm.holds(v, pp, d.PointerSize, raw)
		if hit {
			out = append(out, mm.json...)
			raw += mm.raw
			continue
		}
		n := len(out)
		out = pl.appendInsert(out, d, &pl.msg[op.piece], v, n+MaxMessageBytes-raw)
		r := len(out) - n
		raw += r
		if safe := n + jsonstr.SafeLen(out[n:]); safe < len(out) {
			scratch = append(scratch[:0], out[safe:]...)
			var valid bool
			if out, valid = jsonstr.Escape(out[:safe], scratch); !valid {
				return out[:n0], scratch, false
			}
		}
		if memo {
			mm.keep(len(v.Data), val, d.PointerSize, r, raw, out[n:])
		}
	}
	if raw > MaxMessageBytes {
		return out[:n0], scratch, false
	}
	return append(out, '"'), scratch, true
}
