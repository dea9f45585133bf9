package manifest_test

import (
	"fmt"
	"log"
	"strings"

	"github.com/google/uuid"

	"github.com/etwkit/etw/manifest"
)

func Example() {
	const src = `<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"
    xmlns:win="http://manifests.microsoft.com/win/2004/08/windows/events">
  <instrumentation><events>
    <provider name="Example-Provider" guid="{0f0e0d0c-0b0a-0908-0706-050403020100}">
      <tasks>
        <task name="Download" value="1">
          <opcodes><opcode name="Retry" value="10" message="$(string.retry)"/></opcodes>
        </task>
      </tasks>
      <keywords><keyword name="Network" mask="0x1"/></keywords>
      <maps>
        <valueMap name="ResultMap">
          <map value="0" message="$(string.ok)"/>
          <map value="1" message="$(string.failed)"/>
        </valueMap>
      </maps>
      <templates>
        <template tid="DownloadArgs">
          <data name="UrlLength" inType="win:UInt16"/>
          <data name="Url" inType="win:UnicodeString" length="UrlLength"/>
          <data name="Result" inType="win:UInt32" map="ResultMap"/>
        </template>
      </templates>
      <events>
        <event value="100" version="1" level="win:Warning" task="Download" opcode="Retry"
               keywords="Network win:ResponseTime" template="DownloadArgs" message="$(string.msg)"/>
      </events>
    </provider>
  </events></instrumentation>
  <localization><resources culture="en-US"><stringTable>
    <string id="retry" value="Retry"/>
    <string id="ok" value="Succeeded"/>
    <string id="failed" value="Failed"/>
    <string id="msg" value="Retrying %2: %3"/>
  </stringTable></resources></localization>
</instrumentationManifest>`

	m, err := manifest.Parse(strings.NewReader(src), "example.man")
	if err != nil {
		log.Fatal(err)
	}
	p := m.Provider(uuid.MustParse("0f0e0d0c-0b0a-0908-0706-050403020100"))
	e := p.Event(100, 1)
	fmt.Printf("%s event %d v%d: level %d (%s), task %d, opcode %d (%s), keywords %#x\n",
		p.Name, e.ID, e.Version, e.Level, e.LevelMessage, e.Task, e.Opcode, e.OpcodeMessage, e.Keywords)
	fmt.Printf("message: %q\n", e.Message)
	for _, f := range e.Template.Fields {
		fmt.Printf("  %-9s in-type %2d  length-from %2d", f.Name, f.InType, f.LengthIndex)
		if f.Map != nil {
			s, _ := f.Map.Lookup(1)
			fmt.Printf("  map %s: 1 = %s", f.Map.Name, s)
		}
		fmt.Println()
	}
	// Output:
	// Example-Provider event 100 v1: level 3 (Warning), task 1, opcode 10 (Retry), keywords 0x1000000000001
	// message: "Retrying %2: %3"
	//   UrlLength in-type  6  length-from -1
	//   Url       in-type  1  length-from  0
	//   Result    in-type  8  length-from -1  map ResultMap: 1 = Failed
}
