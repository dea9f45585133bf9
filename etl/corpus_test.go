package etl_test

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/etltest"
)

func openPath(t testing.TB, p string) *etl.File {
	t.Helper()
	f, err := etl.Open(p)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// TestCorpusWalk reads every real file: no errors, the counts agree with
// each other and with the header, and the merged stream is in time order.
func TestCorpusWalk(t *testing.T) {
	files := etltest.CorpusTraces(t)
	total := 0
	for _, p := range files {
		rel, _ := filepath.Rel(etltest.CorpusDir(t), p)
		t.Run(rel, func(t *testing.T) {
			f := openPath(t, p)
			st := f.Scan()
			for _, err := range st.Errors {
				t.Errorf("scan error: %v", err)
			}
			sum := 0
			for _, n := range st.HeaderTypes {
				sum += n
			}
			if sum != st.Events || st.Events == 0 {
				t.Errorf("header types sum to %d, events %d", sum, st.Events)
			}
			if bw := int(f.Header.BuffersWritten); bw != 0 && bw != st.Buffers {
				t.Errorf("%d buffers, header says %d", st.Buffers, bw)
			}
			if f.Header.Compressed() != (st.CompressedBuffers > 0) {
				t.Errorf("compressed mode %v but %d compressed buffers", f.Header.Compressed(), st.CompressedBuffers)
			}
			r := etl.NewReader([]*etl.File{f}, nil)
			n, back := 0, 0
			var last int64
			for r.Next() {
				ev := r.Event()
				if n == 0 && (ev.HookID != 0 || ev.Time != f.Header.StartTime) {
					t.Errorf("first event: hook %#x time %d, want the header at %d", ev.HookID, ev.Time, f.Header.StartTime)
				}
				if ev.Time < last {
					back++
				}
				last = ev.Time
				n++
			}
			r.Close()
			if n != st.Events || back != 0 || len(r.Errors()) != 0 {
				t.Errorf("time order: %d events (want %d), %d backwards, errors %v", n, st.Events, back, r.Errors())
			}
			total += n
		})
	}
	t.Logf("%d files, %d events", len(files), total)
}

// TestCorpusKnownCounts checks counts that Windows tools or the format
// research report for these files.
func TestCorpusKnownCounts(t *testing.T) {
	dir := etltest.CorpusDir(t)
	cases := []struct {
		path    string
		events  int
		buffers int
		cmp     int
		types   map[etl.HeaderType]int
	}{
		// SOURCES.md: 179,474 records; 359 of 360 buffers compressed.
		{"microsoft+perfview/src/TraceEvent/TraceEvent.Tests/inputs/net.4.5.2.x64.etl.zip.unzipped/net.4.5.2.x64.etl", 179474, 360, 359, nil},
		// etl-format.md §7 (sample observations).
		{"airbus-cert+etl-parser/tests/example/ShutdownPerfDiagLogger.etl", 17078, 49, 0, map[etl.HeaderType]int{etl.HeaderSystem64: 8433, etl.HeaderPerfInfo64: 8645}},
		{"airbus-cert+etl-parser/tests/example/AMSITrace.etl", 21, 6, 0, map[etl.HeaderType]int{etl.HeaderSystem64: 2, etl.HeaderEvent64: 19}},
		{"airbus-cert+etl-parser/tests/example/lxcore_kernel.etl", 4, 3, 0, map[etl.HeaderType]int{etl.HeaderSystem64: 2, etl.HeaderEvent64: 2}},
		// tracerpt's CSV of mytrace lists 10 events: header, partition info, 8 EVENT_HEADER32.
		{"Marissa1999+Tracing-Application/mytrace.etl", 10, 3, 0, map[etl.HeaderType]int{etl.HeaderSystem64: 2, etl.HeaderEvent32: 8}},
		// SOURCES.md: 200 classic NetLogon events.
		{"sbousseaden+EVTX-ATTACK-SAMPLES/Credential Access/etw_ad_netlogon_provider_zerologon_mimikatz.etl", 203, 5, 0, map[etl.HeaderType]int{etl.HeaderClassic64: 200}},
		// SOURCES.md: 32-bit Windows, compressed, one 549-byte compressed buffer.
		{"microsoft+perfview/history/9c3fe4937dffab8ee8facbf4035bc3a400e90620/src/TraceEvent/TraceEvent.Tests/smallEtlFile.etl", 2, 2, 1, map[etl.HeaderType]int{etl.HeaderSystem32: 1, etl.HeaderEvent32: 1}},
	}
	for _, c := range cases {
		f := openPath(t, filepath.Join(dir, c.path))
		st := f.Scan()
		if st.Events != c.events || st.Buffers != c.buffers || st.CompressedBuffers != c.cmp || len(st.Errors) != 0 {
			t.Errorf("%s: events %d buffers %d compressed %d errors %v; want %d, %d, %d", c.path, st.Events, st.Buffers, st.CompressedBuffers, st.Errors, c.events, c.buffers, c.cmp)
		}
		for typ, n := range c.types {
			if st.HeaderTypes[typ] != n {
				t.Errorf("%s: %v = %d, want %d", c.path, typ, st.HeaderTypes[typ], n)
			}
		}
	}
}

// TestCorpusTracerptSummary compares with tracerpt -summary's totals.
func TestCorpusTracerptSummary(t *testing.T) {
	dir := filepath.Join(etltest.CorpusDir(t), "nathaniel-security+microsoft-pktmon-VPN-capture-traffic/history/508f5bc135c8effceef0879693c6de45f2a92012")
	sum, err := os.ReadFile(filepath.Join(dir, "summary.txt"))
	if err != nil {
		t.Fatal(err)
	}
	want := func(label string) int {
		m := regexp.MustCompile(label + `\s+(\d+)`).FindSubmatch(sum)
		if m == nil {
			t.Fatalf("no %q in summary.txt", label)
		}
		n, _ := strconv.Atoi(string(m[1]))
		return n
	}
	f := openPath(t, filepath.Join(dir, "PktMon.etl"))
	st := f.Scan()
	if st.Events != want("Total Events  Processed") || st.Buffers != want("Total Buffers Processed") || int(f.Header.EventsLost) != want("Total Events  Lost") {
		t.Errorf("events %d buffers %d lost %d; tracerpt: %d %d %d", st.Events, st.Buffers, f.Header.EventsLost,
			want("Total Events  Processed"), want("Total Buffers Processed"), want("Total Events  Lost"))
	}
	// Per-provider counts from the summary's second table.
	rows := regexp.MustCompile(`(?m)^\|\s+(\d+)\s+.*?\{([0-9a-f-]{36})\}\|$`).FindAllSubmatch(sum, -1)
	wantByGUID := map[uuid.UUID]int{}
	for _, m := range rows {
		n, _ := strconv.Atoi(string(m[1]))
		wantByGUID[uuid.MustParse(string(m[2]))] += n
	}
	if len(wantByGUID) < 5 {
		t.Fatalf("read only %d providers from summary.txt", len(wantByGUID))
	}
	gotByGUID := map[uuid.UUID]int{}
	r := etl.NewReader([]*etl.File{f}, nil)
	for r.Next() {
		gotByGUID[r.Event().ProviderID]++
	}
	r.Close()
	for g, n := range wantByGUID {
		// Both tables list every event once, so each GUID is counted twice.
		if gotByGUID[g]*2 != n {
			t.Errorf("provider %v: %d events, tracerpt %d", g, gotByGUID[g], n/2)
		}
	}
}

// TestCorpusTraceEventCounts compares per-provider counts with TraceEvent's
// baselines (COUNT lines).
func TestCorpusTraceEventCounts(t *testing.T) {
	dir := filepath.Join(etltest.CorpusDir(t), "microsoft+perfview/src/TraceEvent/TraceEvent.Tests/inputs")
	cases := []struct {
		etl, baseline, provider string
		guid                    uuid.UUID
	}{
		{"gcevents.etl.zip.unzipped/gcevents/PerfViewData.etl", "gcevents.baseline.txt", "Microsoft-Windows-DotNETRuntime", uuid.MustParse("e13c0d23-ccbc-4e12-931b-d9cc2eee27e4")},
		{"primitive-types.etl.zip.unzipped/primitive-types.etl", "primitive-types.baseline.txt", "solar_system", uuid.Nil},
	}
	for _, c := range cases {
		fb, err := os.Open(filepath.Join(dir, c.baseline))
		if err != nil {
			t.Fatal(err)
		}
		want := 0
		sc := bufio.NewScanner(fb)
		for sc.Scan() {
			line := sc.Text()
			if strings.HasPrefix(line, "COUNT "+c.provider+"/") {
				n, _ := strconv.Atoi(line[strings.LastIndexByte(line, ':')+1:])
				want += n
			}
		}
		fb.Close()
		f := openPath(t, filepath.Join(dir, c.etl))
		got := 0
		r := etl.NewReader([]*etl.File{f}, nil)
		for r.Next() {
			ev := r.Event()
			if ev.Header == etl.HeaderEvent64 && (c.guid == uuid.Nil || ev.ProviderID == c.guid) {
				got++
			}
		}
		r.Close()
		if got != want || want == 0 {
			t.Errorf("%s: %d %s events, TraceEvent counts %d", c.etl, got, c.provider, want)
		}
	}
}

// TestCorpusMytraceClockTime checks every event's FILETIME, PID, TID and
// processor against tracerpt's CSV of the same file.
func TestCorpusMytraceClockTime(t *testing.T) {
	dir := filepath.Join(etltest.CorpusDir(t), "Marissa1999+Tracing-Application")
	csv, err := os.ReadFile(filepath.Join(dir, "mytrace.csv"))
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		pid, tid, cpu uint64
		clock         int64
	}
	var want []row
	for i, line := range strings.Split(strings.TrimSpace(string(csv)), "\n") {
		if i == 0 {
			continue
		}
		fs := strings.Split(line, ",")
		p := func(k int) uint64 {
			v, err := strconv.ParseUint(strings.TrimSpace(fs[k]), 0, 64)
			if err != nil {
				t.Fatalf("line %d field %d: %v", i+1, k, err)
			}
			return v
		}
		want = append(want, row{p(9), p(10), p(11), int64(p(16))})
	}
	f := openPath(t, filepath.Join(dir, "mytrace.etl"))
	r := etl.NewReader([]*etl.File{f}, nil)
	defer r.Close()
	i := 0
	for ; r.Next(); i++ {
		ev := r.Event()
		if i >= len(want) {
			continue
		}
		w := want[i]
		if ev.Time != w.clock || uint64(ev.ProcessID) != w.pid || uint64(ev.ThreadID) != w.tid || uint64(ev.Processor) != w.cpu {
			t.Errorf("event %d: time %d pid %#x tid %#x cpu %d; tracerpt %d %#x %#x %d", i, ev.Time, ev.ProcessID, ev.ThreadID, ev.Processor, w.clock, w.pid, w.tid, w.cpu)
		}
	}
	if i != len(want) || i != 10 {
		t.Errorf("%d events, tracerpt lists %d", i, len(want))
	}
}
