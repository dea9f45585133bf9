package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/etwkit/etw/internal/etltest"
)

// TestCorpusKnownProvidersNamed (issue 25.11): a provider no schema
// decodes that is a well-known Windows component is named, with what
// -import would need, in providers (table and JSON) and in the summary.
func TestCorpusKnownProvidersNamed(t *testing.T) {
	for _, c := range []struct {
		file, guid, name, needs string
	}{
		{"microsoft+krabsetw/examples/NativeExamples/powershell.etl", "a0c1853b-5c40-4b15-8766-3cf1c58f985a",
			"Microsoft-Windows-PowerShell", `%SystemRoot%\System32\WindowsPowerShell\v1.0\PSEvents.dll`},
		{"sbousseaden+EVTX-ATTACK-SAMPLES/Credential Access/etw_ad_netlogon_provider_zerologon_mimikatz.etl", "393da8c0-dbed-11d2-895b-00c04f79ab69",
			"Active Directory: NetLogon", "no manifest"},
		{"jtmoon79+super-speedy-syslog-searcher/logs/programs/OneDrive/Local/Microsoft/OneDrive/logs/Personal/gunzipped/CldFlt0-2025-12-21-121418.etl",
			"2818ef08-6a54-396f-2244-5a6ea4a98cf0", "cldflt.sys", "TMF"},
	} {
		f := etltest.CorpusFile(t, c.file)
		table := mustRun(t, "providers", f)
		if !strings.Contains(table, " (no schema)") || !strings.Contains(table, "{"+c.guid+"} "+c.name) || !strings.Contains(table, c.needs) {
			t.Errorf("providers %s:\n%s", c.file, table)
		}
		found := false
		for _, l := range strings.Split(strings.TrimSpace(mustRun(t, "providers", "--json", f)), "\n") {
			var p struct {
				GUID  string `json:"provider_guid"`
				Name  string `json:"provider_name"`
				Known *struct {
					Name, Kind, Needs string
					Binary            string `json:"manifest_binary"`
				} `json:"known"`
			}
			if err := json.Unmarshal([]byte(l), &p); err != nil {
				t.Fatal(err)
			}
			if p.GUID != "{"+c.guid+"}" {
				if p.Known != nil {
					t.Errorf("%s: %s named %+v", c.file, p.GUID, p.Known)
				}
				continue
			}
			found = true
			if p.Name != "" || p.Known == nil || !strings.HasPrefix(p.Known.Name, c.name) || !strings.Contains(p.Known.Needs+p.Known.Binary, c.needs) {
				t.Errorf("providers --json %s: %s", c.file, l)
			}
		}
		if !found {
			t.Errorf("providers --json %s: no line for {%s}", c.file, c.guid)
		}
		summary := filepath.Join(t.TempDir(), "summary.txt")
		mustRun(t, f, "-summary", summary, "--quiet")
		raw, err := os.ReadFile(summary)
		if err != nil {
			t.Fatal(err)
		}
		b := string(raw)
		if !strings.Contains(b, "Providers without a schema, known by GUID:\n\t{"+c.guid+"} "+c.name) || !strings.Contains(b, c.needs) {
			t.Errorf("summary of %s:\n%s", c.file, b)
		}
	}
}

// TestCorpusNoMatchNamesKnownProvider: --provider by the name of a
// provider the trace holds without a schema says which GUID it is.
func TestCorpusNoMatchNamesKnownProvider(t *testing.T) {
	f := etltest.CorpusFile(t, "microsoft+krabsetw/examples/NativeExamples/powershell.etl")
	_, errs, code := runCLI(t, f, "--provider", "Microsoft-Windows-PowerShell", "-of", "JSON", "-o", "-")
	if code != exitOK || !strings.Contains(errs, "{a0c1853b-5c40-4b15-8766-3cf1c58f985a} (Microsoft-Windows-PowerShell, no schema: filter by GUID)") {
		t.Errorf("exit %d: %s", code, errs)
	}
}
