package decode

import "github.com/etwkit/etw/etl"

// PeekUint returns what Decode(ev) followed by Decoded.Uint(name) gives,
// when it can tell without decoding ev (see [tdh.Decoder.Peek]): for an
// event with a classic header (kernel and MOF events) and one candidate
// schema, whose property called name is among the schema's leading
// fixed-size scalars. found is Uint's ok; peeked is false when the caller
// must decode ev to know.
func (d *Decoder) PeekUint(ev *etl.Event, name string) (v uint64, found, peeked bool) {
	if ev.Flags&etl.FlagClassicHeader == 0 {
		// The candidates of other events may depend on the event itself
		// (an EventSource manifest registers its schemas).
		return 0, false, false
	}
	if _, tl, _ := d.tl.Schema(ev); tl {
		return 0, false, false
	}
	cands, _, err := d.candidates(ev)
	switch {
	case err != nil || len(cands) > 1:
		// Several candidates: Decode picks the first that fits.
		return 0, false, false
	case len(cands) == 0:
		return 0, false, true // no schema: nothing decoded
	}
	val, found, peeked := d.dec.Peek(cands[0].Schema, ev.UserData, ev.PointerSize(), name)
	if !found {
		return 0, false, peeked
	}
	v, found = val.Uint()
	return v, found, true
}
