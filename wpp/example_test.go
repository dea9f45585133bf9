package wpp_test

import (
	"fmt"
	"log"
	"strings"

	"github.com/etwkit/etw/wpp"
)

// Compile a TMF file into schemas a tdh.Registry can hold.
func Example() {
	const tmf = `0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0 MyDriver // SRC=io.c
#typev io_c42 42 "%0read %10!u! bytes from %11!s!" //   LEVEL=TRACE_LEVEL_VERBOSE FUNC=ReadFile
{
count, ItemULong -- 10
path, ItemWString -- 11
}
`
	f, err := wpp.Parse(strings.NewReader(tmf), "io.tmf")
	if err != nil {
		log.Fatal(err)
	}
	schemas, errs := f.Schemas()
	if len(errs) > 0 {
		log.Fatal(errs)
	}
	s := schemas[0]
	fmt.Println(s.ProviderGUID, s.ID, s.ProviderName, s.EventName, len(s.Properties), s.Message)
	// Output: 0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0 42 MyDriver io_c42 2 read %1!u! bytes from %2!s!
}
