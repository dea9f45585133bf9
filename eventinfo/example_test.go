package eventinfo_test

import (
	"encoding/binary"
	"fmt"
	"unicode/utf16"

	"github.com/google/uuid"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/eventinfo"
	"github.com/etwkit/etw/tdh"
)

// exampleProvider is the provider of the example's event.
var exampleProvider = uuid.MustParse("4d4f80d9-c8bd-4d73-bb5b-19c90402c5ac")

// wstr appends s as a NUL-terminated UTF-16LE string and returns its
// offset.
func wstr(b *[]byte, s string) uint32 {
	off := uint32(len(*b))
	for _, c := range utf16.Encode([]rune(s)) {
		*b = binary.LittleEndian.AppendUint16(*b, c)
	}
	*b = append(*b, 0, 0)
	return off
}

// traceEventInfo lays out the TRACE_EVENT_INFO that TdhGetEventInformation
// returns for event 20 of the provider: {UInt16 Id; UInt16 Type (map
// "ComponentType"); UnicodeString Name}. KernelTraceControl logs it as the
// payload of a MetaData EventInfo event.
func traceEventInfo() []byte {
	le := binary.LittleEndian
	b := make([]byte, 112+3*24)
	etl.PutGUIDWindows(b[0:], exampleProvider)
	le.PutUint16(b[32:], 20) // EventDescriptor.Id
	b[36] = 4                // Level
	le.PutUint32(b[48:], 0)  // DecodingSource: manifest
	// Strings go after the fixed part and the property array (wstr may
	// move b: take each offset before writing it).
	provider := wstr(&b, "Microsoft-Windows-PktMon")
	message := wstr(&b, "Component %1, Type %2, Name %3 ")
	le.PutUint32(b[52:], provider) // ProviderNameOffset
	le.PutUint32(b[76:], message)  // EventMessageOffset
	le.PutUint32(b[100:], 3)       // PropertyCount
	le.PutUint32(b[104:], 3)       // TopLevelPropertyCount
	props := []struct {
		name, mapName string
		in, out       uint16
		length        uint16
	}{{"Id", "", 6, 6, 2}, {"Type", "ComponentType", 6, 6, 2}, {"Name", "", 1, 1, 0}}
	for i, p := range props {
		e := 112 + 24*i
		nameOff := wstr(&b, p.name)
		var mapOff uint32
		if p.mapName != "" {
			mapOff = wstr(&b, p.mapName)
		}
		le.PutUint32(b[e+4:], nameOff)
		le.PutUint16(b[e+8:], p.in)
		le.PutUint16(b[e+10:], p.out)
		le.PutUint32(b[e+12:], mapOff)
		le.PutUint16(b[e+16:], 1) // count
		le.PutUint16(b[e+18:], p.length)
	}
	return b
}

// eventMapInfo lays out a MetaData EventMapInfo payload: the provider GUID,
// then the EVENT_MAP_INFO of value map "ComponentType".
func eventMapInfo() []byte {
	le := binary.LittleEndian
	m := make([]byte, 16+2*8)
	name := wstr(&m, "ComponentType")
	le.PutUint32(m[0:], name) // NameOffset, from the EVENT_MAP_INFO
	le.PutUint32(m[4:], 1)    // EVENTMAP_INFO_FLAG_MANIFEST_VALUEMAP
	le.PutUint32(m[8:], 2)    // EntryCount
	for i, text := range []string{"NDIS ", "Miniport "} {
		off := wstr(&m, text)
		le.PutUint32(m[16+8*i:], off)
		le.PutUint32(m[16+8*i+4:], uint32(i+1))
	}
	b := make([]byte, 16, 16+len(m))
	etl.PutGUIDWindows(b, exampleProvider)
	return append(b, m...)
}

// A Set turns the MetaData events of a trace into schemas. Here the two
// payloads are built by hand; in a real program each event of the trace
// goes to Set.AddEvent.
func Example() {
	set := eventinfo.NewSet()
	if err := set.AddEventInfo(traceEventInfo()); err != nil {
		fmt.Println(err)
		return
	}
	if err := set.AddMapInfo(eventMapInfo()); err != nil { // maps may come later
		fmt.Println(err)
		return
	}
	schemas, problems := set.Schemas()
	fmt.Println(len(schemas), "schema,", len(problems), "problems")

	reg := tdh.NewRegistry()
	reg.Add(schemas...)
	s, _ := reg.Lookup(exampleProvider, 20, 0)

	// A payload of event 20: Id 3, Type 2, Name "eth0".
	payload := binary.LittleEndian.AppendUint16(nil, 3)
	payload = binary.LittleEndian.AppendUint16(payload, 2)
	wstr(&payload, "eth0")

	var dec tdh.Decoder
	d, err := dec.Decode(s, payload, 8)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s.ProviderName, s.ID)
	fmt.Println(string(tdh.AppendPropertiesJSON(nil, d)))
	fmt.Println(tdh.FormatMessage(s.Message, d, nil))
	// Output:
	// 1 schema, 0 problems
	// Microsoft-Windows-PktMon 20
	// {"Id":3,"Type":"Miniport","Name":"eth0"}
	// Component 3, Type Miniport, Name eth0
}
