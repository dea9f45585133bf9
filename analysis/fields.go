package analysis

import (
	"strings"

	"github.com/etwkit/etw/tdh"
)

// fieldSet looks up a fixed list of top-level properties of decoded
// events by their index in the list, for the kinds the model pass reads
// several properties of (the .NET method events: eight), remembering
// where each lies in the schemas of the last two it was asked about (the
// stack keys' references alternate between two): what
// [tdh.Decoded.Get] finds through its Decoder's cache of names, at a
// comparison of schemas and an index instead of a hashed lookup per
// name. One fieldSet serves one goroutine.
type fieldSet struct {
	names []string
	// The schemas, the most recent first, and per name its index in
	// their properties (propIndex): idx[w*len(names)+i].
	schema [2]*tdh.Event
	idx    []int32
}

func newFieldSet(names ...string) *fieldSet {
	return &fieldSet{names: names, idx: make([]int32, 2*len(names))}
}

// get returns d.Get(f.names[i]).
func (f *fieldSet) get(d *tdh.Decoded, i int) (*tdh.Value, bool) {
	if d == nil {
		return nil, false
	}
	n := len(f.names)
	switch s := d.Schema; {
	case s == nil: // (before schema[0], nil in a new fieldSet)
		return d.Get(f.names[i])
	case s == f.schema[0]:
	case s == f.schema[1]:
		f.schema[0], f.schema[1] = s, f.schema[0]
		a, b := f.idx[:n], f.idx[n:]
		for j := range a {
			a[j], b[j] = b[j], a[j]
		}
	default:
		f.schema[0], f.schema[1] = s, f.schema[0]
		copy(f.idx[n:], f.idx[:n])
		for j, name := range f.names {
			f.idx[j] = int32(propIndex(s.Properties, name))
		}
	}
	// Get's answer from its cache (tdh/lookup.go): none when the schema
	// has no such property; the value at the property's index when it
	// is the property's; otherwise Get scans.
	j := int(f.idx[i])
	if j < 0 {
		return nil, false
	}
	if props := d.Schema.Properties; j < len(d.Values) && d.Values[j].Prop == &props[j] {
		return &d.Values[j], true
	}
	return d.Get(f.names[i])
}

// uint returns d.Uint(f.names[i]).
func (f *fieldSet) uint(d *tdh.Decoded, i int) (uint64, bool) {
	v, ok := f.get(d, i)
	if !ok {
		return 0, false
	}
	return v.Uint()
}

// propIndex returns the index of the property Get finds called name
// among all of props: the first of that name, else the first of that
// name but for case, else -1.
func propIndex(props []tdh.Property, name string) int {
	fold := -1
	for i := range props {
		switch n := props[i].Name; {
		case n == name:
			return i
		case fold < 0 && strings.EqualFold(n, name):
			fold = i
		}
	}
	return fold
}
