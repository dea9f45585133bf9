package catalog

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/google/uuid"

	"github.com/etwkit/etw/manifest"
	"github.com/etwkit/etw/tdh"
)

func schemaDir(t *testing.T) string {
	if d := os.Getenv("ETL_SCHEMAS"); d != "" {
		return d
	}
	if d := os.Getenv("ETL_CORPUS"); d != "" {
		return filepath.Join(d, "..", "schemas")
	}
	t.Skip("neither ETL_SCHEMAS nor ETL_CORPUS is set: the runtime's manifest is not at hand")
	return ""
}

// The generated table is exactly what the manifest compiles to: it is up
// to date with the generator and the manifest compiler.
func TestDotNETMatchesManifest(t *testing.T) {
	path := filepath.Join(schemaDir(t), "authored", "dotnet-runtime", "ClrEtwAll.man")
	m, err := manifest.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want, errs := m.Schemas()
	if len(errs) > 0 {
		t.Fatalf("the manifest has %d events that do not compile: %v", len(errs), errs[0])
	}
	got := DotNET()
	if len(got) != len(want) {
		t.Fatalf("%d generated schemas, the manifest compiles to %d: run go generate ./catalog", len(got), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("schema %d (%s v%d) differs from the manifest's: run go generate ./catalog", i, want[i].EventName, want[i].Version)
		}
	}
}

func TestRegister(t *testing.T) {
	reg := tdh.NewRegistry()
	Register(reg)
	perProvider := map[string]int{}
	for _, s := range DotNET() {
		perProvider[s.ProviderName]++
	}
	// Events and versions per provider in dotnet/runtime's manifest.
	want := map[string]int{
		"Microsoft-Windows-DotNETRuntime":        207,
		"Microsoft-Windows-DotNETRuntimeRundown": 50,
		"Microsoft-Windows-DotNETRuntimeStress":  3,
		"Microsoft-Windows-DotNETRuntimePrivate": 185,
		"Microsoft-DotNETRuntimeMonoProfiler":    65,
	}
	if !reflect.DeepEqual(perProvider, want) {
		t.Errorf("schemas per provider %v, want %v", perProvider, want)
	}
	runtime := uuid.MustParse("e13c0d23-ccbc-4e12-931b-d9cc2eee27e4")
	for _, v := range []uint8{0, 1, 2} {
		c := reg.Candidates(runtime, 1, v)
		if len(c) != 1 || c[0].Origin != Origin || c[0].Schema.TaskName != "GC" {
			t.Errorf("GCStart v%d: %+v", v, c)
		}
	}
	// The kernel classes are registered too.
	process := uuid.MustParse("3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c")
	if s, ok := reg.Lookup(process, 1, 3); !ok || s.OpcodeName != "Start" {
		t.Errorf("Process/Start v3 not registered")
	}
}

func BenchmarkRegister(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		Register(tdh.NewRegistry())
	}
}
