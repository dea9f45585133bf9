package tdh

import "unicode/utf8"

// A MessageEscaper escapes the text of messages for an output format (XML
// character data, say). [JSONPlan.AppendMessageEscaped] escapes a plan's
// literal text once and each insert's text apart, so an escaper must
// escape valid UTF-8 one character at a time: the escapes of the pieces
// of a text, back to back, are the escape of the text. Its dynamic type
// must be comparable (a plan keeps the literal text escaped for the last
// escaper it was given).
type MessageEscaper interface {
	// PlainLen returns the length of a leading run of b that
	// AppendEscaped copies as it is, of printable ASCII only.
	PlainLen(b []byte) int
	// AppendEscaped appends b escaped to dst; b need not be valid
	// UTF-8 (a whole expansion that is not is escaped in one call).
	AppendEscaped(dst, b []byte) []byte
}

// escStep is a step of planMessageJSON's (a run of literal pieces, an
// insert or the end) with its text escaped by the plan's msgEscBy:
// msgEsc[start:end]. raw, piece, n and text are the msgOp's.
type escStep struct {
	start, end int32
	raw        int32
	piece      int32
	n          int32
	text       bool
	memo       insertMemo // its last scalar insert, escaped (see insertMemo)
}

// planMessageEscaped escapes the text of each step of the plan's message
// (planMessageJSON's: a run of literal pieces, or an insert as written)
// with esc into msgEsc, and makes msgEscSteps.
func (pl *JSONPlan) planMessageEscaped(esc MessageEscaper) {
	pl.msgEscBy, pl.msgEsc, pl.msgEscSteps = esc, pl.msgEsc[:0], pl.msgEscSteps[:0]
	for i := range pl.msg {
		m := &pl.msg[i]
		if i == 0 || !isLiteral(m) || !isLiteral(&pl.msg[i-1]) {
			// A step of its own.
			k := len(pl.msgEscSteps)
			op := &pl.msgOps[k]
			var keep []byte // the memo's storage, kept
			if k < cap(pl.msgEscSteps) {
				keep = pl.msgEscSteps[:k+1][k].memo.json[:0]
			}
			pl.msgEscSteps = append(pl.msgEscSteps, escStep{start: int32(len(pl.msgEsc)),
				raw: op.raw, piece: op.piece, n: op.n, text: op.text, memo: insertMemo{json: keep}})
		}
		pl.msgEsc = esc.AppendEscaped(pl.msgEsc, []byte(m.text))
		pl.msgEscSteps[len(pl.msgEscSteps)-1].end = int32(len(pl.msgEsc))
	}
}

// isLiteral reports whether m is literal text, which planMessageJSON
// joins with the literal pieces around it.
func isLiteral(m *msgPiece) bool { return !m.end && m.n == 0 }

// AppendMessageEscaped appends the expansion of msg with no RenderOptions
// (see [AppendMessage]) escaped by esc: the bytes
// esc.AppendEscaped(dst, pl.AppendMessage(nil, msg, d)) gives. pl may be
// nil; msg is normally the plan's schema's message. The literal text of
// the plan's message is escaped once (for the last escaper given), the
// integer inserts need no escape, and the other inserts are escaped from
// their first byte that needs it. scratch is storage returned for reuse.
func (pl *JSONPlan) AppendMessageEscaped(dst, scratch []byte, msg string, d *Decoded, esc MessageEscaper) (out, scratchOut []byte) {
	if out, scratch, ok := pl.appendMessageEscaped(dst, scratch, msg, d, esc); ok {
		return out, scratch
	}
	scratch = pl.AppendMessage(scratch[:0], msg, d)
	return esc.AppendEscaped(dst, scratch), scratch
}

// appendMessageEscaped is AppendMessageEscaped for the events whose
// message the plan escapes piece by piece (see appendMessageJSON); ok is
// false, and dst unchanged, for the others.
func (pl *JSONPlan) appendMessageEscaped(dst, scratch []byte, msg string, d *Decoded, esc MessageEscaper) (_, _ []byte, ok bool) {
	if pl == nil || pl.schema == nil || msg != pl.schema.Message || !pl.msgJSONValid || !pl.mine(d) {
		return dst, scratch, false
	}
	if pl.msgEscBy != esc || len(pl.msgEscSteps) != len(pl.msgOps) {
		pl.planMessageEscaped(esc)
	}
	var top []Value
	if len(d.Values) >= len(d.Schema.Properties) {
		top = d.Top()
	}
	n0 := len(dst)
	out := dst
	raw := 0 // bytes of the expansion so far (appendMessage's len(out))
	for k := range pl.msgEscSteps {
		// appendMessage's bound, as appendMessageJSON checks it.
		st := &pl.msgEscSteps[k]
		if raw >= MaxMessageBytes {
			return out[:n0], scratch, false
		}
		if st.piece < 0 || int(st.n) > len(top) {
			if st.piece == opEnd {
				break
			}
			// Literal text, or an insert of a value the event lacks.
			out = append(out, pl.msgEsc[st.start:st.end]...)
			raw += int(st.raw)
			continue
		}
		v, pp := &top[st.n-1], &pl.props[st.n-1]
		n := len(out)
		if v.Kind == Scalar && v.Prop == pp.prop && st.text {
			// Digits, a sign or "0x" and hex digits: nothing to
			// escape.
			var isInt bool
			if out, isInt = pp.appendText(out, v); isInt {
				raw += len(out) - n
				continue
			}
		}
		val, memo, hit := st.memo.holds(v, pp, d.PointerSize, raw)
		if hit {
			out = append(out, st.memo.json...)
			raw += st.memo.raw
			continue
		}
		out = pl.appendInsert(out, d, &pl.msg[st.piece], v, n+MaxMessageBytes-raw)
		r := len(out) - n
		raw += r
		if safe := n + esc.PlainLen(out[n:]); safe < len(out) {
			if !utf8.Valid(out[safe:]) {
				return out[:n0], scratch, false
			}
			scratch = append(scratch[:0], out[safe:]...)
			out = esc.AppendEscaped(out[:safe], scratch)
		}
		if memo {
			st.memo.keep(len(v.Data), val, d.PointerSize, r, raw, out[n:])
		}
	}
	if raw > MaxMessageBytes {
		return out[:n0], scratch, false
	}
	return out, scratch, true
}
