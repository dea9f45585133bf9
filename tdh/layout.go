package tdh

import (
	"unsafe"

	"github.com/etwkit/etw/internal/prefault"
)

// Most templates begin with fixed-size scalars (ids, sizes, addresses,
// flags), which lie at the same payload offsets in every event that holds
// them all. A [Decoder] keeps, per schema it decodes, where its leading
// run of such properties ends (layoutCache), and lays out that run of an
// event whose payload holds it whole in one loop: no test of each
// property's kind and size per event. The rest, and a payload too short
// for the run, take level's way, which gives the same values.
//
// The cache is keyed, as the name cache is, on the property array's
// address and length and on the pointer size, and holds the array, so
// that the address cannot be reused while cached; schemas are not changed
// once decoded with.

// layoutSlots sizes the cache, direct-mapped: net.4.5.2's schemas take
// 140-149 of the 512 slots, and a pass over its 179,473 decoded events
// fills a slot taken by another schema 90 to 990 times (five runs: the
// slots follow the schemas' addresses, which differ from run to run),
// each a walk of the schema's leading properties.
const (
	layoutBits  = 9
	layoutSlots = 1 << layoutBits
)

// layoutCache is a Decoder's cache of fixed runs; its slots are allocated
// at the first decode.
type layoutCache struct {
	slots *[layoutSlots]layoutEntry
	off   bool // no runs: every property through level (tests)
}

// layoutEntry is the fixed run of one property array for one pointer
// size; props is nil while empty.
type layoutEntry struct {
	props *Property // &props[0]
	n     int32     // len(props)
	ptr   int32     // pointer size
	// ends[i] is the payload offset where property i ends: the run is
	// props[:len(ends)], property i from ends[i-1] (0 for the first).
	ends []int32
}

// fixedRun returns the ends of the leading run of props whose values are
// fixed-size scalars (what level's fast path takes), for pointer size ptr.
func (c *layoutCache) fixedRun(props []Property, ptr int) []int32 {
	if len(props) == 0 || c.slots == nil {
		return c.fill(props, ptr)
	}
	p0 := &props[0]
	e := &c.slots[layoutSlot(p0, ptr)]
	if e.props != p0 || int(e.n) != len(props) || int(e.ptr) != ptr {
		return c.fill(props, ptr)
	}
	return e.ends
}

// layoutSlot returns the slot of the property array at p0 for pointer
// size ptr.
func layoutSlot(p0 *Property, ptr int) uint64 {
	h := uint64(uintptr(unsafe.Pointer(p0))) ^ uint64(ptr)
	return (h * 0x9E3779B97F4A7C15) >> (64 - layoutBits)
}

// fill works out fixedRun's answer for props and ptr and keeps it in its
// slot.
func (c *layoutCache) fill(props []Property, ptr int) []int32 {
	if len(props) == 0 || c.off {
		return nil
	}
	if c.slots == nil {
		c.slots = prefault.New[[layoutSlots]layoutEntry]() // probed before written
	}
	e := &c.slots[layoutSlot(&props[0], ptr)]
	e.props, e.n, e.ptr, e.ends = &props[0], int32(len(props)), int32(ptr), e.ends[:0]
	end := 0
	for i := range props {
		p := &props[i]
		n := 0
		if !p.IsArray {
			n = p.scalarSize(ptr)
		}
		if n <= 0 || end+n > 1<<30 {
			break
		}
		end += n
		e.ends = append(e.ends, int32(end))
	}
	return e.ends
}

// layRun lays out the properties props[:len(ends)] at the offsets ends
// gives into d.Values (each value whole: d.Values need not be cleared
// first), which the payload holds (ends' last is at most its length).
func (d *Decoded) layRun(props []Property, ends []int32) {
	payload := d.Payload
	vals := d.Values[:len(ends)]
	props = props[:len(ends)]
	off := 0
	for i, end := range ends {
		v := &vals[i]
		v.Prop, v.Kind, v.Data, v.Offset, v.First, v.N = &props[i], Scalar, payload[off:end], off, 0, 0
		off = int(end)
	}
}
