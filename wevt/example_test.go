package wevt_test

import (
	"bytes"
	"fmt"
	"log"
	"strings"

	"github.com/etwkit/etw/manifest"
	"github.com/etwkit/etw/tdh"
	"github.com/etwkit/etw/wevt"
	"github.com/etwkit/etw/wevt/wevttest"
)

const exampleManifest = `<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"
    xmlns:win="http://manifests.microsoft.com/win/2004/08/windows/events">
  <instrumentation><events>
    <provider name="Example-Provider" guid="{3A1B2C4D-0000-4000-8000-00000000CAFE}"
              resourceFileName="x.dll" messageFileName="x.dll">
      <templates>
        <template tid="T">
          <data name="Port" inType="win:UInt16" outType="win:Port"/>
          <data name="Host" inType="win:UnicodeString"/>
        </template>
      </templates>
      <events>
        <event value="7" level="win:Warning" opcode="win:Start" template="T" message="$(string.m)"/>
      </events>
    </provider>
  </events></instrumentation>
  <localization><resources culture="en-US"><stringTable>
    <string id="m" value="Connecting to %2 on port %1"/>
  </stringTable></resources></localization>
</instrumentationManifest>`

// ExampleReadPE reads the binary manifest of a PE file — here one built in
// memory from a small XML manifest, as mc.exe, rc.exe and link.exe would
// build it — and decodes an event payload with the schemas it compiles to.
func ExampleReadPE() {
	xml, err := manifest.Parse(strings.NewReader(exampleManifest), "example.man")
	if err != nil {
		log.Fatal(err)
	}
	exe, err := wevttest.PE(xml, wevttest.Options{}, true)
	if err != nil {
		log.Fatal(err)
	}

	m, err := wevt.ReadPE(bytes.NewReader(exe), int64(len(exe)))
	if err != nil {
		log.Fatal(err)
	}
	p := m.Providers[0]
	fmt.Println(m.Format, p.Name, p.GUID)
	schemas, errs := m.Schemas()
	if len(errs) > 0 {
		log.Fatal(errs)
	}
	s := schemas[0]
	fmt.Println(s.ID, s.LevelName, s.OpcodeName, s.Message)

	payload := []byte{0x1F, 0x90, 'h', 0, 'o', 0, 's', 0, 't', 0, 0, 0} // port 8080 (network order), "host"
	var dec tdh.Decoder
	d, err := dec.Decode(s, payload, 8)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(string(tdh.AppendPropertiesJSON(nil, d)))
	fmt.Println(tdh.FormatMessage(s.Message, d, nil))
	// Output:
	// binary Example-Provider 3a1b2c4d-0000-4000-8000-00000000cafe
	// 7 Warning Start Connecting to %2 on port %1
	// {"Port":8080,"Host":"host"}
	// Connecting to host on port 8080
}
