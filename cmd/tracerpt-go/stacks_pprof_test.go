package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/pprof/profile"
)

// goPprof runs `go tool pprof ARGS FILE` and returns its output.
func goPprof(t *testing.T, file string, args ...string) string {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to run go tool pprof: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, gobin, append(append([]string{"tool", "pprof"}, args...), file)...)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "PPROF_TMPDIR="+cmd.Dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go tool pprof %q: %v\n%s", args, err, stderr.String())
	}
	// Mappings named by module and offset say they have no functions, so
	// pprof tries to symbolize them from the binaries, which are not here.
	for _, l := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "Local symbolization failed for ") &&
			!strings.HasPrefix(l, "Some binary filenames not available") && !strings.HasPrefix(l, "Try setting PPROF_BINARY_PATH") {
			t.Errorf("go tool pprof %q says on stderr: %s", args, l)
		}
	}
	return string(out)
}

// pprofRow is one line of `go tool pprof -top`.
type pprofRow struct {
	flat, cum int64
	name      string
}

// pprofTop parses `go tool pprof -top -sample_index=samples` output:
// the total of "Showing nodes accounting for N, P% of TOTAL total" and
// the rows (flat flat% sum% cum cum% name).
func pprofTop(t *testing.T, out string) (total int64, rows []pprofRow) {
	t.Helper()
	header := regexp.MustCompile(`(?m)^Showing nodes accounting for \d+, [\d.]+% of (\d+) total$`)
	m := header.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no total in:\n%s", out)
	}
	total, _ = strconv.ParseInt(m[1], 10, 64)
	row := regexp.MustCompile(`^\s*(\d+)\s+[\d.]+%\s+[\d.]+%\s+(\d+)\s+[\d.]+%\s+(.+)$`)
	inTable := false
	for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if f := strings.Fields(l); len(f) > 0 && f[0] == "flat" {
			inTable = true
			continue
		}
		if !inTable {
			continue
		}
		r := row.FindStringSubmatch(l)
		if r == nil {
			t.Fatalf("-top row %q", l)
		}
		flat, _ := strconv.ParseInt(r[1], 10, 64)
		cum, _ := strconv.ParseInt(r[2], 10, 64)
		rows = append(rows, pprofRow{flat, cum, r[3]})
	}
	return total, rows
}

// foldedFigures aggregates folded output as `go tool pprof -top
// -tagroot=process` aggregates the pprof profile of the same events,
// under pprof's names with addresses dropped: flat per innermost frame,
// cum per frame (once per line), with a .NET method named without its
// module ("mscorlib.ni.dll!System.DateTime.get_Now" is
// "System.DateTime.get_Now" in pprof) and a module as its file name
// ("ntdll.dll" gathers pprof's "ntdll.dll!0x…" functions).
func foldedFigures(t *testing.T, folded string) (total int64, flat, cum map[string]int64) {
	t.Helper()
	flat, cum = map[string]int64{}, map[string]int64{}
	for _, line := range strings.Split(strings.TrimSuffix(folded, "\n"), "\n") {
		i := strings.LastIndexByte(line, ' ')
		n, err := strconv.ParseInt(line[i+1:], 10, 64)
		if i <= 0 || err != nil {
			t.Fatalf("folded line %q", line)
		}
		total += n
		frames := strings.Split(line[:i], ";")
		seen := map[string]bool{}
		for j, f := range frames {
			if j > 0 {
				if _, method, ok := strings.Cut(f, "!"); ok {
					f = method
				}
			}
			if j == len(frames)-1 {
				flat[f] += n
			}
			if !seen[f] {
				seen[f] = true
				cum[f] += n
			}
		}
	}
	return total, flat, cum
}

// pprofModule returns the module of a pprof function name
// "module!0xOFFSET" ("?" for "?!0xADDRESS"), or "" for a .NET method or
// a process.
var pprofNative = regexp.MustCompile(`^(.*)!0x[0-9A-F]+$`)

func pprofModule(name string) string {
	if m := pprofNative.FindStringSubmatch(name); m != nil {
		return m[1]
	}
	return ""
}

// TestStacksPprofOnFixture: the bundled fixture's one CPU sample as a
// pprof profile, read by profile.Parse and by go tool pprof; the binary
// output is refused on a terminal.
func TestStacksPprofOnFixture(t *testing.T) {
	out := filepath.Join(t.TempDir(), "cpu.pb.gz")
	mustRun(t, "stacks", sample, "--format", "pprof", "-o", out)
	p := readProfile(t, out)
	if len(p.Sample) != 1 || p.Period != 1e6 || len(p.SampleType) != 2 || p.SampleType[1].Type != "cpu" {
		t.Fatalf("profile:\n%v", p)
	}
	s := p.Sample[0]
	if s.Label["process"][0] != "notepad (836)" || s.NumLabel["pid"][0] != 836 || s.NumLabel["tid"][0] != 4660 || s.Label["thread"][0] != "4660" ||
		len(s.Location) != 0 || s.Value[0] != 1 || s.Value[1] != 1e6 {
		t.Errorf("sample %v %v %v %v", s.Label, s.NumLabel, s.Value, s.Location)
	}
	total, rows := pprofTop(t, goPprof(t, out, "-top", "-sample_index=samples", "-tagroot=process"))
	if total != 1 || len(rows) != 1 || rows[0] != (pprofRow{1, 1, "notepad (836)"}) {
		t.Errorf("go tool pprof -top: %d total, %v", total, rows)
	}
	if top := goPprof(t, out, "-top"); !strings.Contains(top, "Total samples = 1ms") || !strings.Contains(top, "sampling interval 1ms (Windows' default") {
		t.Errorf("go tool pprof -top:\n%s", top)
	}

	// Standard output: written when it is not a terminal, refused when it is.
	stdout := mustRun(t, "stacks", sample, "--format", "pprof")
	if p2, err := profile.Parse(strings.NewReader(stdout)); err != nil || len(p2.Sample) != 1 {
		t.Errorf("pprof on standard output: %v", err)
	}
	old := stdoutIsTerminal
	stdoutIsTerminal = func(io.Writer) bool { return true }
	defer func() { stdoutIsTerminal = old }()
	stdout, stderr, code := runCLI(t, "stacks", sample, "--format", "pprof")
	if code != exitUsage || stdout != "" || !strings.Contains(stderr, "give -o FILE") {
		t.Errorf("pprof to a terminal: exit %d, %q", code, stderr)
	}
	if got := mustRun(t, "stacks", sample); got != "notepad (836) 1\n" {
		t.Errorf("folded to a terminal: %q", got)
	}
}

// TestCorpusStacksPprof runs go tool pprof -top on the CPU profile of
// net.4.5.2.x64 and checks its figures against the folded output of the
// same samples: the total, the top ten functions, every function's flat
// count per module or method, the cum counts of .NET methods, and with
// -tagroot=process each process's total.
func TestCorpusStacksPprof(t *testing.T) {
	netETL, _ := netCorpus(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "cpu.pb.gz")
	start := time.Now()
	mustRun(t, "stacks", netETL, "--format", "pprof", "-o", out)
	t.Logf("stacks --format pprof: %v", time.Since(start))
	folded := mustRun(t, "stacks", netETL)
	fTotal, fFlat, fCum := foldedFigures(t, folded)
	if fTotal != 6320 {
		t.Fatalf("folded total %d", fTotal)
	}

	// The top ten.
	top10 := goPprof(t, out, "-top", "-nodecount=10", "-sample_index=samples")
	total, rows := pprofTop(t, top10)
	if total != fTotal || len(rows) != 10 {
		t.Fatalf("go tool pprof -top: %d total, %d rows, want %d total:\n%s", total, len(rows), fTotal, top10)
	}
	if !strings.Contains(top10, "Type: samples") || !strings.Contains(top10, "Total samples = 6320") {
		t.Errorf("header:\n%s", top10)
	}
	t.Logf("go tool pprof -top -nodecount=10:\n%s", top10)

	// Every node, processes as roots: the folded format's figures.
	all := goPprof(t, out, "-top", "-nodefraction=0", "-edgefraction=0", "-tagroot=process", "-sample_index=samples")
	total, allRows := pprofTop(t, all)
	if total != fTotal {
		t.Errorf("-tagroot=process: total %d", total)
	}
	flat := map[string]int64{}
	var flatSum int64
	byName := map[string]pprofRow{}
	for _, r := range allRows {
		byName[r.name] = r
		flatSum += r.flat
		key := r.name
		if mod := pprofModule(r.name); mod != "" {
			key = mod
		} else if r.cum != fCum[key] {
			// A .NET method or a process: one node in both formats.
			t.Errorf("%s: cum %d, folded %d", r.name, r.cum, fCum[key])
		}
		if r.flat != 0 {
			flat[key] += r.flat
		}
	}
	if flatSum != fTotal {
		t.Errorf("flat counts add up to %d", flatSum)
	}
	for k, v := range fFlat {
		if flat[k] != v {
			t.Errorf("flat of %s: pprof %d, folded %d", k, flat[k], v)
		}
	}
	for k, v := range flat {
		if _, ok := fFlat[k]; !ok {
			t.Errorf("flat of %s: pprof %d, folded none", k, v)
		}
	}
	if r := byName["Test.x64 (3676)"]; r.cum != 5129 {
		t.Errorf("Test.x64 (3676): %+v", r)
	}
	// The top ten are the heaviest nodes, with the figures of the full
	// listing; the .NET methods among them have the folded figures.
	var minShown int64 = -1
	for i, r := range rows {
		if full, ok := byName[r.name]; !ok || full != r {
			t.Errorf("top row %d %+v, full listing %+v", i, r, full)
		}
		if i > 0 && r.flat > rows[i-1].flat {
			t.Errorf("row %d not sorted by flat", i)
		}
		if pprofModule(r.name) == "" && (r.flat != fFlat[r.name] || r.cum != fCum[r.name]) {
			t.Errorf("%s: flat %d cum %d, folded %d %d", r.name, r.flat, r.cum, fFlat[r.name], fCum[r.name])
		}
		minShown = r.flat
	}
	shown := map[string]bool{}
	for _, r := range rows {
		shown[r.name] = true
	}
	for _, r := range allRows {
		if !shown[r.name] && !strings.HasSuffix(r.name, ")") && r.flat > minShown {
			t.Errorf("%s (flat %d) is not in the top ten", r.name, r.flat)
		}
	}
	if rows[0].name != "System.DateTime.GetDatePart" || rows[0].flat != 1855 {
		t.Errorf("top function %+v", rows[0])
	}

	// CPU time: 6320 samples of 1 ms.
	if cpu := goPprof(t, out, "-top", "-nodecount=1"); !strings.Contains(cpu, "Type: cpu") || !strings.Contains(cpu, "Total samples = 6.32s") ||
		!strings.Contains(cpu, "sampling interval 1ms (from the trace's PerfInfo/CollectionStart event)") {
		t.Errorf("cpu:\n%s", cpu)
	}

	// Other events: the .NET allocation ticks, as many as folded counts.
	alloc := filepath.Join(dir, "alloc.pb.gz")
	mustRun(t, "stacks", netETL, "--event", "{e13c0d23-ccbc-4e12-931b-d9cc2eee27e4}/10", "--format", "pprof", "-o", alloc)
	allocTop := goPprof(t, alloc, "-top", "-nodecount=5")
	total, rows = pprofTop(t, allocTop)
	if total != 10382 || len(rows) != 5 || !strings.Contains(allocTop, "Type: events") {
		t.Errorf("allocation ticks: %d total, %v:\n%s", total, rows, allocTop)
	}
}
