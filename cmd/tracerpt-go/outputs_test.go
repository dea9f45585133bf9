package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExistingOutputRefused: every command refuses an existing regular
// file without -y the same way (refuseExisting): exit status 4, one
// message, the file left as it was.
func TestExistingOutputRefused(t *testing.T) {
	man, err := filepath.Abs(filepath.Join(fixtureDir, "manifest-types.man"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	t.Chdir(dir)
	events := filepath.Join(dir, "events.jsonl")
	if err := os.WriteFile(events, []byte(`{"provider_name":"etwkit-test","event_name":"E","time":"2024-01-01T00:00:00Z","properties":{"n":1}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	export := filepath.Join(dir, "export")
	first := mustRun(t, "schemas", man, "--export", export)
	exported, _, ok := strings.Cut(first, ":")
	if !ok {
		t.Fatalf("schemas --export: %q", first)
	}
	existing := filepath.Join(dir, "existing")
	for _, c := range []struct {
		name string
		args []string
		path string // the output refused
	}{
		{"dump", []string{sample, "-of", "JSON", "-o", existing}, existing},
		{"summary", []string{sample, "-summary", existing}, existing},
		{"report", []string{"report", sample, "-o", existing}, existing},
		{"dump -report", []string{sample, "-report", existing}, existing},
		{"relog", []string{"relog", sample, "-o", existing}, existing},
		{"synth", []string{"synth", events, "-o", existing}, existing},
		{"pcapng", []string{"pcapng", sample, "-o", existing}, existing},
		{"stacks", []string{"stacks", sample, "-o", existing}, existing},
		{"schemas --export", []string{"schemas", man, "--export", export}, exported},
	} {
		if err := os.WriteFile(existing, []byte("keep"), 0o644); err != nil {
			t.Fatal(err)
		}
		before, _ := os.ReadFile(c.path)
		_, errs, code := runCLI(t, c.args...)
		want := "tracerpt-go: " + c.path + " already exists; add -y to overwrite it\n"
		if code != exitExists || errs != want {
			t.Errorf("%s: exit %d, stderr %q; want %d, %q", c.name, code, errs, exitExists, want)
		}
		if after, _ := os.ReadFile(c.path); string(after) != string(before) {
			t.Errorf("%s: the existing file was changed", c.name)
		}
		// With -y it is written.
		if _, errs, code := runCLI(t, append(c.args, "-y")...); code != 0 {
			t.Errorf("%s -y: exit %d: %s", c.name, code, errs)
		}
	}
}

// TestDevNullOutput: only regular files are protected, so /dev/null is
// written to without -y by every command that writes a file, and stays
// the device it is (relog, synth and pcapng write other outputs under a
// temporary name: /dev/null must not be replaced by one).
func TestDevNullOutput(t *testing.T) {
	isDevice := func() bool {
		st, err := os.Stat(os.DevNull)
		return err == nil && st.Mode()&os.ModeCharDevice != 0
	}
	if !isDevice() {
		t.Skip("no /dev/null character device")
	}
	dir := t.TempDir()
	t.Chdir(dir)
	events := filepath.Join(dir, "events.jsonl")
	if err := os.WriteFile(events, []byte(`{"provider_name":"etwkit-test","event_name":"E","time":"2024-01-01T00:00:00Z","properties":{"n":1}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{sample, "-of", "JSON", "-o", os.DevNull},
		{"relog", sample, "-o", os.DevNull},
		{"synth", events, "-o", os.DevNull},
		{"pcapng", sample, "-o", os.DevNull},
		{"report", sample, "-o", os.DevNull},
		{"stacks", sample, "-o", os.DevNull},
	} {
		if _, errs, code := runCLI(t, args...); code != 0 {
			t.Errorf("%q: exit %d: %s", args, code, errs)
		}
		if !isDevice() {
			t.Fatalf("%q replaced %s", args, os.DevNull)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(os.DevNull), ".null.*.tmp")); len(left) > 0 {
		t.Errorf("temporary files left: %q", left)
	}
}

// TestOutputIsAnImport: report and pcapng refuse an output that is one of
// the -import paths (or lies in an imported folder), as the dump does:
// exit status 2, -y or not, the file left as it was.
func TestOutputIsAnImport(t *testing.T) {
	dir := t.TempDir()
	b, err := os.ReadFile(filepath.Join(fixtureDir, "manifest-types.man"))
	if err != nil {
		t.Fatal(err)
	}
	man := filepath.Join(dir, "x.man")
	if err := os.WriteFile(man, b, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{sample, "-of", "JSON", "-import", man, "-o", man, "-y"},
		{"report", sample, "-import", man, "-o", man, "-y"},
		{"report", sample, "-import", dir, "-o", man, "-y"},
		{"pcapng", sample, "-import", man, "-o", man, "-y"},
		{"pcapng", sample, "-import", dir, "-o", man, "-y"},
		{"stacks", sample, "-import", man, "-o", man, "-y"},
	} {
		_, errs, code := runCLI(t, args...)
		if code != exitUsage || !strings.Contains(errs, "refusing to write over an input") {
			t.Errorf("%q: exit %d, stderr %q", args, code, errs)
		}
		if got, _ := os.ReadFile(man); string(got) != string(b) {
			t.Fatalf("%q wrote over the import", args)
		}
	}
}

// TestAnalysisImportErrors: stats and stacks import as the dump does: a
// missing -import path is exit status 3 (it used to be a warning).
func TestAnalysisImportErrors(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing.man")
	for _, args := range [][]string{
		{"stats", sample, "-import", missing},
		{"stacks", sample, "-import", missing},
		{"stacks", sample, "--event", "MSNT_SystemTrace/PerfInfo/SampleProf", "-import", missing},
	} {
		out, errs, code := runCLI(t, args...)
		if code != exitInput || !strings.Contains(errs, "missing.man") || out != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want %d", args, code, out, errs, exitInput)
		}
	}
	// An imported file that is a manifest decodes as before.
	man := filepath.Join(fixtureDir, "manifest-types.man")
	for _, args := range [][]string{{"stats", sample, "-import", man}, {"stacks", sample, "-import", man, "-v"}} {
		mustRun(t, args...)
	}
}

// TestAtomicOutputThroughLink: an output written through a temporary file
// and a rename (relog, synth, pcapng) replaces the file a symbolic link
// names, not the link, and keeps the file's permissions.
func TestAtomicOutputThroughLink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target.etl")
	if err := os.WriteFile(target, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.etl")
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	mustRun(t, "relog", sample, "-o", link, "-y")
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v %v", st.Mode(), err)
	}
	st, err := os.Stat(target)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 || st.Size() <= 3 {
		t.Errorf("target: mode %v, %d bytes; want 0600 and the relogged trace", st.Mode().Perm(), st.Size())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("%d files left in the folder, want the target and the link", len(entries))
	}
}

// TestStacksSaysWhyEmpty: a profile with nothing in it is exit status 7
// with no file written (flamegraph.pl refuses an empty folded file);
// standard error says why and what to do. Events without stacks still
// make a profile, with a warning.
func TestStacksSaysWhyEmpty(t *testing.T) {
	dir := t.TempDir()
	for i, c := range []struct {
		args []string
		want string
		code int
	}{
		{[]string{"stacks", filepath.Join(fixtureDir, "manifest-types.etl")}, "no CPU samples in the trace, nothing written (record them with xperf", exitEmpty},
		{[]string{"stacks", sample}, "none of the 1 events selected has a stack", 0},
		{[]string{"stacks", sample, "--pid", "99999"}, "no CPU samples of the processes --pid 99999 names", exitEmpty},
		{[]string{"stacks", sample, "--event", "nosuch/Event"}, "no events match --event nosuch/Event", exitEmpty},
		{[]string{"stacks", sample, "--event", "etwkit-shop/Checkout"}, "has a stack", 0},
	} {
		out := filepath.Join(dir, fmt.Sprintf("f%d.txt", i))
		_, stderr, code := runCLI(t, append(c.args, "-o", out)...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d, %q", c.args, code, stderr, c.code, c.want)
		}
		if _, err := os.Stat(out); (err == nil) != (c.code == 0) {
			t.Errorf("%v: %s written: %v", c.args, out, err == nil)
		}
	}
}

// TestPcapngSaysWhyEmpty: a trace without packets makes a pcapng file with
// its section header only (tshark reads it as an empty capture; the README
// recipe test runs tshark on it), exit status 0, and standard error says
// how to record packets.
func TestPcapngSaysWhyEmpty(t *testing.T) {
	out := filepath.Join(t.TempDir(), "p.pcapng")
	_, stderr, code := runCLI(t, "pcapng", sample, "-o", out)
	if code != 0 || !strings.Contains(stderr, "pktmon start --capture") {
		t.Errorf("exit %d, stderr %q; want 0 and how to record packets", code, stderr)
	}
	if st, err := os.Stat(out); err != nil || st.Size() == 0 {
		t.Errorf("%s: %v", out, err)
	}
}
