package tracelogging_test

import (
	"fmt"
	"net/netip"
	"time"

	"github.com/google/uuid"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/tdh"
	"github.com/etwkit/etw/tracelogging"
)

func ExampleProviderGUID() {
	fmt.Println(tracelogging.ProviderGUID("VanierEventSource"))
	fmt.Println(tracelogging.NameMatchesGUID("AmsiTrace", uuid.MustParse("8e805eb3-6a8f-4a1e-90fa-a831d94e54a1")))
	// Output:
	// b16a7b93-dd65-561c-90f3-eeae62570a8b
	// false
}

// Encode an event, then decode it as a consumer would.
func ExampleEvent_Encode() {
	ev := tracelogging.Event{Name: "Connect", Fields: []tracelogging.FieldValue{
		tracelogging.UnicodeString("Host", "example.org"),
		tracelogging.IPAddr("Address", netip.MustParseAddr("192.0.2.7")),
		tracelogging.Port("Port", 443),
		tracelogging.Uint32("Status", 5, tracelogging.WithOut(tracelogging.OutWin32Error)),
		tracelogging.FileTime("When", time.Date(2024, 1, 14, 7, 36, 10, 0, time.UTC)),
		tracelogging.Array("Retries", []uint16{10, 20}, tracelogging.Uint16),
	}}
	meta, payload, err := ev.Encode()
	if err != nil {
		panic(err)
	}
	m, err := tracelogging.ParseEventMetadata(meta)
	if err != nil {
		panic(err)
	}
	schema, err := tracelogging.Compile(m, "Example-Provider", tracelogging.ProviderGUID("Example-Provider"))
	if err != nil {
		panic(err)
	}
	var dec tdh.Decoder
	d, err := dec.Decode(schema, payload, 8)
	if err != nil {
		panic(err)
	}
	fmt.Println(schema.EventName, string(tdh.AppendPropertiesJSON(nil, d)))
	// Output:
	// Connect {"Host":"example.org","Address":"192.0.2.7","Port":443,"Status":"Access is denied.","When":"2024-01-14T07:36:10.0000000Z","Retries":[10,20]}
}

// Arrays of structs: elem makes one element from each value.
func ExampleArray() {
	type point struct{ X, Y int32 }
	pt := func(name string, p point, _ ...tracelogging.Option) tracelogging.FieldValue {
		return tracelogging.Struct(name, []tracelogging.FieldValue{
			tracelogging.Int32("X", p.X), tracelogging.Int32("Y", p.Y),
		})
	}
	f := tracelogging.Array("Path", []point{{1, 2}, {3, 4}}, pt)
	fmt.Printf("% x\n", f.Payload())
	// Output:
	// 02 00 01 00 00 00 02 00 00 00 03 00 00 00 04 00 00 00
}

// The extended items and user data an .etl writer puts in a record, and
// how a reader's Cache finds the schema again.
func ExampleEvent_ETLData() {
	ev := tracelogging.Event{Name: "AmsiScript", Fields: []tracelogging.FieldValue{
		tracelogging.UnicodeString("Engine", "VBScript"),
		tracelogging.UnicodeString("Script", "WScript.Echo 1"),
		tracelogging.Char16Array("Raw Script", "WScript.Echo 1"),
	}}
	ext, userData, err := ev.ETLData("AmsiTrace")
	if err != nil {
		panic(err)
	}
	rec := &etl.Event{
		ProviderID: tracelogging.ProviderGUID("AmsiTrace"),
		Descriptor: etl.EventDescriptor{Channel: tracelogging.ChannelTraceLogging, Level: 5},
		Extended:   ext,
		UserData:   userData,
	}
	for _, x := range ext {
		fmt.Printf("%v % x\n", x.Type, x.Data)
	}
	var c tracelogging.Cache
	s, _, err := c.Schema(rec)
	if err != nil {
		panic(err)
	}
	var dec tdh.Decoder
	d, _ := dec.Decode(s, rec.UserData, rec.PointerSize())
	fmt.Println(s.ProviderName, s.EventName, c.NameMatchesGUID(s), string(tdh.AppendPropertiesJSON(nil, d)))
	// Output:
	// prov_traits 0c 00 41 6d 73 69 54 72 61 63 65 00
	// event_schema_tl 2b 00 00 41 6d 73 69 53 63 72 69 70 74 00 45 6e 67 69 6e 65 00 01 53 63 72 69 70 74 00 01 52 61 77 20 53 63 72 69 70 74 00 c6 02
	// AmsiTrace AmsiScript true {"Engine":"VBScript","Script":"WScript.Echo 1","Raw Script":"WScript.Echo 1"}
}

// Damaged metadata gives an error naming the field.
func ExampleParseEventMetadata() {
	blob := []byte{0x12, 0x00, 0x00, 'E', 0, 'P', 'o', 'i', 'n', 't', 0, 0x98, 0x03, 'X', 0, 0x07, 'Y', 0}
	_, err := tracelogging.ParseEventMetadata(blob)
	fmt.Println(err)
	// Output:
	// tracelogging: event "E": field "Point.Y": metadata ends before the in-type (metadata offset 18)
}
