package mof

import (
	"sync"

	"github.com/etwkit/etw/tdh"
)

// Decoder lays out classic (MOF) payloads with a [tdh.Decoder]. The
// layouts themselves carry what MOF needs beyond a plain template walk —
// arrays that run to the end of the payload ([tdh.Property].ToEnd),
// optional trailing properties (Optional) and alternate layouts
// ([tdh.Event].Alternates) — so without Lenient a Decoder is a
// tdh.Decoder. With Lenient set it adds two repairs for payloads that no
// Windows kernel writes but synthetic test data does: the other pointer
// size, and a Sid whose TOKEN_USER pointer is null although a SID follows
// (see [Decoder.Lenient]).
//
// Like [tdh.Decoder], a Decoder reuses its storage and is not safe for
// concurrent use; decoding a payload that fits its schema allocates
// nothing once the Decoder is warm. The repaired Sid layouts are built
// once and kept, shared by all Decoders, for the life of the program.
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
	if res, ok := d.try(schema, payload, ptrSize); ok || !d.Lenient {
		if ok {
			return res, nil
		}
		return d.dec.Decode(schema, payload, ptrSize)
	}
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
	return d.dec.Decode(schema, payload, ptrSize)
}

// try decodes with schema and reports whether it fits exactly.
func (d *Decoder) try(schema *tdh.Event, payload []byte, ptrSize int) (*tdh.Decoded, bool) {
	res, err := d.dec.Decode(schema, payload, ptrSize)
	return res, err == nil && len(res.Extra) == 0
}

// variants caches the SID-repaired schemas; each is built once per
// schema and pointer size.
var variants = struct {
	sync.RWMutex
	m map[variantKey]*tdh.Event
}{m: map[variantKey]*tdh.Event{}}

type variantKey struct {
	s    *tdh.Event
	kind uint8 // variantSID
	n    int   // pointer size
}

const variantSID uint8 = 1

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
