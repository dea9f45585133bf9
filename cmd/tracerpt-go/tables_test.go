package main

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/etwkit/etw/internal/etltest"
)

// docQueries returns the SQL blocks of docs/tables.md, in order, with
// the folder T replaced by dir: top processes, hottest functions, GC
// pauses, slowest disk I/O, drops, folded stacks, events with their
// thread and process.
func docQueries(t *testing.T, dir string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "tables.md"))
	if err != nil {
		t.Fatal(err)
	}
	var qs []string
	for _, m := range regexp.MustCompile("(?s)```sql\n(.*?)```").FindAllStringSubmatch(string(b), -1) {
		qs = append(qs, strings.ReplaceAll(m[1], "'T/", "'"+filepath.ToSlash(dir)+"/"))
	}
	if len(qs) != 7 {
		t.Fatalf("docs/tables.md: %d SQL queries, want 7", len(qs))
	}
	return qs
}

type sqlRows []map[string]any

func decodeRows(t *testing.T, name string, raw json.RawMessage) sqlRows {
	t.Helper()
	var rows sqlRows
	if err := json.Unmarshal(raw, &rows); err != nil {
		t.Fatalf("%s: %v: %.300s", name, err, raw)
	}
	return rows
}

// num reads a DuckDB number (BIGINT values come as strings).
func num(v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case string:
		f, _ := strconv.ParseFloat(x, 64)
		return f
	}
	return -1
}

// On net.4.5.2.x64, the tables say what stats and stacks say: the
// samples of Test.x64.exe (pid 3676) joined through threads and
// processes are 5,129 (and 5,129 ms), its GC rows are stats' 263, and
// the prefix tree rebuilt in SQL gives the folded stacks line for line.
// The documented queries run.
func TestCorpusTablesDuckDB(t *testing.T) {
	netETL, _ := netCorpus(t)
	query := duckDB(t)
	dir := filepath.Join(t.TempDir(), "tables")
	if _, errs, code := runCLI(t, "tables", netETL, "-o", dir); code != 0 {
		t.Fatalf("tables: exit %d: %s", code, errs)
	}
	var st struct {
		Processes []struct {
			PID        uint32 `json:"pid"`
			CPUSamples int    `json:"cpu_samples"`
			GC         *struct {
				Count int `json:"count"`
			} `json:"gc"`
		} `json:"processes"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, "stats", netETL, "--json")), &st); err != nil {
		t.Fatal(err)
	}
	wantSamples, wantGCs := -1, -1
	for _, p := range st.Processes {
		if p.PID == 3676 && p.GC != nil {
			wantSamples, wantGCs = p.CPUSamples, p.GC.Count
		}
	}
	if wantSamples != 5129 || wantGCs != 263 {
		t.Fatalf("stats: pid 3676 has %d samples and %d GCs, want 5129 and 263", wantSamples, wantGCs)
	}
	var info struct {
		Events int `json:"events"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, "info", "--json", netETL)), &info); err != nil || info.Events == 0 {
		t.Fatalf("info --json: %v (%d events)", err, info.Events)
	}
	d := filepath.ToSlash(dir)
	docs := docQueries(t, dir)
	evq := docs[6]
	docs = docs[:6]
	qs := append([]string{
		`SELECT count(*) AS n, sum(s.weight_ms) AS ms FROM '` + d + `/samples.parquet' s
		 JOIN '` + d + `/threads.parquet' t USING (trace, utid) JOIN '` + d + `/processes.parquet' p USING (trace, upid) WHERE p.pid = 3676`,
		`SELECT count(*) AS n FROM '` + d + `/gcs.parquet' g JOIN '` + d + `/processes.parquet' p USING (trace, upid) WHERE p.pid = 3676`,
	}, docs...)
	// The events table: one row per record info counts; every sample is
	// an event (PerfInfo SampleProf, opcode 46) of the same time, CPU,
	// thread and stack; and the samples of pid 3676 reached through the
	// events' utid and stack_id are stats' figure.
	qs = append(qs,
		`SELECT count(*) AS n, count(DISTINCT trace) AS traces, count(stack_id) AS stacked FROM '`+d+`/events.parquet'`,
		`SELECT count(*) AS n, count(e.trace) AS matched FROM '`+d+`/samples.parquet' s LEFT JOIN (
		   SELECT trace, time_ns // 1000 AS us, cpu, utid, stack_id FROM '`+d+`/events.parquet' WHERE opcode = 46
		 ) e ON e.trace = s.trace AND e.us = epoch_us(s.ts) AND e.cpu = s.cpu
		   AND e.utid IS NOT DISTINCT FROM s.utid AND e.stack_id IS NOT DISTINCT FROM s.stack_id`,
		`SELECT count(*) AS n FROM '`+d+`/events.parquet' e
		 JOIN '`+d+`/threads.parquet' t USING (trace, utid) JOIN '`+d+`/processes.parquet' p USING (trace, upid)
		 WHERE p.pid = 3676 AND EXISTS (SELECT 1 FROM '`+d+`/samples.parquet' s
		   WHERE s.trace = e.trace AND epoch_us(s.ts) = e.time_ns // 1000 AND s.cpu = e.cpu AND e.opcode = 46)`,
		evq)
	res := query(qs)
	for i, r := range res {
		if strings.HasPrefix(string(r), `{"error"`) {
			t.Fatalf("query %d: %s", i, r)
		}
	}
	if r := decodeRows(t, "samples", res[0]); len(r) != 1 || num(r[0]["n"]) != 5129 || num(r[0]["ms"]) != 5129 {
		t.Errorf("samples of pid 3676: %v, want 5129 (5129 ms)", r)
	}
	if r := decodeRows(t, "gcs", res[1]); len(r) != 1 || num(r[0]["n"]) != 263 {
		t.Errorf("GCs of pid 3676: %v, want 263", r)
	}
	top := decodeRows(t, "top processes", res[2])
	if len(top) == 0 || top[0]["pid"] != float64(3676) || num(top[0]["samples"]) != 5129 {
		t.Errorf("top processes: %v, want Test.x64 (3676) first with 5129 samples", top)
	}
	hot := decodeRows(t, "hottest functions", res[3])
	if len(hot) == 0 || num(hot[0]["inclusive_ms"]) <= 0 {
		t.Errorf("hottest functions: %v", hot)
	}
	gcs := 0.0
	for _, r := range decodeRows(t, "GC pauses", res[4]) {
		if r["pid"] == float64(3676) {
			gcs += num(r["gcs"])
		}
	}
	if gcs != 263 {
		t.Errorf("GC pauses by generation of pid 3676: %v GCs, want 263", gcs)
	}
	if disk := decodeRows(t, "disk", res[5]); len(disk) == 0 || num(disk[0]["ios"]) <= 0 {
		t.Errorf("slowest disk I/O: %v", disk)
	}
	if drops := decodeRows(t, "drops", res[6]); len(drops) != 0 {
		t.Errorf("drops in a trace without packets: %v", drops)
	}
	if r := decodeRows(t, "events", res[8]); len(r) != 1 || num(r[0]["n"]) != float64(info.Events) || num(r[0]["traces"]) != 1 || num(r[0]["stacked"]) <= 0 {
		t.Errorf("events: %v, want info's %d records of one trace, some with a stack", r, info.Events)
	}
	if r := decodeRows(t, "events and samples", res[9]); len(r) != 1 || num(r[0]["matched"]) != num(r[0]["n"]) || num(r[0]["n"]) < 5129 {
		t.Errorf("samples matched by events (time, cpu, utid, stack_id): %v", r)
	}
	if r := decodeRows(t, "events of pid 3676", res[10]); len(r) != 1 || num(r[0]["n"]) != 5129 {
		t.Errorf("sample events of pid 3676 through the events' utid: %v, want 5129", r)
	}
	if r := decodeRows(t, "events with thread and process", res[11]); len(r) != 20 || r[0]["process"] == nil || r[0]["event_name"] == nil {
		t.Errorf("events with their thread and process: %v", r)
	}
	var got []string
	for _, r := range decodeRows(t, "folded", res[7]) {
		got = append(got, r["stack"].(string)+" "+strconv.Itoa(int(num(r["n"]))))
	}
	slices.Sort(got)
	want := strings.Split(strings.TrimSuffix(mustRun(t, "stacks", netETL), "\n"), "\n")
	slices.Sort(want)
	if !slices.Equal(got, want) {
		n := 0
		for _, l := range got {
			if _, ok := slices.BinarySearch(want, l); !ok && n < 5 {
				t.Errorf("SQL line not in stacks: %.300s", l)
				n++
			}
		}
		t.Errorf("folded stacks from SQL: %d lines, stacks: %d", len(got), len(want))
	}
}

// The packets of the corpus's PktMon captures, written as the tables of
// one run (one trace each), are the packets pcapng writes: per trace,
// the rows not dropped are pcapng's default output, the drops those of
// --drop-only. The drops query of docs/tables.md counts them.
func TestCorpusTablesPackets(t *testing.T) {
	dir := etltest.CorpusDir(t)
	query := duckDB(t)
	ins := []string{
		filepath.Join(dir, "Kesiya24+final-project/PktMon.etl"),
		filepath.Join(dir, "NeoChenjf+Finguard/PktMon.etl"),
		filepath.Join(dir, "nathaniel-security+microsoft-pktmon-VPN-capture-traffic/history/508f5bc135c8effceef0879693c6de45f2a92012/PktMon.etl"),
	}
	out := filepath.Join(t.TempDir(), "tables")
	if _, errs, code := runCLI(t, append(append([]string{"tables"}, ins...), "-o", out)...); code != 0 {
		t.Fatalf("tables: exit %d: %s", code, errs)
	}
	d := filepath.ToSlash(out)
	qs := []string{`SELECT trace, count(*) FILTER (WHERE NOT dropped) AS flows, count(*) FILTER (WHERE dropped) AS drops
		FROM '` + d + `/packets.parquet' GROUP BY trace ORDER BY trace`,
		`SELECT count(*) AS n, count(DISTINCT upid) AS ids FROM '` + d + `/processes.parquet'`,
		docQueries(t, out)[4],
		`SELECT trace, list(DISTINCT component ORDER BY component) AS names FROM '` + d + `/packets.parquet' WHERE NOT dropped GROUP BY trace ORDER BY trace`}
	res := query(qs)
	counts := map[float64][2]float64{}
	for _, r := range decodeRows(t, "packets", res[0]) {
		counts[num(r["trace"])] = [2]float64{num(r["flows"]), num(r["drops"])}
	}
	names := map[float64][]string{}
	for _, r := range decodeRows(t, "component names", res[3]) {
		for _, n := range r["names"].([]any) {
			names[num(r["trace"])] = append(names[num(r["trace"])], n.(string))
		}
	}
	totalDrops := 0.0
	for i, in := range ins {
		var want [2]float64
		for j, args := range [][]string{nil, {"--drop-only"}} {
			p := filepath.Join(t.TempDir(), "out.pcapng")
			if _, errs, code := runCLI(t, append([]string{"pcapng", in, "-o", p}, args...)...); code != 0 {
				t.Fatalf("pcapng %s: exit %d: %s", in, code, errs)
			}
			b, _ := os.ReadFile(p)
			pkts, ifs := readPcapng(t, b)
			want[j] = float64(len(pkts))
			if j == 0 {
				// The components are named as pcapng names the interfaces
				// of its packets (pktmon's component list, logged after them).
				used := map[string]bool{}
				for _, q := range pkts {
					used[ifs[q.Interface].Name] = true
				}
				wantNames := slices.Sorted(maps.Keys(used))
				if got := names[float64(i+1)]; !slices.Equal(got, wantNames) {
					t.Errorf("%s: packets' components %q, pcapng's interfaces %q", in, got, wantNames)
				}
			}
		}
		totalDrops += want[1]
		if got := counts[float64(i+1)]; got != want {
			t.Errorf("%s: packets (flows, drops) %v, pcapng %v", in, got, want)
		}
	}
	if r := decodeRows(t, "processes", res[1]); len(r) != 1 || num(r[0]["n"]) != num(r[0]["ids"]) || num(r[0]["n"]) == 0 {
		t.Errorf("upids not unique across traces: %v", r)
	}
	sum := 0.0
	for _, r := range decodeRows(t, "drops by component", res[2]) {
		sum += num(r["drops"])
	}
	if sum != totalDrops || sum == 0 {
		t.Errorf("drops by component add up to %v, pcapng --drop-only %v", sum, totalDrops)
	}
}
