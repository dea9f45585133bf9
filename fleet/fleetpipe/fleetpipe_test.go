package fleetpipe

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/textio"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"

	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local"

	"github.com/etwkit/etw/etl"
)

func TestGroupFiles(t *testing.T) {
	got := GroupFiles([]string{"b/x.etl.010", "a.etl", "b/x.etl.002", "b/x.etl", "c.etl.1"})
	want := [][]string{{"a.etl"}, {"b/x.etl", "b/x.etl.002", "b/x.etl.010"}, {"c.etl.1"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("GroupFiles = %q, want %q", got, want)
	}
}

// corpusGlobs returns globs naming every .etl file of the corpus, depth by
// depth (Beam's local file system globs as filepath.Glob does, without **).
func corpusGlobs(dir string) []string {
	var g []string
	for d := 0; d < 12; d++ {
		g = append(g, filepath.Join(dir, strings.Repeat("*/", d)+"*.etl"))
	}
	return g
}

func readJSONLines[T any](t *testing.T, pattern string) []T {
	t.Helper()
	names, _ := filepath.Glob(pattern)
	var out []T
	for _, n := range names {
		f, err := os.Open(n)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var v T
			if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
				t.Fatalf("%s: %v", n, err)
			}
			out = append(out, v)
		}
		f.Close()
	}
	return out
}

// TestCorpusPrism runs the pipeline on prism over the corpus and two bad
// files: every corpus file gives info's record count (File.Scan), the bad
// files are in errors with their offset, and nothing else is.
func TestCorpusPrism(t *testing.T) {
	corpus := os.Getenv("ETL_CORPUS")
	if corpus == "" {
		t.Skip("ETL_CORPUS not set")
	}
	attack := os.Getenv("ETL_ATTACK")
	if attack == "" {
		attack = filepath.Join(corpus, "..", "attack")
	}
	bad := t.TempDir()
	trunc, err := os.ReadFile(filepath.Join(attack, "trunc_at_buffer_boundary.etl"))
	if err != nil {
		t.Skip("attack file:", err)
	}
	if err := os.WriteFile(filepath.Join(bad, "trunc.etl"), trunc, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bad, "junk.etl"), []byte("not a trace at all"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	globs := append(corpusGlobs(corpus), filepath.Join(bad, "*.etl"))

	p, s := beam.NewPipelineWithRoot()
	files, errs := Build(s, globs, out, nil)
	textio.Write(s, filepath.Join(out, "files.jsonl"), files)
	textio.Write(s, filepath.Join(out, "errors.jsonl"), errs)
	if _, err := prism.Execute(context.Background(), p); err != nil {
		t.Fatal(err)
	}

	want := map[string]int{}
	total := 0
	for _, g := range corpusGlobs(corpus) {
		names, _ := filepath.Glob(g)
		for _, n := range names {
			f, err := etl.Open(n)
			if err != nil {
				t.Fatal(err)
			}
			want[n] = f.Scan().Events
			total += want[n]
			f.Close()
		}
	}
	if len(want) == 0 {
		t.Fatal("no corpus files")
	}
	t.Logf("%d corpus files, %d records", len(want), total)

	got := map[string]int{}
	for _, r := range readJSONLines[FileResult](t, filepath.Join(out, "files.jsonl*")) {
		got[r.File] = r.Events
		if strings.HasPrefix(r.File, corpus) {
			if _, err := os.Stat(r.Output); err != nil {
				t.Errorf("%s: output: %v", r.File, err)
			}
		}
	}
	for n, w := range want {
		if got[n] != w {
			t.Errorf("%s: %d events, want %d", n, got[n], w)
		}
	}

	errFiles := map[string]ErrorRecord{}
	for _, e := range readJSONLines[ErrorRecord](t, filepath.Join(out, "errors.jsonl*")) {
		errFiles[e.File] = e
	}
	if e, ok := errFiles[filepath.Join(bad, "trunc.etl")]; !ok || e.Offset != 0x10000 {
		t.Errorf("trunc.etl: error %+v (present %v), want offset 0x10000", e, ok)
	}
	if _, ok := errFiles[filepath.Join(bad, "junk.etl")]; !ok {
		t.Errorf("junk.etl not in errors: %v", errFiles)
	}
	for f, e := range errFiles {
		if strings.HasPrefix(f, corpus) {
			if _, damaged := want[f]; damaged {
				t.Logf("corpus file with an error: %s: %s", f, e.Reason)
			}
		}
	}
}

func TestMain(m *testing.M) {
	beam.Init()
	os.Exit(m.Run())
}
