package manifest_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/etltest"
	"github.com/etwkit/etw/manifest"
	"github.com/etwkit/etw/mof"
	"github.com/etwkit/etw/pe"
	"github.com/etwkit/etw/tdh"
	"github.com/etwkit/etw/wevt"
	"github.com/google/uuid"
)

// decodedText renders what a decoder made of one event: the schema's
// identity and names, the error, the JSON properties, the text of every
// top-level value, the formatted message and the bytes left over.
func decodedText(r *decode.Result) string {
	if r.Schema == nil {
		return fmt.Sprintf("no schema, err %v", r.Err)
	}
	s := r.Schema
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s %v id %d v%d level %d %q task %d %q opcode %d %q keywords %#x %q channel %d %q event %q exact %t err %v\n",
		s.ProviderName, s.ProviderGUID, s.ID, s.Version, s.Level, s.LevelName, s.Task, s.TaskName, s.Opcode, s.OpcodeName,
		s.Keywords, s.KeywordNames, s.Channel, s.ChannelName, s.EventName, r.Exact, r.Err)
	d := r.Decoded
	if d == nil {
		return b.String()
	}
	b.Write(tdh.AppendPropertiesJSON(nil, d))
	b.WriteByte('\n')
	top := d.Top()
	for i := range top {
		if tdh.Printable(top[i].Prop) {
			b.Write(tdh.AppendText(nil, d, &top[i], nil))
			b.WriteString(" | ")
		}
	}
	fmt.Fprintf(&b, "\nmessage %q extra %x", tdh.FormatMessage(s.Message, d, nil), d.Extra)
	return b.String()
}

// TestExportDecodeCorpus decodes corpus traces with a manifest and with
// the manifest exported from its schemas and imported again: every event
// must decode to the same JSON, text and message.
func TestExportDecodeCorpus(t *testing.T) {
	corpus := os.Getenv("ETL_CORPUS")
	if corpus == "" {
		t.Skip("ETL_CORPUS is not set")
	}
	schemas := os.Getenv("ETL_SCHEMAS")
	if schemas == "" {
		schemas = filepath.Join(corpus, "..", "schemas")
	}
	cases := []struct{ trace, schema string }{
		{"microsoft+krabsetw/examples/NativeExamples/powershell.etl", "dumped/repnz-Manifests-Win10-18990/Microsoft-Windows-PowerShell.xml"},
		{"microsoft+perfview/src/TraceEvent/TraceEvent.Tests/inputs/gcevents.etl.zip.unzipped/gcevents/PerfViewData.etl", "authored/dotnet-runtime/ClrEtwAll.man"},
		{"trailofbits+RpcInvestigator/UnitTests/data/trace_files/ms-rpc-capture-arrays.etl", "dumped/repnz-Manifests-Win10-18990/Microsoft-Windows-RPC.xml"},
		{"nathaniel-security+microsoft-pktmon-VPN-capture-traffic/history/508f5bc135c8effceef0879693c6de45f2a92012/PktMon.etl", "dumped/nasbench-EVTX-ETW-Resources-W11-22H2/Microsoft-Windows-PktMon.xml"},
	}
	for _, c := range cases {
		t.Run(filepath.Base(c.schema), func(t *testing.T) {
			tracePath, schemaPath := filepath.Join(corpus, c.trace), filepath.Join(schemas, c.schema)
			for _, p := range []string{tracePath, schemaPath} {
				if _, err := os.Stat(p); err != nil {
					t.Fatalf("corpus file missing: %v", err)
				}
			}
			m, err := manifest.ParseFile(schemaPath)
			if err != nil {
				t.Fatal(err)
			}
			list, _ := m.Schemas()
			var buf bytes.Buffer
			issues, err := manifest.WriteXML(&buf, list)
			if err != nil {
				t.Fatal(err)
			}
			for _, is := range issues {
				if is.Kind != manifest.IssueNonstandard {
					t.Errorf("unexpected issue: %v", is)
				}
			}
			exported := filepath.Join(t.TempDir(), "exported.man")
			if err := os.WriteFile(exported, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			providers := map[string]bool{}
			for _, s := range list {
				providers[s.ProviderGUID.String()] = true
			}

			f, err := etl.Open(tracePath)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			orig, back := decode.New(), decode.New()
			orig.Import(schemaPath) // events the original does not compile are compared too: both lack them
			if err := back.Import(exported); err != nil {
				t.Fatalf("importing the exported manifest: %v", err)
			}
			for _, d := range []*decode.Decoder{orig, back} {
				if err := d.Prescan([]*etl.File{f}); err != nil {
					t.Logf("prescan: %v", err)
				}
			}
			r := etl.NewReader([]*etl.File{f}, nil)
			defer r.Close()
			events, covered, failed, mismatches := 0, 0, 0, 0
			for r.Next() {
				ev := r.Event()
				events++
				a := decodedText(orig.Decode(ev))
				res := back.Decode(ev)
				b := decodedText(res)
				if res.Schema != nil && res.Schema.Source == tdh.SourceManifest && providers[res.Schema.ProviderGUID.String()] {
					covered++
					if res.Err != nil {
						failed++
					}
				}
				if a != b {
					t.Errorf("event %d (provider %v id %d) decodes differently:\noriginal: %s\nexported: %s", events, ev.ProviderID, ev.Descriptor.ID, a, b)
					if mismatches++; mismatches == 20 {
						t.FailNow()
					}
				}
			}
			if covered == 0 {
				t.Fatalf("no event of %s uses the exported schemas", c.trace)
			}
			t.Logf("%s with %s: %d events, %d decoded with the exported schemas (%d with a decode error in both), all identical",
				filepath.Base(c.trace), filepath.Base(c.schema), events, covered, failed)
		})
	}
}

// TestExportDecodeKernel decodes the kernel events of corpus traces with
// the built-in kernel classes and with those classes exported to a
// manifest and imported again. An event may decode differently only when
// an issue other than the change of source explains it (an array to the
// end of the payload, optional properties, alternate layouts, …); the
// others must be identical.
func TestExportDecodeKernel(t *testing.T) {
	corpus := os.Getenv("ETL_CORPUS")
	if corpus == "" {
		t.Skip("ETL_CORPUS is not set")
	}
	var buf bytes.Buffer
	issues, err := manifest.WriteXML(&buf, mof.KernelSchemas())
	if err != nil {
		t.Fatal(err)
	}
	type key struct {
		guid    uuid.UUID
		id      uint16
		version uint8
	}
	explains := map[key][]string{}
	for _, is := range issues {
		if is.Kind == manifest.IssueApproximated && is.Err != manifest.ErrExportSource {
			k := key{is.ProviderGUID, is.ID, is.Version}
			explains[k] = append(explains[k], is.Err.Error())
		}
	}
	exported := filepath.Join(t.TempDir(), "kernel.man")
	if err := os.WriteFile(exported, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	back := decode.New()
	if err := back.Import(exported); err != nil {
		t.Fatalf("importing the exported manifest: %v", err)
	}
	orig := decode.New()
	for _, rel := range []string{
		"airbus-cert+etl-parser/tests/example/ShutdownPerfDiagLogger.etl",
		"airbus-cert+etl-parser/tests/example/lxcore_kernel.etl",
		"microsoft+perfview/src/TraceEvent/TraceEvent.Tests/inputs/net.4.5.2.x64.etl.zip.unzipped/net.4.5.2.x64.etl",
		"google+syzygy/history/c3ca70c1b0698139198fff96400826c4cc43c804/sawbuck/log_lib/test_data/process_data_32_v3.etl",
		"google+syzygy/history/c3ca70c1b0698139198fff96400826c4cc43c804/sawbuck/log_lib/test_data/image_data_32_v2.etl",
	} {
		f, err := etl.Open(filepath.Join(corpus, rel))
		if err != nil {
			t.Fatalf("corpus file missing: %v", err)
		}
		r := etl.NewReader([]*etl.File{f}, nil)
		kernel, same, differ := 0, 0, 0
		reasons := map[string]int{}
		for r.Next() {
			ev := r.Event()
			ra := orig.Decode(ev)
			if ra.Schema == nil || ra.Schema.Source != tdh.SourceMOF {
				continue
			}
			kernel++
			s := ra.Schema
			a := decodedText(ra)
			rb := back.Decode(ev)
			if rb.Schema == nil {
				t.Errorf("%s: event %d of %s has no schema in the exported manifest", rel, s.ID, s.EventName)
				continue
			}
			b := decodedText(rb)
			if a == b {
				same++
				continue
			}
			why := explains[key{s.ProviderGUID, s.ID, s.Version}]
			if len(why) == 0 {
				t.Errorf("%s: %s/%s decodes differently, unexplained:\noriginal: %s\nexported: %s", rel, s.EventName, s.OpcodeName, a, b)
				continue
			}
			differ++
			reasons[s.EventName+"/"+s.OpcodeName+": "+strings.Join(why, ", ")]++
		}
		r.Close()
		f.Close()
		t.Logf("%s: %d MOF events, %d decode identically, %d differently (explained)", filepath.Base(rel), kernel, same, differ)
		for k, n := range reasons {
			t.Logf("  %5d %s", n, k)
		}
	}
}

// logRoundTrip reports a round trip: problems fail the test; issues other
// than the change of source and nonstandard spellings are listed.
func logRoundTrip(t *testing.T, name string, r manifest.RoundTripResult) {
	t.Helper()
	for _, p := range r.Problems {
		t.Errorf("%s: %s", name, p)
	}
	nonstd := 0
	for _, is := range r.Issues {
		switch {
		case is.Kind == manifest.IssueNonstandard:
			nonstd++
		case is.Err != manifest.ErrExportSource:
			t.Logf("%s: %v", name, is)
		}
	}
	t.Logf("%s: %d events written, %d read back equal, %d approximated (%d equal but for the source), %d skipped, %d nonstandard spellings",
		name, r.Events, r.Exact, r.Approx, r.OnlySource, r.Skipped, nonstd)
}

// TestExportTraceSchemas round-trips the schemas the corpus traces carry
// (what `tracerpt-go schemas trace.etl --export` writes): the TDH
// metadata of relogged traces and the manifests of EventSource providers.
func TestExportTraceSchemas(t *testing.T) {
	corpus := etltest.CorpusDir(t)
	paths := etltest.CorpusTraces(t)
	total := 0
	for _, p := range paths {
		f, err := etl.Open(p)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		schemas, err := decode.TraceSchemas([]*etl.File{f})
		f.Close()
		if err != nil {
			t.Logf("%s: %v", p, err)
		}
		if len(schemas) == 0 {
			continue
		}
		rel, _ := filepath.Rel(corpus, p)
		logRoundTrip(t, rel, manifest.RoundTrip(t, rel, schemas))
		total += len(schemas)
	}
	if total == 0 {
		t.Fatal("no trace carries schemas")
	}
}

// TestExportBinarySchemas round-trips the schemas of binary event
// manifests (WEVT_TEMPLATE): calc.exe and EventTraceKit's mc.exe-compiled
// test vectors.
func TestExportBinarySchemas(t *testing.T) {
	corpus := os.Getenv("ETL_CORPUS")
	if corpus == "" && os.Getenv("ETL_SCHEMAS") == "" {
		t.Skip("neither ETL_SCHEMAS nor ETL_CORPUS is set")
	}
	schemaDir := os.Getenv("ETL_SCHEMAS")
	if schemaDir == "" {
		schemaDir = filepath.Join(corpus, "..", "schemas")
	}
	peDir := os.Getenv("ETL_PE")
	if peDir == "" && corpus != "" {
		peDir = filepath.Join(corpus, "..", "pe")
	}
	if peDir != "" {
		m, err := wevt.OpenPE(filepath.Join(peDir, "calc.exe"))
		if err != nil {
			t.Fatalf("calc.exe: %v", err)
		}
		schemas, _ := m.Schemas()
		logRoundTrip(t, "calc.exe", manifest.RoundTrip(t, "calc.exe", schemas))
	}
	dir := filepath.Join(schemaDir, "authored", "gix-event-trace-kit", "TestCases")
	bins, _ := filepath.Glob(filepath.Join(dir, "*.wevt.*bin"))
	if len(bins) == 0 {
		t.Fatalf("no compiled test vectors in %s", dir)
	}
	for _, bin := range bins {
		raw, err := os.ReadFile(bin)
		if err != nil {
			t.Fatal(err)
		}
		base, flavour, _ := strings.Cut(filepath.Base(bin), ".wevt.")
		var lookup func(uint32) (string, bool)
		for _, msg := range []string{base + ".msg." + flavour, base + ".msg.bin"} {
			if b, err := os.ReadFile(filepath.Join(dir, msg)); err == nil {
				mt, err := pe.ParseMessageTable(b)
				if err != nil {
					t.Fatalf("%s: %v", msg, err)
				}
				lookup = mt.Lookup
				break
			}
		}
		m, err := wevt.Parse(raw, lookup)
		if err != nil {
			t.Errorf("%s: %v", bin, err)
			continue
		}
		schemas, _ := m.Schemas()
		logRoundTrip(t, filepath.Base(bin), manifest.RoundTrip(t, filepath.Base(bin), schemas))
	}
}

// TestExportDecodeTraceSchemas is the `schemas --export` then `-import`
// workflow: the schemas a trace carries (decode.TraceSchemas), exported
// and imported again, decode its events as those schemas do, except
// events whose export an issue reports.
func TestExportDecodeTraceSchemas(t *testing.T) {
	corpus := os.Getenv("ETL_CORPUS")
	if corpus == "" {
		t.Skip("ETL_CORPUS is not set")
	}
	for _, rel := range []string{
		"microsoft+perfview/src/TraceEvent/TraceEvent.Tests/inputs/net.4.5.2.x64.etl.zip.unzipped/net.4.5.2.x64.etl",
		"trailofbits+RpcInvestigator/UnitTests/data/trace_files/ms-rpc-capture-arrays.etl",
		"NeoChenjf+Finguard/PktMon.etl",
	} {
		f, err := etl.Open(filepath.Join(corpus, rel))
		if err != nil {
			t.Fatalf("corpus file missing: %v", err)
		}
		schemas, _ := decode.TraceSchemas([]*etl.File{f})
		var buf bytes.Buffer
		issues, err := manifest.WriteXML(&buf, schemas)
		if err != nil {
			t.Fatal(err)
		}
		type key struct {
			guid    uuid.UUID
			id      uint16
			version uint8
		}
		explains := map[key]string{}
		for _, is := range issues {
			if k := (key{is.ProviderGUID, is.ID, is.Version}); is.Kind != manifest.IssueNonstandard && explains[k] == "" {
				explains[k] = is.Kind.String() + ": " + is.Err.Error()
			}
		}
		exported := filepath.Join(t.TempDir(), "trace.man")
		if err := os.WriteFile(exported, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		// Both decoders hold the schemas as imports (which come before the
		// built-in ones): the originals, and the exported ones.
		orig, back := decode.New(), decode.New()
		orig.Registry.Add(schemas...)
		if err := back.Import(exported); err != nil {
			t.Fatalf("importing the exported manifest: %v", err)
		}
		r := etl.NewReader([]*etl.File{f}, nil)
		events, same, differ := 0, 0, 0
		reasons := map[string]int{}
		for r.Next() {
			ev := r.Event()
			events++
			ra := orig.Decode(ev)
			a := decodedText(ra)
			b := decodedText(back.Decode(ev))
			if a == b {
				same++
				continue
			}
			if s := ra.Schema; s != nil && explains[key{s.ProviderGUID, s.ID, s.Version}] != "" {
				differ++
				reasons[s.ProviderName+": "+explains[key{s.ProviderGUID, s.ID, s.Version}]]++
				continue
			}
			t.Errorf("%s: event %d decodes differently, unexplained:\noriginal: %s\nexported: %s", rel, events, a, b)
		}
		r.Close()
		f.Close()
		t.Logf("%s: %d schemas exported, %d issues; %d events, %d decode identically, %d differently (explained)",
			filepath.Base(rel), len(schemas), len(issues), events, same, differ)
		for k, n := range reasons {
			t.Logf("  %5d %s", n, k)
		}
	}
}
