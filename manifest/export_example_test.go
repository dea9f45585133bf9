package manifest_test

import (
	"fmt"
	"log"
	"os"

	"github.com/google/uuid"

	"github.com/etwkit/etw/manifest"
	"github.com/etwkit/etw/tdh"
)

func ExampleWriteXML() {
	result := &tdh.Map{Name: "ResultMap", Kind: tdh.ValueMap, Entries: []tdh.MapEntry{
		{Value: 0, Message: "Succeeded"}, {Value: 1, Message: "Failed"}}}
	schemas := []*tdh.Event{{
		ProviderName: "Example-Provider",
		ProviderGUID: uuid.MustParse("0f0e0d0c-0b0a-0908-0706-050403020100"),
		ID:           100, Version: 1,
		Level: 3, LevelName: "Warning",
		Task: 1, TaskName: "Download",
		Opcode: 10, OpcodeName: "Retry later",
		Keywords: 1, KeywordNames: []string{"Network"},
		EventName: "DownloadRetry",
		Message:   "Retrying %2: %3",
		Properties: []tdh.Property{
			{Name: "UrlLength", InType: tdh.InTypeUInt16, LengthIndex: -1, CountIndex: -1},
			{Name: "Url", InType: tdh.InTypeUnicodeString, LengthIndex: 0, CountIndex: -1},
			{Name: "Result", InType: tdh.InTypeUInt32, Map: result, LengthIndex: -1, CountIndex: -1},
			// A MOF-style trailing property that old producers leave out:
			// a manifest has no such thing, so it is written as a required
			// one and reported.
			{Name: "Detail", InType: tdh.InTypeUInt32, Optional: true, LengthIndex: -1, CountIndex: -1},
		},
	}}
	issues, err := manifest.WriteXML(os.Stdout, schemas)
	if err != nil {
		log.Fatal(err)
	}
	for _, is := range issues {
		fmt.Println(is)
	}
	// Output:
	// <?xml version="1.0" encoding="UTF-8"?>
	// <instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events" xmlns:win="http://manifests.microsoft.com/win/2004/08/windows/events" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:trace="http://schemas.microsoft.com/win/2004/08/events/trace">
	//   <instrumentation>
	//     <events>
	//       <provider name="Example-Provider" guid="{0F0E0D0C-0B0A-0908-0706-050403020100}" symbol="Example_Provider">
	//         <tasks>
	//           <task name="Download" value="1"/>
	//         </tasks>
	//         <opcodes>
	//           <opcode name="Retry_later" value="10" message="$(string.Example_Provider.opcode.Retry_later)"/>
	//         </opcodes>
	//         <keywords>
	//           <keyword name="Network" mask="0x1"/>
	//         </keywords>
	//         <maps>
	//           <valueMap name="ResultMap">
	//             <map value="0" message="$(string.Example_Provider.map.ResultMap.0)"/>
	//             <map value="1" message="$(string.Example_Provider.map.ResultMap.1)"/>
	//           </valueMap>
	//         </maps>
	//         <templates>
	//           <template tid="tid_DownloadRetry">
	//             <data name="UrlLength" inType="win:UInt16"/>
	//             <data name="Url" inType="win:UnicodeString" length="UrlLength"/>
	//             <data name="Result" inType="win:UInt32" map="ResultMap"/>
	//             <data name="Detail" inType="win:UInt32"/>
	//           </template>
	//         </templates>
	//         <events>
	//           <event value="100" version="1" level="win:Warning" task="Download" opcode="Retry_later" keywords="Network" template="tid_DownloadRetry" symbol="DownloadRetry" message="$(string.Example_Provider.event.100.v1)"/>
	//         </events>
	//       </provider>
	//     </events>
	//   </instrumentation>
	//   <localization>
	//     <resources culture="en-US">
	//       <stringTable>
	//         <string id="Example_Provider.map.ResultMap.0" value="Succeeded"/>
	//         <string id="Example_Provider.map.ResultMap.1" value="Failed"/>
	//         <string id="Example_Provider.event.100.v1" value="Retrying %2: %3"/>
	//         <string id="Example_Provider.opcode.Retry_later" value="Retry later"/>
	//       </stringTable>
	//     </resources>
	//   </localization>
	// </instrumentationManifest>
	// approximated: provider Example-Provider event 100 version 1 (DownloadRetry): field Detail: optional property written as a required one
}
