package tracerpt_test

import (
	"bytes"
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/pipeline"
	"github.com/etwkit/etw/tracerpt"
)

// Write tracerpt's XML dump of a file from a Go program.
func Example() {
	f, err := etl.Open("../testdata/etl/sample.etl")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	files := []*etl.File{f}
	var out bytes.Buffer
	stats, err := pipeline.Run(context.Background(), &pipeline.Config[byte]{
		Files:   files,
		Workers: 1,
		Encoder: tracerpt.NewEncoder(tracerpt.XML, files, &tracerpt.Options{}),
		Output:  &out,
	})
	if err != nil {
		log.Fatal(err)
	}
	lines := strings.Split(out.String(), "\n")
	fmt.Println(stats.Written, "events;", strings.Count(out.String(), "<Event xmlns="), "<Event> elements")
	fmt.Println(strings.Join(lines[:4], "\n"))
	// Output:
	// 11 events; 11 <Event> elements
	// <Events>
	// <Event xmlns="http://schemas.microsoft.com/win/2004/08/events/event">
	// 	<System>
	// 		<Provider Guid="{9e814aad-3204-11d2-9a82-006008a86939}" />
}
