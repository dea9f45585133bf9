package mof_test

import (
	"encoding/binary"
	"fmt"
	"strings"
	"unicode/utf16"

	"github.com/etwkit/etw/mof"
	"github.com/etwkit/etw/tdh"
)

// Compile a provider's MOF classes, register them next to the built-in
// kernel schemas and decode a classic event.
func Example() {
	const src = `
[Guid("{5c1f6d8a-0d3b-4b7e-9d8e-1f2a3b4c5d6e}"), EventVersion(1), DisplayName("Job")]
class MyJob : EventTrace { };

[EventType{1, 2}, EventTypeName{"Start", "Stop"}]
class MyJob_TypeGroup1 : MyJob
{
    [WmiDataId(1), format("x")] uint32 JobId;
    [WmiDataId(2), StringTermination("NullTerminated"), format("w")] string Name;
    [WmiDataId(3), extension("Port")] object Port;
};`
	file, err := mof.Parse(strings.NewReader(src), "myjob.mof")
	if err != nil {
		panic(err)
	}
	schemas, errs := file.Schemas()
	reg := tdh.NewRegistry()
	reg.Add(schemas...)
	mof.RegisterKernel(reg)
	fmt.Println(len(schemas), "schemas,", len(errs), "errors")

	// The payload of a Start event: JobId 0x2A, Name "backup", Port 8080.
	payload := binary.LittleEndian.AppendUint32(nil, 0x2A)
	for _, u := range utf16.Encode([]rune("backup\x00")) {
		payload = binary.LittleEndian.AppendUint16(payload, u)
	}
	payload = binary.BigEndian.AppendUint16(payload, 8080)

	// Classic events are looked up by class GUID, event type and version.
	s, _ := reg.Lookup(schemas[0].ProviderGUID, 1, 1)
	var dec mof.Decoder
	d, err := dec.Decode(s, payload, 8)
	if err != nil {
		panic(err)
	}
	fmt.Println(s.EventName+"/"+s.OpcodeName, string(tdh.AppendPropertiesJSON(nil, d)))
	// Output:
	// 2 schemas, 0 errors
	// Job/Start {"JobId":"0x2A","Name":"backup","Port":8080}
}
