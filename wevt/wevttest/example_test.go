package wevttest_test

import (
	"fmt"
	"log"
	"strings"

	"github.com/etwkit/etw/manifest"
	"github.com/etwkit/etw/wevt"
	"github.com/etwkit/etw/wevt/wevttest"
)

// ExampleCompile compiles a one-event manifest and reads it back.
func ExampleCompile() {
	xml := `<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"
	    xmlns:win="http://manifests.microsoft.com/win/2004/08/windows/events">
	  <instrumentation><events>
	    <provider name="Tiny" guid="{00000000-0000-0000-0000-0000000000AA}">
	      <events><event value="1" level="win:Error"/></events>
	    </provider>
	  </events></instrumentation>
	</instrumentationManifest>`
	m, err := manifest.Parse(strings.NewReader(xml), "tiny.man")
	if err != nil {
		log.Fatal(err)
	}
	crim, msgs, err := wevttest.Compile(m, wevttest.Options{})
	if err != nil {
		log.Fatal(err)
	}
	back, err := wevt.Parse(crim, nil)
	if err != nil {
		log.Fatal(err)
	}
	e := back.Providers[0].Events[0]
	fmt.Println(string(crim[:4]), len(msgs), back.Providers[0].Name, e.ID, e.LevelName, e.LevelMessage)
	// Output:
	// CRIM 1 Tiny 1 win:Error Error
}
