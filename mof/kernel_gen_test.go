package mof

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"reflect"
	"sync"
	"testing"

	"github.com/etwkit/etw/internal/schemagen"
)

var update = flag.Bool("update", false, "rewrite kernel_gen.go from the kernel table")

// builtin is the kernel table compiled, as the tests read it (byKey,
// errs); the program uses kernel_gen.go's literal of its schemas.
var builtin = sync.OnceValue(func() *kernel { return compileTable(kernelTable) })

// kernelSource returns kernel_gen.go as the table compiles it.
func kernelSource() ([]byte, error) {
	return schemagen.Source(&schemagen.File{
		Generator: "TestKernelGenerated", Source: "kernel_table.go", Package: "mof", Var: "kernelSchemas",
		Doc:     fmt.Sprintf("kernelSchemas holds the %d schemas of the kernel table (kernel_table.go)\ncompiled, laid out by the linker: see [KernelSchemas].", len(builtin().schemas)),
		Schemas: builtin().schemas,
	})
}

// The generated literal is what the table compiles to, byte for byte as
// source and field for field as schemas (alternate layouts included).
func TestKernelGenerated(t *testing.T) {
	src, err := kernelSource()
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile("kernel_gen.go", src, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Log("wrote kernel_gen.go")
		return
	}
	got, err := os.ReadFile("kernel_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, src) {
		t.Error("kernel_gen.go is not what kernel_table.go compiles to: run go generate ./mof")
	}
	want := builtin().schemas
	if len(kernelSchemas) != len(want) {
		t.Fatalf("kernel_gen.go has %d schemas, the table %d: run go generate ./mof", len(kernelSchemas), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(kernelSchemas[i], want[i]) {
			t.Errorf("schema %d (%s %s v%d) differs from the table's: run go generate ./mof", i, want[i].ProviderGUID, want[i].EventName, want[i].Version)
		}
	}
}
