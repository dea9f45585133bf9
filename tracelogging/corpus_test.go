package tracelogging

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/tdh"
)

func corpus(t testing.TB) string {
	dir := os.Getenv("ETL_CORPUS")
	if dir == "" {
		t.Skip("ETL_CORPUS is not set: no real .etl corpus to test against")
	}
	return dir
}

// eachEvent calls fn for every event of a corpus file.
func eachEvent(t testing.TB, path string, fn func(ev *etl.Event)) {
	f, err := etl.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := etl.NewReader([]*etl.File{f}, nil)
	defer r.Close()
	for r.Next() {
		fn(r.Event())
	}
}

// TestCorpusEveryTraceLoggingEvent compiles and decodes every event that
// carries TraceLogging metadata: no error, and the payload is consumed
// exactly.
func TestCorpusEveryTraceLoggingEvent(t *testing.T) {
	dir := corpus(t)
	var c Cache
	var dec tdh.Decoder
	total, files := 0, 0
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".etl") {
			return nil
		}
		n := 0
		eachEvent(t, p, func(ev *etl.Event) {
			s, ok, err := c.Schema(ev)
			if !ok {
				return
			}
			n++
			if err != nil {
				t.Errorf("%s: %v", p, err)
				return
			}
			d, err := dec.Decode(s, ev.UserData, ev.PointerSize())
			if err != nil {
				t.Errorf("%s: event %q: %v", p, s.EventName, err)
				return
			}
			if len(d.Extra) != 0 {
				t.Errorf("%s: event %q: %d bytes after the last field", p, s.EventName, len(d.Extra))
			}
		})
		if n > 0 {
			files++
			total += n
		}
		return nil
	})
	t.Logf("%d TraceLogging events in %d files", total, files)
	if total < 100 {
		t.Errorf("only %d TraceLogging events found", total)
	}
}

// TestCorpusMytrace checks names and values against tracerpt's CSV.
func TestCorpusMytrace(t *testing.T) {
	dir := corpus(t)
	want := []struct{ name, info string }{
		{"Startup", "Application Started"}, {"Action", "Calling Calculate"},
		{"Action Complete", "Completed Call to Calculate, Result: 5"}, {"Complete", "Application Done"},
	}
	var c Cache
	var dec tdh.Decoder
	i := 0
	eachEvent(t, filepath.Join(dir, "Marissa1999+Tracing-Application/mytrace.etl"), func(ev *etl.Event) {
		s, ok, err := c.Schema(ev)
		if !ok {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		d, err := dec.Decode(s, ev.UserData, ev.PointerSize())
		if err != nil {
			t.Fatal(err)
		}
		w := want[i%4]
		if s.ProviderName != "VanierEventSource" || s.EventName != w.name || len(s.Properties) != 1 || s.Properties[0].Name != "Info" || d.Top()[0].String() != w.info {
			t.Errorf("event %d: %s/%s %v = %q; want %s %q", i, s.ProviderName, s.EventName, s.Properties, d.Top()[0].String(), w.name, w.info)
		}
		i++
	})
	if i != 8 {
		t.Errorf("%d TraceLogging events, tracerpt shows 8", i)
	}
}

// TestCorpusPrimitiveTypes compares every field of primitive-types.etl
// with TraceEvent's baseline for the same file.
func TestCorpusPrimitiveTypes(t *testing.T) {
	dir := filepath.Join(corpus(t), "microsoft+perfview/src/TraceEvent/TraceEvent.Tests/inputs")
	base, err := os.ReadFile(filepath.Join(dir, "primitive-types.baseline.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var want []map[string]string
	for _, line := range strings.Split(string(base), "\n") {
		if !strings.HasPrefix(line, "EVENT ") || !strings.Contains(line, "solar_system/PrimitiveTypesTest") {
			continue
		}
		m := map[string]string{}
		for _, kv := range strings.Split(line, "; ") {
			if k, v, ok := strings.Cut(kv, "="); ok && strings.HasSuffix(k, "_type") {
				m[k] = strings.TrimSuffix(v, "; ")
			}
		}
		want = append(want, m)
	}
	var c Cache
	var dec tdh.Decoder
	i := 0
	checked := 0
	eachEvent(t, filepath.Join(dir, "primitive-types.etl.zip.unzipped/primitive-types.etl"), func(ev *etl.Event) {
		s, ok, err := c.Schema(ev)
		if !ok || err != nil {
			return
		}
		d, err := dec.Decode(s, ev.UserData, ev.PointerSize())
		if err != nil {
			t.Fatal(err)
		}
		if i >= len(want) {
			t.Fatalf("more events than the baseline's %d", len(want))
		}
		for k, v := range d.Top() {
			name := s.Properties[k].Name
			w, ok := want[i][name]
			if !ok {
				continue
			}
			var got string
			switch name {
			case "string_type":
				got = v.String()
			case "boolean_type":
				n, _ := v.Uint()
				got = map[bool]string{true: "True", false: "False"}[n != 0]
			case "guid_type":
				g, _ := v.GUID()
				got = g.String()
				if len(w) > 3 && strings.HasSuffix(w, "...") {
					w = strings.TrimSuffix(w, "...")
					got = got[:min(len(got), len(w))]
				}
			case "file_time_type", "system_time_type":
				continue // TraceEvent prints the baseline machine's local time
			default:
				n, ok := v.Int()
				if !ok {
					t.Errorf("event %d: %s has no integer value (%v)", i, name, s.Properties[k].InType)
				}
				got = strings.ReplaceAll(fmtInt(n), ",", "")
				w = strings.ReplaceAll(w, ",", "")
			}
			checked++
			if got != w {
				t.Errorf("event %d: %s = %q, TraceEvent %q", i, name, got, w)
			}
		}
		i++
	})
	if i != len(want) || checked < 40 {
		t.Errorf("%d events (%d values checked), baseline has %d events", i, checked, len(want))
	}
}

func fmtInt(n int64) string {
	if n < 0 {
		return "-" + fmtInt(-n)
	}
	s := ""
	for {
		s = string(rune('0'+n%10)) + s
		n /= 10
		if n == 0 {
			return s
		}
	}
}
