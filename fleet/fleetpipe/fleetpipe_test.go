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
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/textio"
	"github.com/parquet-go/parquet-go"

	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local"

	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/pipeline"
	"github.com/etwkit/etw/tables"
)

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
	files, errs := Build(s, globs, out, &Options{MaxFileRows: 50000})
	textio.Write(s, filepath.Join(out, "files.jsonl"), files)
	textio.Write(s, filepath.Join(out, "errors.jsonl"), errs)
	// Run reports the counters while the pipeline runs (every 50 ms
	// here), then the final ones.
	var reports []Counters
	finals := 0
	final, err := Run(context.Background(), p, 50*time.Millisecond, func(c Counters, last bool) {
		reports = append(reports, c)
		if last {
			finals++
		}
	})
	if err != nil {
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
	results := readJSONLines[FileResult](t, filepath.Join(out, "files.jsonl*"))
	checkAggregates(t, out, results, want)
	named := 0
	for _, r := range results {
		if r.Computer != "" {
			named++
			if r.Host != hostName(r.Computer) {
				t.Errorf("%s: host %q, computer %q", r.File, r.Host, r.Computer)
			}
		}
		// Every table's files hold at most MaxFileRows rows: the events
		// of a trace of more records are in several files.
		if parts, _ := filepath.Glob(filepath.Join(out, "events", "host="+r.Host, "date="+r.Date, outputBase(r.File)+"*.parquet")); r.Events > 0 && len(parts) != (r.Events+49999)/50000 {
			t.Errorf("%s: %d events in %d files, want at most 50000 a file", r.File, r.Events, len(parts))
		}
	}
	t.Logf("%d traces name their computer (SystemConfig)", named)

	errFiles := map[string]ErrorRecord{}
	errLines := readJSONLines[ErrorRecord](t, filepath.Join(out, "errors.jsonl*"))
	for _, e := range errLines {
		errFiles[e.File] = e
	}
	checkCounters(t, reports, finals, final, results, len(errLines))
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

// checkCounters checks the counters Run reported: never less than the
// previous report, at least one while the pipeline ran, and at the end the
// totals of the outputs: the elements of files.jsonl, their bytes (each
// file's size) and events, and the lines of errors.jsonl.
func checkCounters(t *testing.T, reports []Counters, finals int, final Counters, results []FileResult, errLines int) {
	t.Helper()
	if finals != 1 || len(reports) < 2 || reports[len(reports)-1] != final {
		t.Fatalf("reports %v (%d final), Run returned %v: want live reports, then the final one", reports, finals, final)
	}
	t.Logf("%d reports while the pipeline ran; final: %v", len(reports)-1, final)
	for i := 1; i < len(reports); i++ {
		a, b := reports[i-1], reports[i]
		if b.Files < a.Files || b.Bytes < a.Bytes || b.Events < a.Events || b.Errors < a.Errors {
			t.Errorf("report %d: %v after %v: a counter went down", i, b, a)
		}
	}
	var want Counters
	for _, r := range results {
		want.Files++
		want.Bytes += r.Bytes
		want.Events += int64(r.Events)
		if r.Members == 1 {
			if st, err := os.Stat(r.File); err != nil || st.Size() != r.Bytes {
				t.Errorf("%s: %d bytes counted, want the file's size (%v)", r.File, r.Bytes, err)
			}
		}
	}
	want.Errors = int64(errLines)
	if final != want {
		t.Errorf("final counters %v, want the outputs' totals %v", final, want)
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
	// A query of docs/tables.md runs on the fleet's tables as on one
	// trace's: the traces' ids differ, so the joins keep to each trace.
	out := strings.ReplaceAll(filepath.Dir(events), "'", "''")
	tbl := func(n string) string {
		return "read_parquet('" + out + "/" + n + "/**/*.parquet', hive_partitioning = true)"
	}
	q2 := "SELECT count(*) AS n, (SELECT count(utid) FROM " + tbl("samples") + ") AS want FROM " + tbl("samples") + " s JOIN " +
		tbl("threads") + " t USING (trace, utid) JOIN " + tbl("processes") + " p USING (trace, upid)"
	// The queries of docs/fleet.md, on this output.
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "fleet.md"))
	if err != nil {
		t.Fatal(err)
	}
	var docQs []string
	for _, m := range regexp.MustCompile("(?s)```sql\n(.*?)```").FindAllStringSubmatch(string(doc), -1) {
		docQs = append(docQs, strings.ReplaceAll(m[1], "'OUT/", "'"+out+"/"))
	}
	if len(docQs) != 5 {
		t.Fatalf("docs/fleet.md: %d SQL queries, want 5 (the events and one per aggregate)", len(docQs))
	}
	in, _ := json.Marshal(append([]string{q, q2}, docQs...))
	cmd := exec.CommandContext(ctx, node, filepath.Join(dir, "query.mjs"))
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(in)
	res0, err := cmd.Output()
	if err != nil {
		t.Fatalf("node query.mjs: %v", err)
	}
	var raw []json.RawMessage
	if err := json.Unmarshal(res0, &raw); err != nil || len(raw) != 2+len(docQs) {
		t.Fatalf("DuckDB: %v: %.500s", err, res0)
	}
	for i, r := range raw[2:] {
		var rows []map[string]any
		if err := json.Unmarshal(r, &rows); err != nil || len(rows) == 0 {
			t.Errorf("docs/fleet.md query %d: %v: %.300s", i+1, err, r)
		}
	}
	var res [2][]struct {
		N     string `json:"n"`
		Hosts string `json:"hosts"`
		Dates string `json:"dates"`
		Want  string `json:"want"`
	}
	for i := range res {
		if err := json.Unmarshal(raw[i], &res[i]); err != nil || len(res[i]) != 1 {
			t.Fatalf("DuckDB: %v: %.500s", err, raw[i])
		}
	}
	if j := res[1][0]; j.N != j.Want || j.N == "0" {
		t.Errorf("DuckDB: samples joined to threads and processes across the fleet: %s, want %s", j.N, j.Want)
	}
	hosts, _ := filepath.Glob(filepath.Join(events, "host=*"))
	dates, _ := filepath.Glob(filepath.Join(events, "host=*", "date=*"))
	r := res[0][0]
	t.Logf("DuckDB: %s rows, %s hosts, %s dates", r.N, r.Hosts, r.Dates)
	if r.N != fmt.Sprint(total) || r.Hosts != fmt.Sprint(len(hosts)) || r.Dates == "0" || len(dates) == 0 {
		t.Errorf("DuckDB: %+v, want %d rows and %d hosts", r, total, len(hosts))
	}
}

// readAggregate reads every file of one aggregate's folder, rows by
// trace.
func readAggregate[T any](t *testing.T, dir string, trace func(*T) int32) map[int32][]T {
	t.Helper()
	names, _ := filepath.Glob(filepath.Join(dir, "host=*", "date=*", "*.parquet"))
	if len(names) == 0 {
		t.Fatalf("%s: no files", dir)
	}
	out := map[int32][]T{}
	for _, n := range names {
		rows, err := parquet.ReadFile[T](n)
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		for i := range rows {
			out[trace(&rows[i])] = append(out[trace(&rows[i])], rows[i])
		}
	}
	return out
}

// checkAggregates compares, file by file, the aggregates the pipeline
// wrote with what the library's stats, stacks and providers code gives
// (analysis.Model's processes and GC statistics as tracerpt-go stats
// prints them, Model.Collect's profile as stacks folds it,
// decode.CountProviders as providers counts): GCs per .NET process, CPU
// samples per process and innermost frame, events per provider, and the
// records, lost events and lost buffers of each file.
func checkAggregates(t *testing.T, out string, results []FileResult, records map[string]int) {
	t.Helper()
	provs := readAggregate(t, filepath.Join(out, "provider_events"), func(r *tables.ProviderEventRow) int32 { return r.Trace })
	cpus := readAggregate(t, filepath.Join(out, "cpu_samples"), func(r *tables.CPUSampleRow) int32 { return r.Trace })
	gcs := readAggregate(t, filepath.Join(out, "gc_stats"), func(r *tables.GCStatsRow) int32 { return r.Trace })
	fstats := readAggregate(t, filepath.Join(out, "file_stats"), func(r *tables.FileStatsRow) int32 { return r.Trace })
	checked := 0
	for _, res := range results {
		want, ok := records[res.File]
		if !ok {
			continue // the bad files
		}
		f, err := etl.Open(res.File)
		if err != nil {
			t.Fatal(err)
		}
		files := []*etl.File{f}
		fs := fstats[res.Trace]
		if len(fs) != 1 || fs[0].Events != int64(want) || fs[0].EventsLost != int64(f.Header.EventsLost) ||
			fs[0].BuffersLost != int64(f.Header.BuffersLost) || fs[0].Name != res.File || int(fs[0].Damaged) != res.Damaged {
			t.Errorf("%s: file_stats %+v, want %d records, %d events and %d buffers lost", res.File, fs, want, f.Header.EventsLost, f.Header.BuffersLost)
		}

		// stats: the GCs of each .NET process.
		dec := decode.New()
		m, _, _ := pipeline.Prepare(files, dec)
		wantGC := map[uint32]tables.GCStatsRow{}
		for _, p := range m.Processes() {
			if !p.CLR {
				continue
			}
			r := tables.GCStatsRow{Trace: res.Trace, PID: p.PID, Process: p.ImageFileName}
			if g := p.GC; g != nil {
				r.GCs, r.PauseMSTotal, r.PauseMSMax = int64(g.Count), float64(g.PauseTotal)/1e6, float64(g.PauseMax)/1e6
			}
			wantGC[p.PID] = r
		}
		gotGC := map[uint32]tables.GCStatsRow{}
		for _, r := range gcs[res.Trace] {
			gotGC[r.PID] = r
		}
		if !reflect.DeepEqual(gotGC, wantGC) {
			t.Errorf("%s: gc_stats %v, stats %v", res.File, gotGC, wantGC)
		}

		// stacks: the samples of each process and innermost frame.
		prof, _, _ := m.Collect(files, dec, nil)
		wantCPU := map[string]int64{}
		prof.EachStack(func(frames []string, weight int64) {
			k := frames[0]
			if len(frames) > 1 {
				k += ";" + frames[len(frames)-1]
			}
			wantCPU[k] += weight
		})
		gotCPU := map[string]int64{}
		for _, r := range cpus[res.Trace] {
			k := fmt.Sprintf("%s (%d)", r.Process, r.PID)
			if r.Frame != "" {
				k += ";" + r.Frame
			}
			gotCPU[k] += r.Samples
		}
		if len(wantCPU) == 0 {
			wantCPU = map[string]int64{}
		}
		if !reflect.DeepEqual(gotCPU, wantCPU) {
			t.Errorf("%s: cpu_samples %d keys, stacks %d keys", res.File, len(gotCPU), len(wantCPU))
		}

		// providers: the events of each provider.
		pstats, _ := decode.CountProviders(decode.New(), files)
		wantProv := map[string]int64{}
		for _, p := range pstats {
			wantProv["{"+p.GUID.String()+"}"] += int64(p.Events)
		}
		gotProv := map[string]int64{}
		for _, r := range provs[res.Trace] {
			gotProv[r.ProviderGUID] += r.Events
		}
		if !reflect.DeepEqual(gotProv, wantProv) {
			t.Errorf("%s: provider_events %v, providers %v", res.File, gotProv, wantProv)
		}
		f.Close()
		checked++
	}
	if checked != len(records) {
		t.Errorf("aggregates checked for %d files of %d", checked, len(records))
	}
}
