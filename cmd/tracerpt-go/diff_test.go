package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/pprof/profile"
	"github.com/spf13/cobra"

	"github.com/etwkit/etw/analysis"
	"github.com/etwkit/etw/internal/etltest"
)

const shutdownRel = "airbus-cert+etl-parser/tests/example/ShutdownPerfDiagLogger.etl"

// byImageRoot adds up folded lines ("Name (pid);...  n") by stack, the
// pid of the root left out: what a column of the diff-folded output
// holds.
func byImageRoot(t *testing.T, folded string) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	for _, l := range strings.Split(strings.TrimSuffix(folded, "\n"), "\n") {
		i := strings.LastIndexByte(l, ' ')
		n, err := strconv.ParseInt(l[i+1:], 10, 64)
		if i <= 0 || err != nil {
			t.Fatalf("folded line %q", l)
		}
		root, rest, more := strings.Cut(l[:i], ";")
		if j := strings.LastIndex(root, " ("); j > 0 {
			root = root[:j]
		}
		if more {
			root += ";" + rest
		}
		out[root] += n
	}
	return out
}

// diffFolded parses difffolded.pl's lines: stack → before, after.
func diffFolded(t *testing.T, s string) map[string][2]int64 {
	t.Helper()
	out := map[string][2]int64{}
	for _, l := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
		f := strings.Split(l, " ")
		if len(f) < 3 {
			t.Fatalf("diff-folded line %q", l)
		}
		b, err1 := strconv.ParseInt(f[len(f)-2], 10, 64)
		a, err2 := strconv.ParseInt(f[len(f)-1], 10, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("diff-folded line %q", l)
		}
		key := strings.Join(f[:len(f)-2], " ")
		if _, dup := out[key]; dup {
			t.Fatalf("stack twice: %q", key)
		}
		out[key] = [2]int64{b, a}
	}
	return out
}

// TestStacksBaselineCorpus: net.4.5.2.x64 against itself gives pairs
// whose columns both equal its folded output (roots by image name); the
// shutdown trace (no CPU samples) as the baseline gives 0 before and the
// folded output after.
func TestStacksBaselineCorpus(t *testing.T) {
	net, _ := netCorpus(t)
	shutdown := filepath.Join(etltest.CorpusDir(t), shutdownRel)
	plain := byImageRoot(t, mustRun(t, "stacks", net))
	self := diffFolded(t, mustRun(t, "stacks", "--baseline", net, net))
	if len(self) != len(plain) {
		t.Errorf("%d pairs, %d folded stacks by image", len(self), len(plain))
	}
	for k, n := range plain {
		if self[k] != [2]int64{n, n} {
			t.Errorf("%s: pair %v, folded %d", k, self[k], n)
		}
	}
	out, errs, code := runCLI(t, "stacks", "--baseline", shutdown, net)
	if code != 0 || !strings.Contains(errs, "the baseline has no events selected") {
		t.Fatalf("exit %d: %s", code, errs)
	}
	two := diffFolded(t, out)
	for k, n := range plain {
		if two[k] != [2]int64{0, n} {
			t.Errorf("%s: pair %v, folded %d", k, two[k], n)
		}
	}
	if len(two) != len(plain) {
		t.Errorf("%d pairs, %d folded stacks", len(two), len(plain))
	}
	// Reversed: everything shrank.
	rev := diffFolded(t, mustRun(t, "stacks", "--baseline", net, shutdown))
	for k, n := range plain {
		if rev[k] != [2]int64{n, 0} {
			t.Errorf("reversed %s: pair %v, folded %d", k, rev[k], n)
		}
	}
	// In ms: each sample weighs the trace's interval (its PerfInfo
	// events say 1 ms), so the pairs are the counts.
	if ms := diffFolded(t, mustRun(t, "stacks", "--baseline", shutdown, net, "--weight", "ms")); len(ms) != len(two) {
		t.Errorf("--weight ms: %d pairs, %d in samples", len(ms), len(two))
	} else {
		for k, v := range two {
			if ms[k] != v {
				t.Errorf("--weight ms: %s: %v, in samples %v", k, ms[k], v)
			}
		}
	}
	if _, errs, code := runCLI(t, "stacks", "--baseline", shutdown, shutdown); code != exitEmpty || !strings.Contains(errs, "neither the baseline nor the trace") {
		t.Errorf("no samples in either: exit %d: %s", code, errs)
	}
	for _, bad := range [][]string{
		{"--baseline", net, net, "--format", "speedscope"},
		{"--baseline", net, net, "--weight", "us"},
		{"--baseline", net, net, "--format", "pprof", "-o", filepath.Join(t.TempDir(), "a.pb.gz")},
		{net, "--weight", "us"},
		{net, "--weight", "ms", "--event", "PerfInfo/SampleProf"},
		{"--baseline", net, net, "--weight", "ms", "--event", "PerfInfo/SampleProf"},
		{"--baseline", net, net, "--pid", "4"},
		{net, "--baseline-o", filepath.Join(t.TempDir(), "b.pb.gz")},
	} {
		if _, errs, code := runCLI(t, append([]string{"stacks"}, bad...)...); code != exitUsage {
			t.Errorf("%q: exit %d, want %d: %s", bad, code, exitUsage, errs)
		}
	}
}

// TestStacksBaselinePprof: with --format pprof the two profiles are what
// go tool pprof -diff_base subtracts: the trace against itself leaves
// nothing, the shutdown trace as baseline leaves all of net.4.5.2's
// samples; each profile is the plain command's.
func TestStacksBaselinePprof(t *testing.T) {
	net, _ := netCorpus(t)
	shutdown := filepath.Join(etltest.CorpusDir(t), shutdownRel)
	dir := t.TempDir()
	plain, before, after := filepath.Join(dir, "plain.pb.gz"), filepath.Join(dir, "before.pb.gz"), filepath.Join(dir, "after.pb.gz")
	mustRun(t, "stacks", "--format", "pprof", net, "-o", plain)
	mustRun(t, "stacks", "--format", "pprof", "--baseline", net, "--baseline-o", before, net, "-o", after)
	for _, f := range []string{before, after} {
		if !sameFile(t, plain, f) {
			t.Errorf("%s differs from the plain profile", f)
		}
	}
	total := func(f string) int64 {
		p := readProfile(t, f)
		var n int64
		for _, s := range p.Sample {
			n += s.Value[0]
		}
		return n
	}
	n := total(plain)
	if n == 0 {
		t.Fatal("no samples")
	}
	if got, _ := pprofTop(t, goPprof(t, after, "-top", "-sample_index=samples", "-diff_base="+before)); got != n {
		// pprof's total of a diff is the trace's; every row is 0.
		t.Errorf("self diff: total %d, want %d", got, n)
	}
	_, rows := pprofTop(t, goPprof(t, after, "-top", "-sample_index=samples", "-diff_base="+before))
	for _, r := range rows {
		if r.flat != 0 || r.cum != 0 {
			t.Errorf("self diff row %+v", r)
		}
	}
	mustRun(t, "stacks", "--format", "pprof", "--baseline", shutdown, "--baseline-o", before, net, "-o", after, "-y")
	if b := total(before); b != 0 {
		t.Errorf("the shutdown trace's profile holds %d samples", b)
	}
	_, rows = pprofTop(t, goPprof(t, after, "-top", "-nodefraction=0", "-nodecount=100000", "-sample_index=samples", "-diff_base="+before))
	var flat int64
	for _, r := range rows {
		flat += r.flat
	}
	var stackless int64 // samples without locations count in totals only
	for _, s := range readProfile(t, plain).Sample {
		if len(s.Location) == 0 {
			stackless += s.Value[0]
		}
	}
	if flat != n-stackless {
		t.Errorf("diff against an empty baseline: flat %d, want %d − %d", flat, n, stackless)
	}
}

func readProfile(t *testing.T, path string) *profile.Profile {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func sameFile(t *testing.T, a, b string) bool {
	t.Helper()
	x, err1 := os.ReadFile(a)
	y, err2 := os.ReadFile(b)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	return string(x) == string(y)
}

// TestReportBaselineCorpus: report --baseline writes "diff" in the JSON
// (the same figures as the library's, checked in package report), and
// the report without it has none; a missing baseline is an error.
func TestReportBaselineCorpus(t *testing.T) {
	net, _ := netCorpus(t)
	shutdown := filepath.Join(etltest.CorpusDir(t), shutdownRel)
	var with, without struct {
		Diff *struct {
			Before struct{ Title string }
			After  struct {
				CPUSamples int64 `json:"cpu_samples"`
			}
			Processes []struct{ Name string }
		} `json:"diff"`
		CPU struct{ Samples int64 }
	}
	if err := json.Unmarshal([]byte(mustRun(t, "report", "--json", "-o", "-", "--baseline", shutdown, net)), &with); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(mustRun(t, "report", "--json", "-o", "-", net)), &without); err != nil {
		t.Fatal(err)
	}
	if with.Diff == nil || without.Diff != nil || with.Diff.Before.Title != filepath.Base(shutdown) ||
		with.Diff.After.CPUSamples != without.CPU.Samples || len(with.Diff.Processes) == 0 {
		t.Errorf("diff %+v, without %+v", with.Diff, without.Diff)
	}
	if _, errs, code := runCLI(t, "report", "--json", "-o", "-", "--baseline", filepath.Join(t.TempDir(), "none.etl"), net); code == 0 {
		t.Errorf("a missing baseline: exit 0: %s", errs)
	}
	if _, errs, code := runCLI(t, "report", "-o", shutdown, "-y", "--baseline", shutdown, net); code == 0 {
		t.Errorf("the output over the baseline: exit 0: %s", errs)
	}
}

// TestNoteIntervals: traces sampled at different intervals are said to
// be, with the way to compare them; equal ones are not.
func TestNoteIntervals(t *testing.T) {
	side := func(label string, iv time.Duration) *diffSide {
		return &diffSide{label: label, pp: &profile.Profile{}, ppst: analysis.PprofStats{Interval: iv, IntervalFrom: "PerfInfo/CollectionStart"}}
	}
	for _, c := range []struct {
		b, a        time.Duration
		format, say string
	}{
		{time.Millisecond, time.Millisecond, "pprof", ""},
		{time.Millisecond, 125 * time.Microsecond, "pprof", "-sample_index=cpu"},
		{time.Millisecond, 125 * time.Microsecond, "folded", "--weight ms"},
	} {
		var errb bytes.Buffer
		cmd := &cobra.Command{}
		cmd.SetErr(&errb)
		noteIntervals(cmd, []*diffSide{side("baseline", c.b), side("trace", c.a)}, [2]time.Time{}, c.format, "samples")
		got := errb.String()
		if c.say == "" && got != "" || c.say != "" && (!strings.Contains(got, c.say) || !strings.Contains(got, "baseline every 1ms") || !strings.Contains(got, "trace every 125µs")) {
			t.Errorf("%v %v %s: %q", c.b, c.a, c.format, got)
		}
	}
}
