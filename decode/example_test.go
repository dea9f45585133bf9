package decode_test

import (
	"fmt"
	"log"

	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/tdh"
)

// Decode every event of a file: kernel classes are built in, TraceLogging
// events carry their schema, and Import adds manifests, MOF or TMF files.
func Example() {
	f, err := etl.Open("../testdata/etl/sample.etl")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	dec := decode.New()
	r := etl.NewReader([]*etl.File{f}, nil)
	defer r.Close()
	for r.Next() {
		res := dec.Decode(r.Event())
		if res.Schema == nil || res.Err != nil || res.Schema.EventName == "EventTrace" {
			continue
		}
		fmt.Println(res.Schema.ProviderName, res.Schema.EventName, res.Schema.OpcodeName, string(tdh.AppendPropertiesJSON(nil, res.Decoded)))
	}
	// Output:
	// MSNT_SystemTrace Process Start {"UniqueProcessKey":"0xFFFF8A0F1E2D3C40","ProcessId":"0x344","ParentId":"0x1F0","SessionId":1,"ExitStatus":259,"DirectoryTableBase":"0x1AB000","UserSID":"S-1-5-18","ImageFileName":"notepad.exe","CommandLine":"notepad.exe C:\\notes.txt"}
	// MSNT_SystemTrace PerfInfo SampleProf {"InstructionPointer":"0xFFFFF8012345ABCD","ThreadId":4660,"Count":1,"Reserved":0}
	// etwkit-shop Checkout  {"Item":"coffee","Quantity":2,"Paid":true,"Port":443}
}
