package tdh

// UseValues makes the next [Decoder.Decode] lay out its values in v's
// array, from v[0] (a larger array is allocated if the payload needs more
// than cap(v) values), instead of in the array the Decoder reuses: a
// caller that keeps many decodings at once (an arena per buffer of
// events) gives each its own part of one array.
func (dec *Decoder) UseValues(v []Value) { dec.out.Values = v[:0] }
