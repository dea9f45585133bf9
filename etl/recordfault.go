package etl

import "fmt"

// recordFault says why bytes are not a record. It is a value, formatted
// only when the fault is reported ([recordFault.message]): the search for
// the next record after a damaged one tries every 8-byte position, and a
// position that is not a record must cost no allocation. The zero value
// is no fault.
type recordFault struct {
	kind          faultKind
	t             HeaderType
	a, b, c, d, e int
	what          string
}

type faultKind uint8

const (
	faultNone        faultKind = iota
	faultShort                 // a: bytes left
	faultMessageSize           // a: size, b: minimum
	faultNoMarker              // a: first dword
	faultUnknownType           // a: header type, b: first dword
	faultSize                  // t; a: size, b: minimum
	faultPEBS                  // t; a: record size
	faultPMC                   // t; a: record size, b: counters
	faultInstance              // t; a: record size, b: header size
	faultExtEnd                // a: item offset, b: record size
	faultExtItem               // a: item type, b: offset, c: size, d: data size, e: record size
	faultExtCount              // a: the limit
	faultMessage               // a: record size, what, b: offset
	faultRecordType            // a: header type
	faultPastData              // a: record size, b: bytes left
)

// message returns what the fault says of the record.
func (f *recordFault) message() string {
	switch f.kind {
	case faultNone:
		return ""
	case faultShort:
		return fmt.Sprintf("%d bytes left, too few for a record header", f.a)
	case faultMessageSize:
		return fmt.Sprintf("message record size %d below minimum %d", f.a, f.b)
	case faultNoMarker:
		return fmt.Sprintf("no trace header marker (first dword %#08x)", f.a)
	case faultUnknownType:
		return fmt.Sprintf("unknown record header type %#02x (first dword %#08x)", f.a, f.b)
	case faultSize:
		return fmt.Sprintf("%v record size %d below minimum %d", f.t, f.a, f.b)
	case faultPEBS:
		return fmt.Sprintf("%v record of %d bytes too short for its PEBS index", f.t, f.a)
	case faultPMC:
		return fmt.Sprintf("%v record of %d bytes too short for %d PMC counters", f.t, f.a, f.b)
	case faultInstance:
		return fmt.Sprintf("%v record of %d bytes shorter than its %d-byte header", f.t, f.a, f.b)
	case faultExtEnd:
		return fmt.Sprintf("extended item at +%#x runs past the record end (+%#x)", f.a, f.b)
	case faultExtItem:
		return fmt.Sprintf("extended item type %d at +%#x: size %d, data size %d, record size %d", f.a, f.b, f.c, f.d, f.e)
	case faultExtCount:
		return fmt.Sprintf("more than %d extended items", f.a)
	case faultMessage:
		return fmt.Sprintf("message record of %d bytes too short for its %s at +%#x", f.a, f.what, f.b)
	case faultRecordType:
		return fmt.Sprintf("unknown record header type %#02x", f.a)
	case faultPastData:
		return fmt.Sprintf("record of %d bytes runs past the end of the buffer data (%d bytes left)", f.a, f.b)
	}
	return fmt.Sprintf("record fault %d", f.kind)
}
