package synth_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/synth"
)

// Write an .etl file from application events in JSON Lines.
func ExampleConvert() {
	dir, _ := os.MkdirTemp("", "synth")
	defer os.RemoveAll(dir)
	out, _ := os.Create(filepath.Join(dir, "app.etl"))
	events := `{"time":"2024-05-01T10:00:00Z","provider_name":"MyCompany-MyApp","event_name":"Started","properties":{"Workers":8}}`
	if err := synth.Convert(out, strings.NewReader(events), "events.jsonl", nil); err != nil {
		fmt.Println(err)
		return
	}
	out.Close()

	f, _ := etl.Open(out.Name())
	defer f.Close()
	r := etl.NewReader([]*etl.File{f}, nil)
	defer r.Close()
	for r.Next() {
		ev := r.Event()
		fmt.Println(ev.Header, etl.FiletimeToTime(ev.Time).UTC().Format("15:04:05"))
	}
	// Output:
	// system64 10:00:00
	// system64 10:00:00
	// event64 10:00:00
}
