// Command fixturegen writes the .etl fixtures of testdata/etl through the
// ETW session emulator (package session), deterministically: the same
// bytes on every run. Run it with go generate ./... (the directive is in
// internal/etltest/generate.go); docs/fixtures.md lists what each
// fixture covers. A test checks that the committed files match.
//
//	go run ./internal/fixturegen -out testdata/etl
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

func main() {
	out := flag.String("out", filepath.Join("testdata", "etl"), "directory to write the fixtures to")
	flag.Parse()
	fx, err := generate()
	if err != nil {
		fmt.Fprintln(os.Stderr, "fixturegen:", err)
		os.Exit(1)
	}
	if err := fx.writeTo(*out); err != nil {
		fmt.Fprintln(os.Stderr, "fixturegen:", err)
		os.Exit(1)
	}
}

// fixtures are the generated files and what the generator wrote into
// them.
type fixtures struct {
	// files maps a file name (no directory) to its contents.
	files map[string][]byte
	// events is, per .etl file, the number of events the generator
	// wrote that the file keeps (header events not counted).
	events map[string]int
}

func (fx *fixtures) add(name string, data []byte) {
	if _, dup := fx.files[name]; dup {
		panic("fixturegen: two fixtures named " + name)
	}
	fx.files[name] = data
}

// names returns the file names, sorted.
func (fx *fixtures) names() []string {
	var out []string
	for n := range fx.files {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

func (fx *fixtures) writeTo(dir string) error {
	for _, n := range fx.names() {
		if err := os.WriteFile(filepath.Join(dir, n), fx.files[n], 0o644); err != nil {
			return err
		}
	}
	return nil
}

// generators make the fixtures, in the order of docs/fixtures.md.
var generators = []struct {
	name string
	fn   func(*fixtures) error
}{
	{"tracelogging-types", genTraceLoggingTypes},
	{"tracelogging-32", genTraceLogging32},
	{"manifest-types", genManifestTypes},
	{"classic", genClassic},
	{"compressed", genCompressed},
	{"circular", genCircular},
	{"lost-events", genLostEvents},
	{"newfile", genNewFile},
	{"wpp", genWPP},
	{"record-kinds", genRecordKinds},
}

// generate makes every fixture in memory.
func generate() (*fixtures, error) {
	fx := &fixtures{files: map[string][]byte{}, events: map[string]int{}}
	for _, g := range generators {
		if err := g.fn(fx); err != nil {
			return nil, fmt.Errorf("%s: %w", g.name, err)
		}
	}
	for n, b := range fx.files {
		if strings.HasSuffix(n, ".etl") && len(b) > maxFixtureSize {
			return nil, fmt.Errorf("%s is %d bytes, more than %d", n, len(b), maxFixtureSize)
		}
	}
	return fx, nil
}

// maxFixtureSize keeps the fixtures small.
const maxFixtureSize = 64 << 10
