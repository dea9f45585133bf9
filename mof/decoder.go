package mof

import (
	"sync"

	"github.com/etwkit/etw/tdh"
)

// Decoder lays out classic (MOF) payloads with a [tdh.Decoder], adding
// what MOF layouts need beyond a plain template walk:
//
//   - An array declared "Name[]" with neither WmiSizeIs nor MAX (a
//     [tdh.Property] with IsArray, Count 0 and CountIndex -1) as the last
//     property takes the rest of the payload: its count is the number of
//     whole elements that fit after the fixed-size properties before it
//     (StackWalk key frames, LBR entries).
//   - A built-in layout marked as having optional trailing properties
//     (StackWalk Stack: Stack1…Stack192) decodes the properties the
//     payload holds.
//   - When the payload does not fit the schema exactly, the schema's
//     [Alternates] are tried (EventTrace PartitionInfoExtensionV2).
//   - With Lenient set, two repairs for payloads that no Windows kernel
//     writes but synthetic test data does: the other pointer size, and a
//     Sid whose TOKEN_USER pointer is null although a SID follows (see
//     [Decoder.Lenient]).
//
// The first layout that consumes the payload exactly wins; when none does
// the result and error are those of the schema as given. Like
// [tdh.Decoder], a Decoder reuses its storage and is not safe for
// concurrent use; decoding a payload that fits its schema allocates
// nothing once the Decoder is warm. The derived layouts (an array count,
// a shortened stack, a repaired Sid) are built once and kept, shared by
// all Decoders, for the life of the program.
type Decoder struct {
	dec tdh.Decoder
	// Lenient enables the repairs for synthetic payloads:
	//
	//   - If the payload does not fit with the given pointer size, the
	//     other one (4 ↔ 8) is tried. Test data written with the layouts
	//     of the other architecture needs it (google/syzygy's kernel log
	//     test files hold 64-bit payloads in FULL_HEADER32 records of a
	//     log with PointerSize 4). The guess is weak: a payload may fit
	//     both sizes (most of syzygy's 64-bit Image v0 events also fit the
	//     32-bit layout, with garbled names), so pass the right size when
	//     it is known from elsewhere.
	//   - A WBEMSID (extension "Sid") whose first 32 bits are 0 is read by
	//     TDH as a 4-byte null SID. Producers that zero the TOKEN_USER part
	//     but still append the SID (syzygy again) need it read as
	//     TOKEN_USER (2 × pointer size) + SID.
	Lenient bool
}

// Decode lays out payload according to schema (see [Decoder]). ptrSize
// (4 or 8) sizes pointer-sized properties. The result is valid until the
// next call; on error it holds the properties decoded before the failing
// one and the error is a [*tdh.DecodeError].
func (d *Decoder) Decode(schema *tdh.Event, payload []byte, ptrSize int) (*tdh.Decoded, error) {
	if ptrSize != 4 {
		ptrSize = 8
	}
	if res, ok := d.try(schema, payload, ptrSize); ok {
		return res, nil
	}
	for _, alt := range Alternates(schema) {
		if res, ok := d.try(alt, payload, ptrSize); ok {
			return res, nil
		}
	}
	if d.Lenient {
		other := 12 - ptrSize
		if sv := sidVariant(schema, ptrSize); sv != nil {
			if res, ok := d.try(sv, payload, ptrSize); ok {
				return res, nil
			}
		}
		if hasPointerSized(schema.Properties) {
			if res, ok := d.try(schema, payload, other); ok {
				return res, nil
			}
			if sv := sidVariant(schema, other); sv != nil {
				if res, ok := d.try(sv, payload, other); ok {
					return res, nil
				}
			}
		}
	}
	return d.dec.Decode(shape(schema, payload, ptrSize), payload, ptrSize)
}

// try decodes with schema shaped for the payload and reports whether it
// fits exactly.
func (d *Decoder) try(schema *tdh.Event, payload []byte, ptrSize int) (*tdh.Decoded, bool) {
	res, err := d.dec.Decode(shape(schema, payload, ptrSize), payload, ptrSize)
	return res, err == nil && len(res.Extra) == 0
}

// variants caches the derived schemas (shaped, SID-repaired); each is
// built once per schema and shape.
var variants = struct {
	sync.RWMutex
	m map[variantKey]*tdh.Event
}{m: map[variantKey]*tdh.Event{}}

type variantKey struct {
	s    *tdh.Event
	kind uint8 // variantTail, variantRest, variantSID
	n    int   // property count, element count, or pointer size
}

const (
	variantTail uint8 = iota + 1
	variantRest
	variantSID
)

func variant(k variantKey, build func() *tdh.Event) *tdh.Event {
	variants.RLock()
	v, ok := variants.m[k]
	variants.RUnlock()
	if ok {
		return v
	}
	v = build()
	variants.Lock()
	if old, ok := variants.m[k]; ok {
		v = old
	} else {
		variants.m[k] = v
	}
	variants.Unlock()
	return v
}

// tailSchemas are the built-in layouts whose trailing properties may be
// missing from a payload (filled by compileTable).
var tailSchemas = map[*tdh.Event]bool{}

// shape returns the schema to decode payload with: s itself, or a
// variant with the trailing properties the payload lacks removed (tail
// layouts), or with the count of a trailing rest-of-payload array set.
func shape(s *tdh.Event, payload []byte, ptrSize int) *tdh.Event {
	props := s.Properties
	if len(props) == 0 {
		return s
	}
	builtin() // tailSchemas is filled with the table
	if tailSchemas[s] {
		n, size := 0, 0
		for i := range props {
			sz := fixedSize(&props[i], ptrSize)
			if sz <= 0 || size+sz > len(payload) {
				break
			}
			size += sz
			n++
		}
		if n == len(props) {
			return s
		}
		return variant(variantKey{s, variantTail, n}, func() *tdh.Event {
			v := *s
			v.Properties = props[:n:n]
			return &v
		})
	}
	last := &props[len(props)-1]
	if !last.IsArray || last.Count != 0 || last.CountIndex >= 0 {
		return s
	}
	elem := elemSize(last, ptrSize)
	if elem <= 0 {
		return s
	}
	size := 0
	for i := range props[:len(props)-1] {
		sz := fixedSize(&props[i], ptrSize)
		if sz <= 0 {
			return s
		}
		size += sz
	}
	if size > len(payload) {
		return s
	}
	n := (len(payload) - size) / elem
	if n == 0 {
		return s
	}
	if n > 0xFFFF {
		n = 0xFFFF
	}
	return variant(variantKey{s, variantRest, n}, func() *tdh.Event {
		v := *s
		v.Properties = append([]tdh.Property(nil), props...)
		v.Properties[len(props)-1].Count = uint16(n)
		return &v
	})
}

// fixedSize returns the payload size of a property whose size does not
// depend on the payload (scalars of fixed size, fixed-length binary,
// fixed-count arrays and structs of such), or 0.
func fixedSize(p *tdh.Property, ptrSize int) int {
	if p.LengthIndex >= 0 || p.CountIndex >= 0 {
		return 0
	}
	n := elemSize(p, ptrSize)
	if !p.IsArray || n <= 0 {
		return n
	}
	if p.Count == 0 {
		return 0
	}
	return n * int(p.Count)
}

// elemSize returns the size of one element of p, or 0 if it varies.
func elemSize(p *tdh.Property, ptrSize int) int {
	if p.IsStruct() {
		total := 0
		for i := range p.Members {
			n := fixedSize(&p.Members[i], ptrSize)
			if n <= 0 {
				return 0
			}
			total += n
		}
		return total
	}
	if p.LengthIndex >= 0 {
		return 0
	}
	switch p.InType {
	case tdh.InTypeBinary:
		return int(p.Length)
	case tdh.InTypeUnicodeString:
		return 2 * int(p.Length)
	case tdh.InTypeAnsiString:
		return int(p.Length)
	case tdh.InTypeUnicodeChar, tdh.InTypeAnsiChar:
		if p.Length > 0 {
			return int(p.Length) * p.InType.FixedSize(ptrSize)
		}
	}
	return p.InType.FixedSize(ptrSize)
}

// hasPointerSized reports whether any property's size follows the pointer
// size.
func hasPointerSized(props []tdh.Property) bool {
	for i := range props {
		p := &props[i]
		switch p.InType {
		case tdh.InTypePointer, tdh.InTypeSizeT, tdh.InTypeWBEMSID:
			return true
		}
		if hasPointerSized(p.Members) {
			return true
		}
	}
	return false
}

// sidVariant returns s with every top-level WBEMSID property split into a
// hidden TOKEN_USER (2 × ptrSize bytes, NoPrint) and the SID itself, or
// nil when s has no WBEMSID property.
func sidVariant(s *tdh.Event, ptrSize int) *tdh.Event {
	has := false
	for i := range s.Properties {
		if s.Properties[i].InType == tdh.InTypeWBEMSID && !s.Properties[i].IsArray {
			has = true
			break
		}
	}
	if !has {
		return nil
	}
	return variant(variantKey{s, variantSID, ptrSize}, func() *tdh.Event {
		v := *s
		// newIndex[i] is the index of old property i in the variant.
		newIndex := make([]int, len(s.Properties))
		var props []tdh.Property
		for i, p := range s.Properties {
			if p.InType == tdh.InTypeWBEMSID && !p.IsArray {
				props = append(props, tdh.Property{
					Name: p.Name + "TokenUser", InType: tdh.InTypeBinary, OutType: tdh.OutTypeNoPrint,
					Length: uint16(2 * ptrSize), LengthIndex: -1, CountIndex: -1,
				})
				p.InType = tdh.InTypeSID
			}
			newIndex[i] = len(props)
			props = append(props, p)
		}
		for i := range props {
			p := &props[i]
			if p.LengthIndex >= 0 && p.LengthIndex < len(newIndex) {
				p.LengthIndex = newIndex[p.LengthIndex]
			}
			if p.CountIndex >= 0 && p.CountIndex < len(newIndex) {
				p.CountIndex = newIndex[p.CountIndex]
			}
		}
		v.Properties = props
		return &v
	})
}
