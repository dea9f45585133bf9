package fleetpipe

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/textio"

	"github.com/etwkit/etw/internal/symtest"
	"github.com/etwkit/etw/tables"
)

// TestSymbolsPrism: with a symbol path the workers name the native
// frames of the cpu_samples aggregate by function (the trace's app.exe
// has the identity of symtest.SynthPDB, found in a store); without it,
// by module; a PDB of another age is refused and named in errors.
func TestSymbolsPrism(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in")
	if err := os.MkdirAll(in, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(in, "app.etl"), symtest.AppTrace(t, symtest.SynthGUID, 3), 0o644); err != nil {
		t.Fatal(err)
	}
	store := filepath.Join(dir, "store")
	id := "12DC0A4FBD7D4F2AA9BE263BACAEB4673" // SynthGUID's hex digits, age 3
	if err := os.MkdirAll(filepath.Join(store, "app.pdb", id), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(store, "app.pdb", id, "app.pdb"), symtest.SynthPDB(symtest.SynthGUID, 3), 0o644); err != nil {
		t.Fatal(err)
	}
	wrongAge := filepath.Join(dir, "flat")
	if err := os.MkdirAll(wrongAge, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(wrongAge, "app.pdb"), symtest.SynthPDB(symtest.SynthGUID, 4), 0o644); err != nil {
		t.Fatal(err)
	}
	frames := func(symbols string) (string, string) {
		t.Helper()
		out := t.TempDir()
		p, s := beam.NewPipelineWithRoot()
		_, errs := Build(s, []string{filepath.Join(in, "*.etl")}, out, &Options{Symbols: symbols})
		textio.Write(s, filepath.Join(out, "errors.jsonl"), errs)
		if _, err := Run(context.Background(), p, 0, nil); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, rows := range readAggregate(t, filepath.Join(out, "cpu_samples"), func(r *tables.CPUSampleRow) int32 { return r.Trace }) {
			for _, r := range rows {
				got = append(got, r.Frame+" "+strings.Repeat("|", int(r.Samples)))
			}
		}
		sort.Strings(got)
		e, _ := os.ReadFile(filepath.Join(out, "errors.jsonl"))
		return strings.Join(got, ", "), string(e)
	}
	if got, _ := frames(""); got != "app.exe |||" {
		t.Errorf("without symbols: %s", got)
	}
	if got, errs := frames(store); got != "app.exe |, app.exe!work ||" || errs != "" {
		t.Errorf("with the store: %s; errors %q", got, errs)
	}
	if got, errs := frames(wrongAge); got != "app.exe |||" || !strings.Contains(errs, "app.exe") {
		t.Errorf("with a PDB of another age: %s; errors %q", got, errs)
	}
}
