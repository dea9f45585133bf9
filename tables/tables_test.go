package tables

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/etwkit/etw/analysis"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/etltest"
)

const netRel = "microsoft+perfview/src/TraceEvent/TraceEvent.Tests/inputs/net.4.5.2.x64.etl.zip.unzipped/net.4.5.2.x64.etl"

type memFile struct{ bytes.Buffer }

func (*memFile) Close() error { return nil }

func openETL(t testing.TB, path string) *etl.File {
	t.Helper()
	f, err := etl.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// memWriter returns a writer of the tables into memory.
func memWriter(t testing.TB, opts *Options) (*Writer, map[string]*memFile) {
	t.Helper()
	outs := map[string]*memFile{}
	w, err := NewWriter(func(name string) (io.WriteCloser, error) {
		outs[name] = &memFile{}
		return outs[name], nil
	}, opts)
	if err != nil {
		t.Fatal(err)
	}
	return w, outs
}

// writeMem writes the tables of traces into memory.
func writeMem(t testing.TB, opts *Options, paths ...string) (*Writer, map[string]*memFile) {
	t.Helper()
	w, outs := memWriter(t, opts)
	for _, p := range paths {
		if _, err := w.Add(p, []*etl.File{openETL(t, p)}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return w, outs
}

func readRows[T any](t testing.TB, f *memFile) []T {
	t.Helper()
	rows, err := parquet.Read[T](bytes.NewReader(f.Bytes()), int64(f.Len()))
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// Every table is written and reads back with the rows counted; the
// samples and stacks agree with the model's counts and the prefix tree
// is closed (every parent and frame exists); two traces get distinct
// ids.
func TestCorpusTables(t *testing.T) {
	net := etltest.CorpusFile(t, netRel)
	w, outs := writeMem(t, &Options{RowGroupRows: 1000}, net, net)
	rows := w.Rows()
	for _, n := range Names {
		if outs[n] == nil || outs[n].Len() == 0 {
			t.Fatalf("table %s not written", n)
		}
	}
	procs := readRows[ProcessRow](t, outs["processes"])
	samples := readRows[SampleRow](t, outs["samples"])
	stacks := readRows[StackRow](t, outs["stacks"])
	frames := readRows[FrameRow](t, outs["frames"])
	if int64(len(procs)) != rows["processes"] || int64(len(samples)) != rows["samples"] || int64(len(stacks)) != rows["stacks"] {
		t.Fatalf("rows read back differ from Rows(): %v", rows)
	}
	files := []*etl.File{openETL(t, net)}
	dec := decode.New()
	m, err := analysis.Build(files, dec, nil)
	if err != nil {
		t.Log(err)
	}
	_, st, _ := m.Collect(files, dec, nil)
	cpu := st.Selected
	if len(samples) != 2*cpu || len(procs) != 2*len(m.Processes()) {
		t.Errorf("%d samples and %d processes, want twice %d and %d", len(samples), len(procs), cpu, len(m.Processes()))
	}
	seen := map[int64]bool{}
	for _, p := range procs {
		if seen[p.Upid] {
			t.Fatalf("upid %d twice", p.Upid)
		}
		seen[p.Upid] = true
	}
	frameIDs := map[int64]bool{}
	for _, f := range frames {
		frameIDs[f.FrameID] = true
	}
	nodes := map[int64]int32{}
	for _, s := range stacks {
		if !frameIDs[s.FrameID] {
			t.Fatalf("stack %d: frame %d not in frames", s.StackID, s.FrameID)
		}
		if s.ParentID != 0 {
			d, ok := nodes[s.ParentID]
			if !ok || d != s.Depth-1 {
				t.Fatalf("stack %d: parent %d missing or at the wrong depth", s.StackID, s.ParentID)
			}
		}
		nodes[s.StackID] = s.Depth
	}
	for _, s := range samples {
		if _, ok := nodes[s.StackID]; s.StackID != 0 && !ok {
			t.Fatalf("sample at %d: stack %d not in stacks", s.TS, s.StackID)
		}
	}
}

// The fixture (no samples, no model beyond a few events) writes every
// table, the traces row included.
func TestSampleTrace(t *testing.T) {
	p := "../testdata/etl/sample.etl"
	if _, err := os.Stat(p); err != nil {
		t.Fatal(err)
	}
	_, outs := writeMem(t, nil, p)
	tr := readRows[TraceRow](t, outs["traces"])
	if len(tr) != 1 || tr[0].Trace != 1 || tr[0].Events == 0 || tr[0].Name != p {
		t.Errorf("traces: %+v", tr)
	}
}

// BenchmarkTables writes the tables of net.4.5.2.x64.etl into memory; it
// reports the CPU time per run (user + system, all goroutines), to set
// beside parquetout's BenchmarkDumpNet/PARQUET (docs/performance.md):
//
//	ETL_CORPUS=… go test ./tables -run '^$' -bench Tables -benchtime 10x -cpu 2
func BenchmarkTables(b *testing.B) {
	net := etltest.CorpusFile(b, netRel)
	cpu := etltest.ProcessCPU()
	for b.Loop() {
		writeMem(b, nil, net)
	}
	b.ReportMetric((etltest.ProcessCPU()-cpu).Seconds()*1e3/float64(b.N), "cpu-ms/op")
}

// The events table has a row per record of each trace (what info counts,
// etl.File.Scan), its trace column naming the trace; with MaxFileRows
// every table's files hold at most that many rows and together all of
// them.
func TestCorpusEventsFiles(t *testing.T) {
	net := etltest.CorpusFile(t, netRel)
	f := openETL(t, net)
	records := int64(f.Scan().Events)
	dir := t.TempDir()
	const maxRows = 40000
	w, err := CreateDir(dir, &Options{MaxFileRows: maxRows, RowGroupRows: 10000})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := w.Add(net, []*etl.File{openETL(t, net)}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rows := w.Rows()
	if rows["events"] != 2*records {
		t.Errorf("events: %d rows, want twice info's %d", rows["events"], records)
	}
	type traceCol struct {
		Trace int32 `parquet:"trace"`
	}
	for _, name := range Names {
		files, _ := filepath.Glob(filepath.Join(dir, name+"*.parquet"))
		var total int64
		perTrace := map[int32]int64{}
		for _, p := range files {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			pf, err := parquet.OpenFile(bytes.NewReader(b), int64(len(b)))
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			if n := pf.NumRows(); n > maxRows || n == 0 && len(files) > 1 {
				t.Errorf("%s: %d rows, want 1 to %d", p, n, maxRows)
			}
			total += pf.NumRows()
			if name == "events" {
				tr, err := parquet.Read[traceCol](bytes.NewReader(b), int64(len(b)))
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range tr {
					perTrace[r.Trace]++
				}
			}
		}
		if total != rows[name] {
			t.Errorf("%s: %d rows in %d files, Rows() says %d", name, total, len(files), rows[name])
		}
		if want := (rows[name] + maxRows - 1) / maxRows; int64(len(files)) != max(want, 1) {
			t.Errorf("%s: %d files for %d rows", name, len(files), rows[name])
		}
		if name == "events" && (perTrace[1] != records || perTrace[2] != records) {
			t.Errorf("events per trace: %v, want %d each", perTrace, records)
		}
	}
}

// The aggregates of net.4.5.2.x64 are what the stats, stacks and
// providers commands' code gives: the CPU samples of each process and
// innermost frame are the folded stacks' counts (analysis.Model.Collect),
// the events of each provider decode.CountProviders', and the trace
// names its computer (SystemConfig).
func TestCorpusAggregates(t *testing.T) {
	net := etltest.CorpusFile(t, netRel)
	outs := map[string]*memFile{}
	w, err := NewWriter(func(name string) (io.WriteCloser, error) {
		outs[name] = &memFile{}
		return outs[name], nil
	}, &Options{Aggregates: true})
	if err != nil {
		t.Fatal(err)
	}
	st, err := w.Add(net, []*etl.File{openETL(t, net)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	ag := st.Aggregates
	if ag == nil || ag.Computer != "BRIANROB-W8" {
		t.Fatalf("aggregates %v: want the computer BRIANROB-W8", ag)
	}
	files := []*etl.File{openETL(t, net)}
	dec := decode.New()
	m, _ := analysis.Build(files, dec, nil)
	prof, _, _ := m.Collect(files, dec, nil)
	want := map[string]int64{}
	prof.EachStack(func(frames []string, weight int64) {
		k := frames[0]
		if len(frames) > 1 {
			k += ";" + frames[len(frames)-1]
		}
		want[k] += weight
	})
	got := map[string]int64{}
	for _, r := range ag.CPU {
		k := fmt.Sprintf("%s (%d)", r.Process, r.PID)
		if r.Frame != "" {
			k += ";" + r.Frame
		}
		got[k] += r.Samples
	}
	n := 0
	for k, v := range want {
		if got[k] != v && n < 10 {
			t.Errorf("%s: %d samples, stacks %d", k, got[k], v)
			n++
		}
	}
	for k, v := range got {
		if _, ok := want[k]; !ok && n < 10 {
			t.Errorf("%s: %d samples, not in stacks", k, v)
			n++
		}
	}
	pstats, _ := decode.CountProviders(decode.New(), files)
	byGUID := map[string]int64{}
	for _, r := range ag.ProviderEvents {
		byGUID[r.ProviderGUID] += r.Events
	}
	for _, p := range pstats {
		if g := "{" + p.GUID.String() + "}"; byGUID[g] != int64(p.Events) {
			t.Errorf("provider %s %s: %d events, providers %d", p.Name, g, byGUID[g], p.Events)
		}
	}
	if len(byGUID) != len(pstats) {
		t.Errorf("%d providers, providers %d", len(byGUID), len(pstats))
	}
}
