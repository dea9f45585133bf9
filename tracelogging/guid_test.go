package tracelogging

import (
	"sort"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/etlcorpus"
)

func TestProviderGUID(t *testing.T) {
	for name, want := range map[string]string{
		"VanierEventSource": "b16a7b93-dd65-561c-90f3-eeae62570a8b", // tracerpt, mytrace.xml
		"demo":              "a61566ef-3013-54c0-3fc6-0adeaddc82db", // decoding.md §4.6
		"vaniereventsource": "b16a7b93-dd65-561c-90f3-eeae62570a8b", // the name is upper-cased
	} {
		if got := ProviderGUID(name); got != uuid.MustParse(want) {
			t.Errorf("ProviderGUID(%q) = %v, want %v", name, got, want)
		}
		if !NameMatchesGUID(name, uuid.MustParse(want)) {
			t.Errorf("NameMatchesGUID(%q) = false", name)
		}
	}
	long := strings.Repeat("Provider.Name.", 20) // longer than the hashing buffer
	if ProviderGUID(long) == ProviderGUID(long+"x") || ProviderGUID(long)[6]>>4 != 5 {
		t.Errorf("long names: %v", ProviderGUID(long))
	}
	if NameMatchesGUID("", ProviderGUID("")) {
		t.Errorf("an empty name matches")
	}
	if NameMatchesGUID("AmsiTrace", uuid.MustParse("8e805eb3-6a8f-4a1e-90fa-a831d94e54a1")) {
		t.Errorf("AmsiTrace's explicit GUID matches its name hash")
	}
}

// TestCorpusProviderGUIDs checks, for every TraceLogging event of the
// corpus, whether its provider GUID is the hash of its provider name, and
// compares the list with the providers known to use an explicit GUID.
func TestCorpusProviderGUIDs(t *testing.T) {
	var c Cache
	type key struct {
		name string
		guid uuid.UUID
	}
	events := map[key]int{}
	for _, p := range etlcorpus.Traces(t) {
		eachEvent(t, p, func(ev *etl.Event) {
			s, ok, err := c.Schema(ev)
			if !ok || err != nil {
				return
			}
			if got, want := c.NameMatchesGUID(s), ProviderGUID(s.ProviderName) == ev.ProviderID; got != want {
				t.Errorf("%s: Cache.NameMatchesGUID = %v, direct check %v", s.ProviderName, got, want)
			}
			events[key{s.ProviderName, ev.ProviderID}]++
		})
	}
	// Providers registered with an explicit GUID rather than the name hash.
	explicit := map[string]bool{
		"AmsiTrace":                          true,
		"Microsoft.Windows.Subsystem.LxCore": true,
		"SIHTraceLogging":                    true,
		"WUTraceLogging":                     true,
		"solar_system":                       true,
	}
	var keys []key
	for k := range events {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].name < keys[j].name })
	for _, k := range keys {
		match := ProviderGUID(k.name) == k.guid
		t.Logf("%-36s {%v} %4d events: GUID from name %v (name hash {%v})", k.name, k.guid, events[k], match, ProviderGUID(k.name))
		if match == explicit[k.name] {
			t.Errorf("%s: GUID {%v} matches the name hash: %v, expected %v", k.name, k.guid, match, !explicit[k.name])
		}
	}
	if len(keys) < 5 {
		t.Errorf("only %d TraceLogging providers found", len(keys))
	}
}
