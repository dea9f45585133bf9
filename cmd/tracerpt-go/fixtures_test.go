package main

import (
	"encoding/json"
	"github.com/etwkit/etw/decode"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The fixtures internal/fixturegen writes (docs/fixtures.md), with the
// schema file each needs and the events the generator left in it
// (header events not counted).
var generatedFixtures = []struct {
	name   string
	schema string // .man or .mof beside it, or ""
	events int
	kernel bool // decode with the built-in kernel classes, not the fixed stand-ins
}{
	{"tracelogging-types", "", 10, false},
	{"tracelogging-32", "", 3, false},
	{"manifest-types", "manifest-types.man", 11, false},
	{"classic", "classic.mof", 5, false},
	{"compressed", "", 160, false},
	{"circular", "", 26, false},
	{"lost-events", "", 24, false},
	{"newfile-1", "", 24, false},
	{"newfile-2", "", 23, false},
	{"newfile-3", "", 13, false},
	{"wpp", "wpp.tmf", 7, false},
	{"record-kinds", "classic.mof", 10, true},
}

func fixturePath(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "..", "testdata", "etl", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// fixtureLine is what the fixture tests read of a JSON Lines event.
type fixtureLine struct {
	Header     string         `json:"header"`
	Flags      uint64         `json:"flags"`
	Provider   string         `json:"provider_guid"`
	Name       string         `json:"event_name"`
	CPU        int            `json:"cpu"`
	Properties map[string]any `json:"properties"`
	UserData   *string        `json:"user_data"`
	Error      string         `json:"decode_error"`
}

// headerGroupGUID is the provider of the log-file header events.
const headerGroupGUID = "{68fdd900-4a3e-11d1-84f4-0000f80464e3}"

// TestFixtureGoldens dumps every generated fixture as info --json, JSON
// Lines and XML (with its manifest or MOF imported) and compares with
// testdata/golden/<fixture>.{info.json,jsonl,xml}; -update rewrites them.
// Beyond the goldens it checks that every event decodes and that the
// fixture holds the events the generator wrote.
func TestFixtureGoldens(t *testing.T) {
	withFixedSchemas(t)
	for _, fx := range generatedFixtures {
		t.Run(fx.name, func(t *testing.T) {
			if fx.kernel {
				fixed := newDecoder
				newDecoder = decode.New
				defer func() { newDecoder = fixed }()
			}
			p := fixturePath(t, fx.name+".etl")
			var imp []string
			if fx.schema != "" {
				imp = []string{"-import", fixturePath(t, fx.schema)}
			}
			info := mustRun(t, "info", "--json", p)
			golden(t, fx.name+".info.json", strings.ReplaceAll(info, p, "../../testdata/etl/"+fx.name+".etl"))
			jsonl := mustRun(t, append([]string{p, "-of", "JSON", "-o", "-"}, imp...)...)
			golden(t, fx.name+".jsonl", jsonl)
			xml := mustRun(t, append([]string{p, "-of", "XML", "-o", "-"}, imp...)...)
			golden(t, fx.name+".xml", xml)

			var fi fileInfo
			if err := json.Unmarshal([]byte(info), &fi); err != nil {
				t.Fatal(err)
			}
			if len(fi.Errors) != 0 {
				t.Errorf("info reports errors: %+v", fi.Errors)
			}
			lines := parseLines(t, jsonl)
			n := 0
			for i, ev := range lines {
				if ev.Error != "" {
					t.Errorf("line %d (%s): decode_error %q", i+1, ev.Name, ev.Error)
				}
				// Only WPP messages (no TMF) and string-only events have
				// no schema.
				if ev.Properties == nil && ev.Header != "wpp" && ev.Header != "error" && !stringOnly(ev.Flags) {
					t.Errorf("line %d (%s %s) not decoded", i+1, ev.Header, ev.Provider)
				}
				if ev.Provider != headerGroupGUID {
					n++
				}
			}
			if n != fx.events || fi.Events != fx.events+2 {
				t.Errorf("%d events (info: %d with the header events), the generator wrote %d", n, fi.Events, fx.events)
			}
		})
	}
}

func parseLines(t *testing.T, jsonl string) []fixtureLine {
	t.Helper()
	var out []fixtureLine
	for i, l := range strings.Split(strings.TrimSpace(jsonl), "\n") {
		var ev fixtureLine
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		out = append(out, ev)
	}
	return out
}

func stringOnly(flags uint64) bool { return flags&0x4 != 0 }

// fixtureInfo returns info --json of a fixture.
func fixtureInfo(t *testing.T, name string) fileInfo {
	t.Helper()
	var fi fileInfo
	if err := json.Unmarshal([]byte(mustRun(t, "info", "--json", fixturePath(t, name))), &fi); err != nil {
		t.Fatal(err)
	}
	return fi
}

// seqs returns the Seq property of the Tick events of a dump.
func seqs(t *testing.T, lines []fixtureLine) []int {
	t.Helper()
	var out []int
	for _, ev := range lines {
		if ev.Name == "Tick" {
			out = append(out, int(ev.Properties["Seq"].(float64)))
		}
	}
	return out
}

// TestFixtureProperties checks what each logging-mode and bitness fixture
// is for.
func TestFixtureProperties(t *testing.T) {
	dump := func(names ...string) []fixtureLine {
		args := []string{"-of", "JSON", "-o", "-"}
		for _, n := range names {
			args = append(args, fixturePath(t, n))
		}
		return parseLines(t, mustRun(t, args...))
	}

	// Compressed: XPRESS buffers on 4 processors, every event kept.
	fi := fixtureInfo(t, "compressed.etl")
	if fi.CompressedBuffers == 0 || fi.CompressedBuffers != fi.Buffers-1 || fi.CPUs != 4 || fi.LogFileMode != "0x4000001" {
		t.Errorf("compressed.etl: %d of %d buffers compressed, %d CPUs, mode %s", fi.CompressedBuffers, fi.Buffers, fi.CPUs, fi.LogFileMode)
	}
	lines := dump("compressed.etl")
	cpus := map[int]bool{}
	for _, ev := range lines {
		cpus[ev.CPU] = true
	}
	if s := seqs(t, lines); len(s) != 160 || s[0] != 0 || s[159] != 159 || len(cpus) != 4 {
		t.Errorf("compressed.etl: %d Tick events on %d processors", len(s), len(cpus))
	}

	// Circular: 300 events written; the file keeps the newest, in order.
	fi = fixtureInfo(t, "circular.etl")
	s := seqs(t, dump("circular.etl"))
	if fi.LogFileMode != "0x2002" || len(s) == 0 || len(s) >= 300 || s[len(s)-1] != 299 {
		t.Fatalf("circular.etl: mode %s, %d events kept, last %v", fi.LogFileMode, len(s), s[len(s)-1:])
	}
	for i := range s {
		if s[i] != 300-len(s)+i {
			t.Errorf("circular.etl keeps %v, not the newest %d events", s, len(s))
			break
		}
	}

	// Lost events: the header counts what the full file lost.
	fi = fixtureInfo(t, "lost-events.etl")
	if fi.EventsLost == 0 || fi.BuffersLost == 0 || fi.Events-2+int(fi.EventsLost) != 100 || fi.MaximumFileSize == 0 {
		t.Errorf("lost-events.etl: %d events kept, %d lost, %d buffers lost, max size %d", fi.Events-2, fi.EventsLost, fi.BuffersLost, fi.MaximumFileSize)
	}
	if s := seqs(t, dump("lost-events.etl")); len(s) == 0 || s[0] != 0 {
		t.Errorf("lost-events.etl keeps %v: want the first events", s)
	}

	// New file: the three files merge back into the 60 events in order.
	s = seqs(t, dump("newfile-1.etl", "newfile-2.etl", "newfile-3.etl"))
	if len(s) != 60 {
		t.Errorf("newfile-%%d.etl: %d events, want 60", len(s))
	}
	for i := range s {
		if s[i] != i {
			t.Errorf("newfile-%%d.etl: event %d has Seq %d", i, s[i])
			break
		}
	}
	for _, n := range []string{"newfile-1.etl", "newfile-2.etl", "newfile-3.etl"} {
		if fi := fixtureInfo(t, n); fi.LogFileMode != "0x2008" {
			t.Errorf("%s: mode %s", n, fi.LogFileMode)
		}
	}

	// 32-bit: a 32-bit header, EVENT_HEADER32 records, 4-byte pointers.
	fi = fixtureInfo(t, "tracelogging-32.etl")
	if fi.PointerSize != 4 || fi.HeaderTypes["event32"] != 3 || fi.HeaderTypes["system32"] != 2 || fi.HeaderTypes["event64"] != 0 {
		t.Errorf("tracelogging-32.etl: pointer size %d, header types %v", fi.PointerSize, fi.HeaderTypes)
	}
	for _, ev := range dump("tracelogging-32.etl") {
		if ev.Name == "Pointers" && (ev.Properties["HexIntPtr"] != float64(0x401000) || ev.Properties["UintPtr"] != float64(0x7FFE0000)) {
			t.Errorf("tracelogging-32.etl Pointers: %v", ev.Properties)
		}
	}
	// The classic fixture's 32-bit provider: FULL_HEADER32 records whose
	// pointer, SizeT and SID fields take 4-byte pointers.
	classic := parseLines(t, mustRun(t, fixturePath(t, "classic.etl"), "-of", "JSON", "-o", "-", "-import", fixturePath(t, "classic.mof")))
	n32 := 0
	for _, ev := range classic {
		if ev.Header == "classic32" {
			n32++
			if ev.Properties["Size"] != float64(0x100) || ev.Properties["UserSid"] != "S-1-5-18" || ev.Properties["Tag"] != "heap" {
				t.Errorf("classic32 event: %v", ev.Properties)
			}
		}
	}
	if n32 != 2 {
		t.Errorf("classic.etl: %d classic32 events, want 2", n32)
	}

	// Without their schema files, manifest and MOF events are not
	// decoded (the goldens are not decoded by accident); the string-only
	// event needs no schema.
	for _, ev := range dump("manifest-types.etl") {
		if ev.Provider == "{7e2a9c41-3b5d-4f60-9a18-2c4d6e8f0a1b}" && ev.Properties != nil && ev.Name != "EventWriteString" {
			t.Errorf("manifest-types.etl decodes without its manifest: %s", ev.Name)
		}
	}
}

// TestFixtureSchemasExist: each schema file named above is committed.
func TestFixtureSchemasExist(t *testing.T) {
	for _, fx := range generatedFixtures {
		if fx.schema == "" {
			continue
		}
		if _, err := os.Stat(fixturePath(t, fx.schema)); err != nil {
			t.Error(err)
		}
	}
}
