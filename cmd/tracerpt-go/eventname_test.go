package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/etwkit/etw/internal/etltest"
)

// eventKinds counts the dumped JSON events by provider, event id and
// version.
func eventKinds(t *testing.T, out string) map[string]int {
	t.Helper()
	kinds := map[string]int{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if l == "" {
			continue
		}
		var ev struct {
			Provider string `json:"provider_name"`
			ID       int    `json:"event_id"`
			Version  int    `json:"version"`
			Name     string `json:"event_name"`
		}
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(ev)
		kinds[string(b)]++
	}
	return kinds
}

// TestCorpusEventNameVocabulary (issue 25.4): PerfView's Task/Opcode,
// Provider/Task/Opcode, the manifest symbol and the symbol without its
// _Vn suffix select the same events in the dump, stacks --event and
// relog.
func TestCorpusEventNameVocabulary(t *testing.T) {
	net := etltest.CorpusFile(t, "microsoft+perfview/src/TraceEvent/TraceEvent.Tests/inputs/net.4.5.2.x64.etl.zip.unzipped/net.4.5.2.x64.etl")
	dump := func(name string) string {
		t.Helper()
		out, errs, code := runCLI(t, net, "--event-name", name, "-of", "JSON", "-o", "-", "--quiet")
		if code != 0 {
			t.Fatalf("--event-name %s: exit %d: %s", name, code, errs)
		}
		return out
	}
	want := eventKinds(t, dump("Microsoft-Windows-DotNETRuntime/GCStart_V1"))
	if len(want) != 1 {
		t.Fatalf("GCStart_V1 selects %v", want)
	}
	all := eventKinds(t, dump("GC/Start"))
	// GC/Start is every version of the event: GCStart_V1 and GCStart_V2.
	if len(all) != 2 {
		t.Fatalf("GC/Start selects %v, want GCStart_V1 and _V2", all)
	}
	for _, name := range []string{"Microsoft-Windows-DotNETRuntime/GC/Start", "GCStart", "gcstart", "{e13c0d23-ccbc-4e12-931b-d9cc2eee27e4}/GC/Start",
		"GCStart_V1,GCStart_V2"} {
		got := eventKinds(t, dump(name))
		if !sameCounts(got, all) {
			t.Errorf("--event-name %s selects %v, GC/Start %v", name, got, all)
		}
	}
	for k, n := range want {
		if all[k] != n {
			t.Errorf("GC/Start has %d of %s, GCStart_V1 %d", all[k], k, n)
		}
	}

	var folded string
	for i, name := range []string{"Microsoft-Windows-DotNETRuntime/GC/Start", "GC/Start", "GCStart", "Microsoft-Windows-DotNETRuntime/GCStart"} {
		out, errs, code := runCLI(t, "stacks", net, "--event", name)
		if code != 0 || out == "" {
			t.Fatalf("stacks --event %s: exit %d: %s", name, code, errs)
		}
		if i == 0 {
			folded = out
		} else if out != folded {
			t.Errorf("stacks --event %s differs from Microsoft-Windows-DotNETRuntime/GC/Start", name)
		}
	}

	dir := t.TempDir()
	for _, name := range []string{"GC/Start", "GCStart"} {
		out := filepath.Join(dir, strings.ReplaceAll(name, "/", "_")+".etl")
		if _, errs, code := runCLI(t, "relog", net, "--event-name", name, "-o", out); code != 0 {
			t.Fatalf("relog --event-name %s: exit %d: %s", name, code, errs)
		}
		got, errs, code := runCLI(t, out, "-of", "JSON", "-o", "-", "--quiet", "--provider", "Microsoft-Windows-DotNETRuntime")
		if code != 0 {
			t.Fatalf("dump of the relogged %s: exit %d: %s", name, code, errs)
		}
		if k := eventKinds(t, got); !sameCounts(k, all) {
			t.Errorf("relog --event-name %s keeps %v, want %v", name, k, all)
		}
	}
}

func sameCounts(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, n := range a {
		if b[k] != n {
			return false
		}
	}
	return true
}

// TestCorpusPktMonEventNames (issue 25.4): PktMon's events are named
// (the catalog's names: its manifest has none), so --event-name selects
// the packets (id 160) and the other events.
func TestCorpusPktMonEventNames(t *testing.T) {
	p := etltest.CorpusFile(t, "NeoChenjf+Finguard/PktMon.etl")
	for name, ids := range map[string]string{
		"Packet":                            "160",
		"Microsoft-Windows-PktMon/Packet":   "160",
		"PacketDrop":                        "170",
		"Microsoft-Windows-PktMon/Property": "30,40,65,66,70,75",
		"FlowCounters":                      "90",
		"Component":                         "20",
	} {
		out, errs, code := runCLI(t, p, "--event-name", name, "-of", "JSON", "-o", "-", "--quiet")
		if code != 0 || out == "" {
			t.Fatalf("--event-name %s: exit %d, %d bytes: %s", name, code, len(out), errs)
		}
		byID, _, _ := runCLI(t, p, "--provider", "Microsoft-Windows-PktMon", "--event-id", ids, "-of", "JSON", "-o", "-", "--quiet")
		if out != byID {
			t.Errorf("--event-name %s: %d events, --event-id %s: %d", name, strings.Count(out, "\n"), ids, strings.Count(byID, "\n"))
		}
	}
}

// TestNoMatchNamesTheVocabulary: an --event-name that matches nothing
// says which names --event-name takes.
func TestNoMatchNamesTheVocabulary(t *testing.T) {
	_, errs, code := runCLI(t, sample, "--event-name", "NoSuchEvent", "-of", "JSON", "-o", "-")
	if code != exitOK || !strings.Contains(errs, "no event matched the filters") || !strings.Contains(errs, "Task/Opcode (GC/Start") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
}
