package catalog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"
)

// TestKnownProvidersTable: every entry is complete and sourced; a
// manifest provider names its binary under %SystemRoot%\System32; the
// others say why there is none.
func TestKnownProvidersTable(t *testing.T) {
	seen := map[uuid.UUID]bool{}
	for _, k := range knownProviders {
		if seen[k.GUID] {
			t.Errorf("%v twice", k.GUID)
		}
		seen[k.GUID] = true
		if k.Name == "" || k.Needs == "" || k.Source == "" {
			t.Errorf("%v: incomplete: %+v", k.GUID, k)
		}
		switch k.Kind {
		case "manifest":
			if !strings.HasPrefix(k.Binary, `%SystemRoot%\System32\`) || !strings.Contains(k.Needs, k.Binary) {
				t.Errorf("%s: manifest binary %q", k.Name, k.Binary)
			}
		case "classic", "wpp":
			if k.Binary != "" || !strings.Contains(k.Needs, "no manifest") {
				t.Errorf("%s: a %s provider has no manifest: %q, %q", k.Name, k.Kind, k.Binary, k.Needs)
			}
		default:
			t.Errorf("%s: kind %q", k.Name, k.Kind)
		}
		if got, ok := LookupProvider(k.GUID); !ok || got.Name != k.Name {
			t.Errorf("LookupProvider(%v) = %v, %v", k.GUID, got, ok)
		}
	}
	if _, ok := LookupProvider(DotNETRuntimeGUID); ok {
		t.Error("a provider the catalog decodes is in the table of the ones it only names")
	}
}

// TestKnownProvidersMatchSchemaFacts: the names and kinds agree with the
// shared schema research (corpus-providers.tsv: kind, GUID, name of each
// provider seen in the corpus).
func TestKnownProvidersMatchSchemaFacts(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(schemaDir(t), "corpus-providers.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string][]string{}
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Split(l, "\t")
		if len(f) > 2 {
			rows[f[1]] = f
		}
	}
	kinds := map[string]string{"manifest": "eh", "classic": "classic", "wpp": "wpp"}
	for _, k := range knownProviders {
		r := rows[k.GUID.String()]
		if r == nil {
			t.Errorf("%s {%v}: not in corpus-providers.tsv", k.Name, k.GUID)
			continue
		}
		if r[0] != kinds[k.Kind] {
			t.Errorf("%s: kind %s, the research says %s", k.Name, k.Kind, r[0])
		}
		if k.Kind != "wpp" && r[2] != k.Name {
			t.Errorf("%v: name %q, the research says %q", k.GUID, k.Name, r[2])
		}
	}
}
