package tracerpt_test

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/tracerpt"
)

// When the schema of highest precedence does not fit a payload and the
// decoder falls back to another, the JSON line says which one it used.
func TestJSONShowsSchemaFallback(t *testing.T) {
	runtime := uuid.MustParse("e13c0d23-ccbc-4e12-931b-d9cc2eee27e4")
	man := filepath.Join(t.TempDir(), "short.man")
	os.WriteFile(man, []byte(`<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events">
 <instrumentation><events>
  <provider name="P" guid="{`+runtime.String()+`}" symbol="P">
   <templates><template tid="T"><data name="Count" inType="win:UInt32"/></template></templates>
   <events><event value="1" version="2" level="win:Informational" template="T" symbol="Short"/></events>
  </provider>
 </events></instrumentation>
</instrumentationManifest>`), 0o644)
	d := decode.New()
	if _, err := d.ImportFiles(man); err != nil {
		t.Fatal(err)
	}
	payload := make([]byte, 26) // GCStart_V2: the built-in schema fits, the named one does not
	binary.LittleEndian.PutUint32(payload, 7)
	ev := &etl.Event{Header: etl.HeaderEvent64, ProviderID: runtime,
		Descriptor: etl.EventDescriptor{ID: 1, Version: 2, Opcode: 1, Task: 1, Level: 4}, UserData: payload}
	line := string(tracerpt.AppendEventJSON(nil, ev, d.Decode(ev), false, false))
	if !strings.Contains(line, `"event_name":"GCStart_V2"`) || !strings.Contains(line, `"schema_source":"built-in"`) {
		t.Errorf("fallback not shown: %s", line)
	}
	ev.UserData = payload[:4] // now the named schema fits
	line = string(tracerpt.AppendEventJSON(nil, ev, d.Decode(ev), false, false))
	if strings.Contains(line, "schema_source") || !strings.Contains(line, `"event_name":"Short"`) {
		t.Errorf("no fallback, yet: %s", line)
	}
}
