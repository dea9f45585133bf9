package tdh

import (
	"math"
	"strings"
	"unsafe"

	"github.com/etwkit/etw/internal/prefault"
)

// Lookups by name are what programs that read decoded events do most: the
// analysis model asks each event for the same few names ("ProcessId",
// "ThreadId", "StackProcess", …) on events of the same few schemas. A
// scan of the names costs a string comparison per property, and a second,
// case-folded scan when the schema lacks the name. A [Decoder] therefore
// keeps, for the [Decoded] it produces, a small cache of where each name
// was found in each schema, so that a repeated lookup costs a few
// comparisons and an index.
//
// The cache is keyed on the schema's property array (its address and
// length: a copy of an Event with other Properties is another key) and on
// the name's bytes (address and length: callers pass constants), and it
// holds both, so neither can be reused for something else while cached.
// Schemas are not changed once decoded with (they are shared between
// goroutines), so what was found in a property array stays true.
//
// An entry records what [Decoded.Get] would find in a whole decode of the
// schema: the first property named name exactly, else the first named so
// ignoring case ([strings.EqualFold]), else none. It is used only where a scan of the
// decoded event is sure to give the same:
//
//   - none: no property of the schema matches, so none of a partial
//     decode's either;
//   - index i, when the event holds property i (i below the properties
//     present and its value decoded): the values before it are the
//     schema's own properties (or not decoded), so no earlier value
//     matches better, as the schema's scan found.
//
// Otherwise (the match lies past a partial decode's end: a case-folded
// match before it may then be the answer) the lookup scans the event's
// values as it always did.

// nameSetBits and nameWays size the cache: 1<<nameSetBits sets of
// nameWays entries, the most recently filled or found first. The stats
// command's model pass over net.4.5.2 looks up 82 (schema, name) pairs:
// with 256 entries, direct-mapped, pairs that share a slot took turns
// (7,920 refills), and two ways a set still gave 279 refills in one run
// and 10,749 in another (three hot pairs in a set: where they fall
// depends on the addresses). Four ways of 128 sets hold them all.
const (
	nameSetBits = 7
	nameSets    = 1 << nameSetBits
	nameWays    = 4
)

// nameCache is a cache of name lookups, owned by one Decoder (so used by
// one goroutine at a time). Its entries are allocated at the first
// lookup: Decoders that only render events do without.
type nameCache struct {
	sets *[nameSets][nameWays]nameEntry
}

// nameEntry is one entry of the cache; props is nil while empty.
type nameEntry struct {
	props *Property // &schema.Properties[0]
	name  string
	n     int32 // len(schema.Properties)
	idx   int32 // index of the match in the schema's properties, -1 for none
}

// nameSet returns the set of the cache for name in the schema whose first
// property is p0.
func nameSet(p0 *Property, name string) uintptr {
	h := uintptr(unsafe.Pointer(p0))>>3 ^ uintptr(unsafe.Pointer(unsafe.StringData(name)))
	return uintptr(uint64(h)*0x9E3779B97F4A7C15) >> (64 - nameSetBits)
}

// is reports whether e is the entry of name in props.
func (e *nameEntry) is(props []Property, name string) bool {
	return e.props == &props[0] && unsafe.StringData(e.name) == unsafe.StringData(name) && len(e.name) == len(name) && int(e.n) == len(props)
}

// find returns the top-level value called name as Get does when its
// cache does not answer: it fills the cache when d has one (the entry
// found or made goes first in its set), and scans d's values when the
// cached answer does not hold for d.
func (d *Decoded) find(name string) (*Value, bool) {
	top := d.Top()
	var i int
	if d.names != nil && d.Schema != nil && len(d.Schema.Properties) >= len(top) && len(d.Schema.Properties) > 0 && len(d.Schema.Properties) <= math.MaxInt32 {
		props := d.Schema.Properties
		i = d.names.index(props, name)
		if i >= 0 && (i >= len(top) || top[i].Prop != &props[i]) {
			i = scanNames(top, name)
		}
	} else {
		i = scanNames(top, name)
	}
	if i < 0 {
		return nil, false
	}
	return &top[i], true
}

// index returns schemaIndex(props, name) (props not empty, at most
// math.MaxInt32 of them) through the cache: the entry found or made goes
// first in its set.
func (c *nameCache) index(props []Property, name string) int {
	if c.sets == nil {
		c.sets = prefault.New[[nameSets][nameWays]nameEntry]() // probed before written
	}
	set := &c.sets[nameSet(&props[0], name)]
	if set[0].is(props, name) {
		return int(set[0].idx) // the most recent: in place
	}
	w := 1
	for w < nameWays-1 && !set[w].is(props, name) {
		w++
	}
	e := set[w]
	if !e.is(props, name) { // w is the last way: its entry goes
		e = nameEntry{props: &props[0], name: name, n: int32(len(props)), idx: int32(schemaIndex(props, name))}
	}
	copy(set[1:w+1], set[:w])
	set[0] = e
	return int(e.idx)
}

// schemaIndex is what scanNames finds among all of props.
func schemaIndex(props []Property, name string) int {
	for i := range props {
		if props[i].Name == name {
			return i
		}
	}
	for i := range props {
		if strings.EqualFold(props[i].Name, name) {
			return i
		}
	}
	return -1
}

// scanNames returns the index of the first value of top whose property is
// named name exactly, else of the first named so ignoring case, else -1.
func scanNames(top []Value, name string) int {
	for i := range top {
		if p := top[i].Prop; p != nil && p.Name == name {
			return i
		}
	}
	for i := range top {
		if p := top[i].Prop; p != nil && strings.EqualFold(p.Name, name) {
			return i
		}
	}
	return -1
}
