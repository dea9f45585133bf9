package fleetpipe

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

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
	written := 0 // the damaged file's readable records are written too
	for _, r := range readJSONLines[FileResult](t, filepath.Join(out, "files.jsonl*")) {
		got[r.File] = r.Events
		written += r.Events
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

	checkDuckDB(t, filepath.Join(out, "events"), written)

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

// checkDuckDB reads the events folder with DuckDB (npm @duckdb/node-api,
// installed as cmd/tracerpt-go's DuckDB checks do, in ETWKIT_DUCKDB_DIR or
// the user cache folder) as one table with hive partitioning: its rows
// must be the corpus' records, its host and date columns those of the
// folders. Without node and npm, or without the registry, it skips.
func checkDuckDB(t *testing.T, events string, total int) {
	t.Helper()
	node, err1 := exec.LookPath("node")
	npm, err2 := exec.LookPath("npm")
	if err1 != nil || err2 != nil {
		t.Log("node or npm not found: DuckDB check skipped")
		return
	}
	dir := os.Getenv("ETWKIT_DUCKDB_DIR")
	if dir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			cache = os.TempDir()
		}
		dir = filepath.Join(cache, "etwkit-duckdb")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@duckdb", "node-api", "package.json")); err != nil {
		os.MkdirAll(dir, 0o755)
		cmd := exec.CommandContext(ctx, npm, "install", "--prefix", dir, "--no-audit", "--no-fund", "--loglevel=error", "--no-save", "@duckdb/node-api@1.5.6-r.1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Logf("npm install failed (%v), DuckDB check skipped: %.300s", err, out)
			return
		}
	}
	script, err := os.ReadFile(filepath.Join("..", "..", "testdata", "duckdb", "query.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "query.mjs"), script, 0o644); err != nil {
		t.Fatal(err)
	}
	q := "SELECT count(*) AS n, count(DISTINCT host) AS hosts, count(DISTINCT date) AS dates FROM read_parquet('" +
		strings.ReplaceAll(events, "'", "''") + "/**/*.parquet', hive_partitioning = true)"
	in, _ := json.Marshal([]string{q})
	cmd := exec.CommandContext(ctx, node, filepath.Join(dir, "query.mjs"))
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(in)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node query.mjs: %v", err)
	}
	var res [][]struct {
		N     string `json:"n"`
		Hosts string `json:"hosts"`
		Dates string `json:"dates"`
	}
	if err := json.Unmarshal(out, &res); err != nil || len(res) != 1 || len(res[0]) != 1 {
		t.Fatalf("DuckDB: %v: %.500s", err, out)
	}
	hosts, _ := filepath.Glob(filepath.Join(events, "host=*"))
	dates, _ := filepath.Glob(filepath.Join(events, "host=*", "date=*"))
	r := res[0][0]
	t.Logf("DuckDB: %s rows, %s hosts, %s dates", r.N, r.Hosts, r.Dates)
	if r.N != fmt.Sprint(total) || r.Hosts != fmt.Sprint(len(hosts)) || r.Dates == "0" || len(dates) == 0 {
		t.Errorf("DuckDB: %+v, want %d rows and %d hosts", r, total, len(hosts))
	}
}
