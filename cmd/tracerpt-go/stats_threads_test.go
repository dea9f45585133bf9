package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestStatsPreciseCPU: a trace with context switches (record-kinds.etl:
// three CSwitch records) gets each process's precise CPU, in the table
// and in JSON; a trace without them keeps its output (no column, no key).
func TestStatsPreciseCPU(t *testing.T) {
	kinds := filepath.Join("..", "..", "testdata", "etl", "record-kinds.etl")
	var st struct {
		Processes []struct {
			PID     uint32   `json:"pid"`
			Precise *float64 `json:"cpu_precise_ms"`
		} `json:"processes"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, "stats", kinds, "--json")), &st); err != nil {
		t.Fatal(err)
	}
	var with int
	for _, p := range st.Processes {
		if p.Precise != nil {
			with++
		}
		// 0x348's thread 0x14 is switched in on processor 1 and runs to
		// the end of the trace.
		if p.PID == 0x348 && (p.Precise == nil || *p.Precise <= 0) {
			t.Errorf("pid 0x348: precise CPU %v, want > 0", p.Precise)
		}
	}
	if with != len(st.Processes) || with == 0 {
		t.Errorf("%d of %d processes have a precise CPU", with, len(st.Processes))
	}
	if table := mustRun(t, "stats", kinds); !strings.Contains(table, "CPU PRECISE MS") {
		t.Errorf("stats table without the precise CPU:\n%s", table)
	}
	if out := mustRun(t, "stats", sample, "--json"); strings.Contains(out, "cpu_precise_ms") {
		t.Errorf("precise CPU in a trace without context switches: %s", out)
	}
	if table := mustRun(t, "stats", sample); strings.Contains(table, "PRECISE") {
		t.Errorf("precise column in a trace without context switches:\n%s", table)
	}
}
