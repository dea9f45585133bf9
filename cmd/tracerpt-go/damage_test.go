package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/etwkit/etw/internal/etltest"
)

// TestDamageOneCount: for the same input, info's error count, the
// warnings of a dump (which reads twice with analysis: the model pass
// and the dump), of a report and of stacks, the report's damaged list
// and --strict agree: each damaged buffer or record once per command,
// naming the file and offset.
func TestDamageOneCount(t *testing.T) {
	inputs := map[string]int{
		etltest.AttackFile(t, "wu-151-silentloss.etl"):            1,
		etltest.AttackFile(t, "doubled.etl"):                      3,
		etltest.AttackFile(t, "buf2_dataend_0x10001_classic.etl"): 1,
		etltest.CorpusFile(t, "microsoft+perfview/src/TraceEvent/TraceEvent.Tests/inputs/net.4.5.2.x64.etl.zip.unzipped/net.4.5.2.x64.etl"): 0,
	}
	dir := t.TempDir()
	for in, want := range inputs {
		t.Run(filepath.Base(in), func(t *testing.T) {
			out := mustRun(t, "info", "--json", in)
			var fi struct{ Errors []json.RawMessage }
			if err := json.Unmarshal([]byte(out), &fi); err != nil {
				t.Fatal(err)
			}
			if len(fi.Errors) != want {
				t.Errorf("info: %d errors, want %d", len(fi.Errors), want)
			}
			warnings := func(name string, args ...string) {
				t.Helper()
				_, stderr, code := runCLI(t, args...)
				// (stacks of a trace without CPU samples exits 7, after the
				// pass that warns.)
				if code != 0 && !(name == "stacks" && code == exitEmpty) {
					t.Fatalf("%s: exit %d: %s", name, code, stderr)
				}
				n := strings.Count(stderr, "tracerpt-go: warning: "+in+": offset 0x")
				if n != want || strings.Count(stderr, in+":") != want {
					t.Errorf("%s: %d warnings naming the file and offset, want %d:\n%s", name, n, want, stderr)
				}
			}
			warnings("dump with analysis", in, "-of", "JSON", "-o", filepath.Join(dir, "d.json"), "-y")
			warnings("dump", in, "-of", "CSV", "-o", filepath.Join(dir, "d.csv"), "-y", "--no-analysis")
			warnings("stacks", "stacks", in, "-o", filepath.Join(dir, "s.txt"), "-y")
			rep := filepath.Join(dir, "r.json")
			warnings("report", "report", in, "--json", "-o", rep, "-y")
			var d struct {
				Overview struct{ Damaged []json.RawMessage }
			}
			if err := json.Unmarshal([]byte(mustRun(t, "report", "--json", "-o", "-", in)), &d); err != nil {
				t.Fatal(err)
			}
			if len(d.Overview.Damaged) != want {
				t.Errorf("report: %d damaged, want %d", len(d.Overview.Damaged), want)
			}
			_, stderr, code := runCLI(t, in, "-of", "CSV", "-o", filepath.Join(dir, "s.csv"), "-y", "--strict")
			if (code == exitCorrupt) != (want > 0) || want == 0 && code != 0 {
				t.Errorf("--strict: exit %d: %s", code, stderr)
			}
		})
	}
}
