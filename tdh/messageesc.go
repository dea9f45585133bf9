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

const (
	opLiteral = -1 - iota // escStep.piece: no insert (the message's last text)
	opEnd                 // the end (%0)
)

// insertMemo is what a step of a plan's message wrote for the last scalar
// it inserted the way of appendInsert: the value's size and bytes and the
// pointer size, the insert's bytes before escaping (raw) and its text,
// escaped.
type insertMemo struct {
	size, ptr int // size 0: none
	val       uint64
	raw       int
	text      []byte
}

// maxInsertMemo bounds the text an insertMemo keeps.
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
		m.text = append(m.text[:0], text...)
	}
}

// planMessage checks that the message's text is valid UTF-8 (msgValid):
// pieces escaped apart give the whole text's escape only then. (Reset has
// dropped what the plan made of its message for an escaper.)
func (pl *JSONPlan) planMessage() {
	pl.msgValid = true
	for i := range pl.msg {
		pl.msgValid = pl.msgValid && utf8.ValidString(pl.msg[i].text)
	}
}

// escStep is a step of a plan's message escaped by the plan's msgEscBy:
// a run of literal pieces (maybe none), escaped in msgEsc[lit:ins], then
// an insert (its index in the plan's pieces, its number and whether it
// inserts its text as it is: textSpec), the end (%0: piece opEnd) or
// nothing more (the message's last step: piece opLiteral). The insert as
// written, for an event without its value, is msgEsc[ins:end]. litRaw
// and insRaw are the two texts' bytes before escaping.
type escStep struct {
	lit, ins, end  int32
	litRaw, insRaw int32
	piece          int32
	n              int32
	text           bool
	memo           insertMemo // its last scalar insert, escaped (see insertMemo)
}

// planMessageEscaped escapes the text of the plan's message with esc
// into msgEsc and makes its steps (msgEscSteps).
func (pl *JSONPlan) planMessageEscaped(esc MessageEscaper) {
	pl.msgEscBy, pl.msgEsc, pl.msgEscSteps = esc, pl.msgEsc[:0], pl.msgEscSteps[:0]
	st := pl.newEscStep()
	for i := range pl.msg {
		m := &pl.msg[i]
		if isLiteral(m) {
			pl.msgEsc = esc.AppendEscaped(pl.msgEsc, []byte(m.text))
			st.litRaw += int32(len(m.text))
			continue
		}
		st.ins = int32(len(pl.msgEsc))
		if m.end {
			st.piece = opEnd
			st.end = st.ins
			return
		}
		pl.msgEsc = esc.AppendEscaped(pl.msgEsc, []byte(m.text))
		st.end, st.insRaw = int32(len(pl.msgEsc)), int32(len(m.text))
		st.piece, st.n, st.text = int32(i), int32(m.n), textSpec(m.spec)
		st = pl.newEscStep()
	}
	st.ins, st.end = int32(len(pl.msgEsc)), int32(len(pl.msgEsc))
}

// newEscStep appends a step whose literal text starts at msgEsc's end,
// the message's last so far (opLiteral), and returns it.
func (pl *JSONPlan) newEscStep() *escStep {
	k := len(pl.msgEscSteps)
	var keep []byte // the memo's storage, kept
	if k < cap(pl.msgEscSteps) {
		keep = pl.msgEscSteps[:k+1][k].memo.text[:0]
	}
	pl.msgEscSteps = append(pl.msgEscSteps, escStep{lit: int32(len(pl.msgEsc)), piece: opLiteral, memo: insertMemo{text: keep}})
	return &pl.msgEscSteps[k]
}

// wideEscaper is a MessageEscaper that converts a UTF-16 string and
// escapes it in one pass: appendWidePlain appends the text of b and
// reports whether it escaped nothing (else dst is returned as it was).
type wideEscaper interface {
	appendWidePlain(dst, b []byte) ([]byte, bool)
}

// isLiteral reports whether m is literal text.
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
// message the plan escapes piece by piece; ok is
// false, and dst unchanged, for the others.
func (pl *JSONPlan) appendMessageEscaped(dst, scratch []byte, msg string, d *Decoded, esc MessageEscaper) (_, _ []byte, ok bool) {
	if pl == nil || pl.schema == nil || msg != pl.schema.Message || !pl.msgValid || !pl.mine(d) {
		return dst, scratch, false
	}
	if pl.msgEscBy != esc {
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
		// appendMessage cuts the expansion before a piece once it has
		// MaxMessageBytes: checked before a run of literal pieces and
		// before what follows it; a literal piece within a run that
		// passes the bound makes raw larger than it, which the next
		// check or the end sees.
		st := &pl.msgEscSteps[k]
		if raw >= MaxMessageBytes {
			return out[:n0], scratch, false
		}
		out = append(out, pl.msgEsc[st.lit:st.ins]...)
		raw += int(st.litRaw)
		if st.piece < 0 {
			if st.piece == opEnd && raw >= MaxMessageBytes {
				return out[:n0], scratch, false
			}
			break // the end, or the message's last literal text
		}
		if raw >= MaxMessageBytes {
			return out[:n0], scratch, false
		}
		if int(st.n) > len(top) {
			// An insert of a value the event lacks, as written.
			out = append(out, pl.msgEsc[st.ins:st.end]...)
			raw += int(st.insRaw)
			continue
		}
		v, pp := &top[st.n-1], &pl.props[st.n-1]
		n := len(out)
		if v.Kind == Scalar && v.Prop == pp.prop && st.text {
			if pp.wide {
				// A UTF-16 string, converted and escaped in one
				// pass where the escaper can, when that escapes
				// nothing (else the way below).
				if w, ok := esc.(wideEscaper); ok {
					var plain bool
					if out, plain = w.appendWidePlain(out, v.Data); plain {
						raw += len(out) - n
						continue
					}
				}
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
		val, memo, hit := st.memo.holds(v, pp, d.PointerSize, raw)
		if hit {
			out = append(out, st.memo.text...)
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
