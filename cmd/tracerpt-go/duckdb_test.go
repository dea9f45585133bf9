package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/etwkit/etw/internal/etltest"
)

// duckDBPackage is the DuckDB client the checks install: the npm package
// ships DuckDB's engine, built by DuckDB's project, in the registry
// package (no compiler, no other download).
const duckDBPackage = "@duckdb/node-api@1.5.6-r.1"

// duckDBScript is the query script, named when the tests start (some run
// in a folder of their own).
var duckDBScript, _ = filepath.Abs(filepath.Join("..", "..", "testdata", "duckdb", "query.mjs"))

// duckDB returns a function that runs SQL queries with DuckDB, installing
// @duckdb/node-api with npm into a cache folder the first time
// (ETWKIT_DUCKDB_DIR, else the user cache folder). Without node and npm,
// or when the install fails (no registry), the test is skipped with the
// reason.
func duckDB(t *testing.T) func(queries []string) []json.RawMessage {
	t.Helper()
	node, err1 := exec.LookPath("node")
	npm, err2 := exec.LookPath("npm")
	if err1 != nil || err2 != nil {
		t.Skip("node or npm not found: the DuckDB checks need npm to install @duckdb/node-api")
	}
	dir := os.Getenv("ETWKIT_DUCKDB_DIR")
	if dir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			cache = os.TempDir()
		}
		dir = filepath.Join(cache, "etwkit-duckdb")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@duckdb", "node-api", "package.json")); err != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, npm, "install", "--prefix", dir, "--no-audit", "--no-fund", "--loglevel=error", "--no-save", duckDBPackage)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Skipf("npm install %s failed (%v), DuckDB checks skipped: %s", duckDBPackage, err, lastLines(out, 5))
		}
	}
	script, err := os.ReadFile(duckDBScript)
	if err != nil {
		t.Fatal(err)
	}
	// The script imports the package: it runs from the install folder.
	if err := os.WriteFile(filepath.Join(dir, "query.mjs"), script, 0o644); err != nil {
		t.Fatal(err)
	}
	return func(queries []string) []json.RawMessage {
		t.Helper()
		in, _ := json.Marshal(queries)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, node, filepath.Join(dir, "query.mjs"))
		cmd.Dir = dir
		cmd.Stdin = bytes.NewReader(in)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("node query.mjs: %v: %s", err, lastLines(stderr.Bytes(), 10))
		}
		var res []json.RawMessage
		if err := json.Unmarshal(out, &res); err != nil || len(res) != len(queries) {
			t.Fatalf("node query.mjs: %v: %.500s", err, out)
		}
		return res
	}
}

func lastLines(b []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// sqlString quotes s as an SQL string literal.
func sqlString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// TestCorpusDuckDB: DuckDB, a reader written by others, reads the JSON
// Lines, the events table (Parquet) and the split tables of every corpus
// file: as many rows as info counts events, and the same sums of pids,
// latest FILETIME and number of stacks as the dump holds.
func TestCorpusDuckDB(t *testing.T) {
	dir := etltest.CorpusDir(t)
	query := duckDB(t)
	paths := etltest.CorpusTraces(t)
	type expect struct {
		name                   string
		events                 int
		pidSum, maxFT, stacks  string
		jsonl, parquet, tables string
	}
	var exp []expect
	var queries []string
	tmp := t.TempDir()
	for i, p := range paths {
		rel, _ := filepath.Rel(dir, p)
		var fi fileInfo
		if err := json.Unmarshal([]byte(mustRun(t, "info", "--json", p)), &fi); err != nil {
			t.Fatal(err)
		}
		e := expect{name: rel, events: fi.Events}
		e.jsonl = filepath.Join(tmp, fmt.Sprintf("%d.jsonl", i))
		e.parquet = filepath.Join(tmp, fmt.Sprintf("%d.parquet", i))
		e.tables = filepath.Join(tmp, fmt.Sprintf("%d.tables", i))
		mustRun(t, p, "-of", "JSON", "-o", e.jsonl, "--quiet")
		mustRun(t, p, "-of", "PARQUET", "-o", e.parquet, "--quiet")
		mustRun(t, p, "--split-by-event", e.tables, "--quiet")
		// What the dump says, for the values DuckDB must find.
		f, err := os.Open(e.jsonl)
		if err != nil {
			t.Fatal(err)
		}
		var pidSum, maxFT uint64
		stacks := 0
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			var ev struct {
				PID      uint64          `json:"pid"`
				Filetime json.Number     `json:"filetime"`
				Stack    json.RawMessage `json:"stack"`
			}
			if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
				t.Fatal(err)
			}
			pidSum += ev.PID
			ft, _ := strconv.ParseUint(ev.Filetime.String(), 10, 64)
			maxFT = max(maxFT, ft)
			if ev.Stack != nil {
				stacks++
			}
		}
		f.Close()
		e.pidSum, e.maxFT, e.stacks = strconv.FormatUint(pidSum, 10), strconv.FormatUint(maxFT, 10), strconv.Itoa(stacks)
		exp = append(exp, e)
		queries = append(queries,
			"select count(*) as n, sum(pid) as pids, max(cast(filetime as ubigint)) as ft from read_json("+sqlString(e.jsonl)+")",
			"select count(*) as n, sum(pid) as pids, max(filetime) as ft, count(stack) as stacks from read_parquet("+sqlString(e.parquet)+")",
			"select count(*) as n from read_parquet("+sqlString(e.tables+"/**/*.parquet")+", union_by_name = true)",
		)
	}
	res := query(queries)
	type row map[string]any
	get := func(i int) row {
		var rows []row
		if err := json.Unmarshal(res[i], &rows); err != nil || len(rows) != 1 {
			t.Fatalf("query %q: %s", queries[i], res[i])
		}
		return rows[0]
	}
	str := func(v any) string { return fmt.Sprint(v) }
	total := 0
	for i, e := range exp {
		j, p, s := get(3*i), get(3*i+1), get(3*i+2)
		n := strconv.Itoa(e.events)
		if str(j["n"]) != n || str(p["n"]) != n || str(s["n"]) != n {
			t.Errorf("%s: info counts %s events; DuckDB reads %v JSON lines, %v Parquet rows, %v rows in the split tables", e.name, n, j["n"], p["n"], s["n"])
		}
		if str(j["pids"]) != e.pidSum || str(p["pids"]) != e.pidSum || str(j["ft"]) != e.maxFT || str(p["ft"]) != e.maxFT || str(p["stacks"]) != e.stacks {
			t.Errorf("%s: DuckDB JSON %v, Parquet %v; the dump: pids %s, latest filetime %s, %s stacks", e.name, j, p, e.pidSum, e.maxFT, e.stacks)
		}
		total += e.events
	}
	t.Logf("DuckDB read %d files, %d events each in JSON Lines, Parquet and split tables", len(exp), total)
}
