// Command gencatalog compiles instrumentation manifests into a Go source
// file of tdh schemas for package catalog. It is run by go generate:
//
//	go run ./internal/gencatalog -o dotnet_gen.go -var dotnet ClrEtwAll.man
//
// The output holds one tdh.Event literal per event and version in a
// package-level variable (internal/schemagen), so the program pays
// nothing at startup to parse XML or to build the schemas.
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/etwkit/etw/internal/schemagen"
	"github.com/etwkit/etw/manifest"
	"github.com/etwkit/etw/tdh"
)

func main() {
	out := flag.String("o", "", "output Go file")
	name := flag.String("var", "", "the generated variable is <NAME>Schemas")
	source := flag.String("source", "", "what to say the schemas came from")
	flag.Parse()
	if *out == "" || *name == "" || flag.NArg() == 0 {
		log.Fatal("usage: gencatalog -o FILE -var NAME [-source TEXT] MANIFEST...")
	}
	var schemas []*tdh.Event
	for _, p := range flag.Args() {
		m, err := manifest.ParseFile(p)
		if err != nil {
			log.Fatal(err)
		}
		s, errs := m.Schemas()
		for _, e := range errs {
			log.Printf("%s: %v", p, e)
		}
		schemas = append(schemas, s...)
	}
	src := *source
	if src == "" {
		for _, p := range flag.Args() {
			src += " " + filepath.Base(p)
		}
	}
	b, err := schemagen.Source(&schemagen.File{Generator: "gencatalog", Source: strings.TrimSpace(src), Package: "catalog", Var: *name + "Schemas",
		Doc: fmt.Sprintf("%sSchemas holds %d compiled schemas, laid out by the linker.", *name, len(schemas)), Schemas: schemas})
	if err != nil {
		os.WriteFile(*out+".broken", b, 0o644)
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, b, 0o644); err != nil {
		log.Fatal(err)
	}
}
