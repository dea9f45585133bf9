package report

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/etwkit/etw/analysis/analysistest"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
)

func mustBuild(t testing.TB, files []*etl.File, dec *decode.Decoder) *Data {
	t.Helper()
	d, err := Build(files, dec, nil)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	return d
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// TestSynthetic checks every section against the known contents of the
// synthetic trace.
func TestSynthetic(t *testing.T) {
	raw := synthTrace()
	f := openBytes(raw)
	d := mustBuild(t, []*etl.File{f}, decode.New())
	st := f.Scan()

	ov := d.Overview
	if ov.Events != st.Events || len(ov.Files) != 1 || ov.Files[0].Events != st.Events {
		t.Errorf("events %d (file %d), want %d", ov.Events, ov.Files[0].Events, st.Events)
	}
	sum := 0
	for _, c := range ov.Coverage {
		sum += c.Events
	}
	if sum != st.Events {
		t.Errorf("coverage adds up to %d, want %d: %+v", sum, st.Events, ov.Coverage)
	}
	if len(ov.Damaged) != 0 || ov.Processes != 4 {
		t.Errorf("damaged %v, processes %d", ov.Damaged, ov.Processes)
	}

	tl := d.Timeline
	total := 0
	for _, s := range tl.Series {
		if len(s.Counts) != tl.Buckets {
			t.Fatalf("series %s: %d counts for %d buckets", s.Name, len(s.Counts), tl.Buckets)
		}
		n := 0
		for _, c := range s.Counts {
			n += c
		}
		if n != s.Events {
			t.Errorf("series %s: counts add up to %d, events %d", s.Name, n, s.Events)
		}
		total += n
	}
	if total != st.Events || len(tl.Series) != 9 || tl.Series[8].GUID != "" || tl.Series[8].Name != "2 other providers" {
		t.Errorf("timeline: %d events in %d series (last %q)", total, len(tl.Series), tl.Series[len(tl.Series)-1].Name)
	}
	if len(tl.Lost) != 1 || !near(tl.Lost[0].T, 0.00085) || tl.Lost[0].Kind != "events lost" {
		t.Errorf("lost markers %+v", tl.Lost)
	}

	var child *Process
	for i, p := range d.Processes.List {
		if p.PID == childPID {
			child = &d.Processes.List[i]
		}
	}
	if child == nil || child.Start == nil || child.End == nil || !near(*child.Start, 0.0001) || !near(*child.End, 0.0009) ||
		child.CommandLine != synthChildCmd {
		t.Errorf("child process: %+v", child)
	}

	cpu := d.CPU
	if cpu.Samples != synthSamples || cpu.WithStack != synthSamples || len(cpu.Root.Children) != 1 {
		t.Fatalf("cpu: %+v", cpu)
	}
	app := cpu.Root.Children[0]
	got, _ := json.Marshal(app)
	want := `{"name":"app (100)","value":6,"children":[{"name":"app.exe","value":1,"children":[{"name":"ntoskrnl.exe","value":1}]},` +
		`{"name":"ntdll.dll","value":5,"children":[{"name":"app.exe","value":4}]}]}`
	if string(got) != want {
		t.Errorf("flame graph\n got %s\nwant %s", got, want)
	}

	dn := d.DotNet
	if len(dn.Processes) != 1 || dn.Processes[0].GCs != 2 || !near(dn.Processes[0].PauseMSTotal, 0.25) ||
		dn.Processes[0].Jitted != synthJitted || dn.Processes[0].AllocBytes != synthAllocBytes {
		t.Errorf(".NET processes %+v", dn.Processes)
	}
	if len(dn.GCs) != 2 || dn.GCs[1].Generation != 1 || !near(dn.GCs[0].T, 0.00052) || !near(dn.GCs[0].PauseMS, 0.13) {
		t.Errorf("GCs %+v", dn.GCs)
	}
	if len(dn.Generations) != 2 || dn.Generations[0].Count != 1 || len(dn.Allocations) != 2 ||
		dn.Allocations[0] != (Allocation{Type: "System.String", Ticks: 2, Bytes: 200000}) || len(dn.JIT) != 1 || dn.JIT[0] != (JITCount{Namespace: "App.Program", Methods: 2}) {
		t.Errorf("generations %+v, allocations %+v, JIT %+v", dn.Generations, dn.Allocations, dn.JIT)
	}

	disk := d.IO.Disk
	if disk.Total.Reads != synthDiskReads || disk.Total.ReadBytes != synthDiskRead || disk.Total.WriteBytes != synthDiskWrite ||
		!near(disk.Total.LatencyMS, 11) || !near(disk.Total.MaxMS, 5) || !disk.LatencyKnown {
		t.Errorf("disk total %+v", disk.Total)
	}
	if len(disk.ByFile) != 2 || disk.ByFile[0].Name != `C:\data\a.bin` || disk.ByFile[0].ReadBytes != synthDiskRead ||
		len(disk.ByProcess) != 2 || disk.ByProcess[1].Name != "child (300)" || disk.ByProcess[1].WriteBytes != synthDiskWrite {
		t.Errorf("disk by file %+v, by process %+v", disk.ByFile, disk.ByProcess)
	}
	file := d.IO.File
	if file.Total.Reads != synthFileReads || file.Total.ReadBytes != synthFileRead || file.Total.WriteBytes != synthFileWrite ||
		file.Total.Timed != 2 || !near(file.Total.LatencyMS, 0.04) || !near(file.Total.MaxMS, 0.03) {
		t.Errorf("file total %+v", file.Total)
	}
	if file.ByFile[0].Name != `C:\data\a.bin` || file.ByFile[1].Name != `C:\data\b.bin` || file.ByFile[1].WriteBytes != synthFileWrite {
		t.Errorf("file by file %+v", file.ByFile)
	}
	if file.LatencyDropped != 1 { // the write, whose OpEnd is not in the trace
		t.Errorf("file I/O: %d operations untimed, want 1", file.LatencyDropped)
	}
	if len(d.Providers) != 10 {
		t.Errorf("%d providers", len(d.Providers))
	}

	// The same input gives the same bytes.
	j1, _ := json.Marshal(d)
	j2, _ := json.Marshal(mustBuild(t, []*etl.File{openBytes(raw)}, decode.New()))
	if !bytes.Equal(j1, j2) {
		t.Error("two builds differ")
	}
	var h1, h2 bytes.Buffer
	if err := d.WriteHTML(&h1); err != nil {
		t.Fatal(err)
	}
	if err := d.WriteHTML(&h2); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(h1.Bytes(), h2.Bytes()) {
		t.Error("two HTML pages differ")
	}
	checkPage(t, h1.String(), []string{"overview", "cpuutil", "timeline", "processes", "cpu", "dotnet", "io", "providers", "events"})
	if strings.Contains(h1.String(), "<script>alert") || !strings.Contains(h1.String(), "&lt;/script&gt;&lt;script&gt;alert(1)") {
		t.Error("the child's command line is not escaped")
	}
}

// TestDamaged: a buffer flagged as having lost events, a damaged record
// and a damaged buffer header are listed with their offsets and marked on
// the timeline at the time of their buffers.
func TestDamaged(t *testing.T) {
	raw := synthTrace()
	bufs := openBytes(raw).Buffers()
	c := bytes.Clone(raw)
	o2, o4, o6 := bufs[2].FileOffset, bufs[4].FileOffset, bufs[6].FileOffset
	binary.LittleEndian.PutUint16(c[o2+0x34:], binary.LittleEndian.Uint16(c[o2+0x34:])|etl.BufferFlagEventsLost)
	copy(c[o4+etl.BufferHeaderSize:], bytes.Repeat([]byte{0xFF}, 8)) // a record of no known kind
	binary.LittleEndian.PutUint32(c[o6:], 7)                         // a buffer size too small
	f := openBytes(c)
	d, err := Build([]*etl.File{f}, decode.New(), nil)
	if err == nil {
		t.Fatal("no error for damaged buffers")
	}
	if len(d.Overview.Damaged) != 2 {
		t.Fatalf("damaged: %+v", d.Overview.Damaged)
	}
	offsets := map[int64]bool{}
	for _, dm := range d.Overview.Damaged {
		offsets[dm.Offset] = true
		if dm.T == nil || *dm.T <= 0 {
			t.Errorf("%+v: no time", dm)
		}
	}
	if !offsets[o4+etl.BufferHeaderSize] || !offsets[o6] {
		t.Errorf("damaged offsets %v, want %#x and %#x", offsets, o4+etl.BufferHeaderSize, o6)
	}
	if len(d.Timeline.Damaged) != 2 || d.Timeline.Damaged[0].T > d.Timeline.Damaged[1].T {
		t.Errorf("timeline damaged %+v", d.Timeline.Damaged)
	}
	if len(d.Timeline.Lost) != 2 || !strings.Contains(d.Timeline.Lost[0].Detail, "0x800") {
		t.Errorf("timeline lost %+v", d.Timeline.Lost)
	}
	var h bytes.Buffer
	if err := d.WriteHTML(&h); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`class="mark-lost"`, `class="mark-damaged"`, "Damaged buffers and records", "0x1800"} {
		if !strings.Contains(h.String(), s) {
			t.Errorf("page lacks %q", s)
		}
	}
}

// fixtures are the bundled .etl files with the schemas they need.
// samples counts their CPU samples (SampleProf records of sample.etl
// and record-kinds.etl, without stacks).
var fixtures = []struct {
	files   []string
	schema  string
	samples int64
}{
	{[]string{"sample.etl"}, "", 1},
	{[]string{"tracelogging-types.etl"}, "", 0},
	{[]string{"tracelogging-32.etl"}, "", 0},
	{[]string{"manifest-types.etl"}, "manifest-types.man", 0},
	{[]string{"classic.etl"}, "classic.mof", 0},
	{[]string{"compressed.etl"}, "", 0},
	{[]string{"circular.etl"}, "", 0},
	{[]string{"lost-events.etl"}, "", 0},
	{[]string{"newfile-1.etl", "newfile-2.etl", "newfile-3.etl"}, "", 0},
	{[]string{"wpp.etl"}, "wpp.tmf", 0},
	{[]string{"record-kinds.etl"}, "classic.mof", 2},
}

func fixturePath(name string) string { return filepath.Join("..", "testdata", "etl", name) }

// fixtureReport builds the report of a fixture.
func fixtureReport(t testing.TB, names []string, schema string) *Data {
	t.Helper()
	var files []*etl.File
	for _, n := range names {
		f, err := etl.Open(fixturePath(n))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		files = append(files, f)
	}
	dec := decode.New()
	if schema != "" {
		if err := dec.Import(fixturePath(schema)); err != nil {
			t.Fatal(err)
		}
	}
	return mustBuild(t, files, dec)
}

// TestFixtures builds the report of every bundled fixture: the counts
// match the files', every event is in the timeline, sections without data
// are left out, and the page is self-contained.
func TestFixtures(t *testing.T) {
	for _, fx := range fixtures {
		t.Run(fx.files[0], func(t *testing.T) {
			d := fixtureReport(t, fx.files, fx.schema)
			want := 0
			for _, n := range fx.files {
				f, err := etl.Open(fixturePath(n))
				if err != nil {
					t.Fatal(err)
				}
				want += f.Scan().Events
				f.Close()
			}
			if d.Overview.Events != want || len(d.Overview.Files) != len(fx.files) {
				t.Errorf("%d events in %d files, want %d", d.Overview.Events, len(d.Overview.Files), want)
			}
			n := 0
			for _, s := range d.Timeline.Series {
				for _, c := range s.Counts {
					n += c
				}
			}
			if n != want {
				t.Errorf("timeline holds %d events, want %d", n, want)
			}
			sections := []string{"overview"}
			if fx.samples > 0 {
				sections = append(sections, "cpuutil")
			}
			sections = append(sections, "timeline")
			if d.Processes != nil {
				sections = append(sections, "processes")
			}
			if fx.samples > 0 {
				if d.CPU == nil || d.CPU.Samples != fx.samples || d.CPU.WithStack != 0 {
					t.Errorf("CPU: %+v, want %d samples without stacks", d.CPU, fx.samples)
				} else {
					sections = append(sections, "cpu")
				}
			} else if d.CPU != nil {
				t.Errorf("CPU data in a fixture without samples: %+v", d.CPU)
			}
			if d.DotNet != nil || d.IO != nil {
				t.Errorf(".NET or I/O data in a fixture that has none: %v %v", d.DotNet, d.IO)
			}
			// record-kinds.etl holds three CSwitch events (compact and
			// system records), the only fixture with context switches.
			if fx.files[0] == "record-kinds.etl" {
				if d.Threads == nil || d.Threads.ContextSwitches != 3 {
					t.Errorf("threads %+v, want 3 context switches", d.Threads)
				} else {
					sections = append(sections, "threads")
				}
			} else if d.Threads != nil {
				t.Errorf("thread data in a fixture without context switches: %+v", d.Threads)
			}
			sections = append(sections, "providers", "events")
			var h bytes.Buffer
			if err := d.WriteHTML(&h); err != nil {
				t.Fatal(err)
			}
			checkPage(t, h.String(), sections)
			if fx.files[0] == "lost-events.etl" {
				if d.Overview.EventsLost != 76 || d.Overview.BuffersLost != 2 {
					t.Errorf("lost %d events, %d buffers; want 76, 2", d.Overview.EventsLost, d.Overview.BuffersLost)
				}
				if !strings.Contains(h.String(), "no buffer or record says when they were lost") {
					t.Error("the page does not say the lost events have no time")
				}
			}
		})
	}
}

var (
	sectionRE  = regexp.MustCompile(`<section id="([a-z]+)" class="sect">`)
	externalRE = regexp.MustCompile(`(?i)(\ssrc=|\shref="[^#]|url\(|@import|<link|<iframe|<img|<object|<embed)`)
)

// checkPage checks that the page has exactly the given sections and
// refers to nothing outside itself.
// sectionOf returns the page's section id, "" if none.
func sectionOf(page, id string) string {
	i := strings.Index(page, `<section id="`+id+`"`)
	if i < 0 {
		return ""
	}
	j := strings.Index(page[i:], "</section>")
	if j < 0 {
		return page[i:]
	}
	return page[i : i+j]
}

func checkPage(t testing.TB, page string, sections []string) {
	t.Helper()
	var got []string
	for _, m := range sectionRE.FindAllStringSubmatch(page, -1) {
		got = append(got, m[1])
	}
	if strings.Join(got, ",") != strings.Join(sections, ",") {
		t.Errorf("sections %v, want %v", got, sections)
	}
	if m := externalRE.FindString(page); m != "" {
		t.Errorf("the page refers to something outside itself: %q", m)
	}
	if !strings.Contains(page, `<meta http-equiv="Content-Security-Policy" content="default-src 'none';`) {
		t.Error("no Content-Security-Policy")
	}
	// The page's own scripts: the error recorder, the profile's, GCs',
	// .NET tables', I/O's and the timeline's data, the profile's views, the other
	// views that follow the time range, the events table's data and
	// script, and the main script.
	want := 4
	for _, id := range []string{"profile-data", "gc-data", "io-data", "dotnet-data"} {
		if strings.Contains(page, `id="`+id+`"`) {
			want++
		}
	}
	if strings.Contains(page, `id="timeline-data"`) {
		want++
	}
	if strings.Contains(page, `id="events-data"`) {
		want += 2
	}
	if n := strings.Count(page, "<script"); n != want {
		t.Errorf("%d script elements, want %d", n, want)
	}
}

// corpusFile returns the path of a corpus file: skipped without
// ETL_CORPUS, failed when the file is missing.
func corpusFile(t testing.TB, rel string) string {
	t.Helper()
	dir := os.Getenv("ETL_CORPUS")
	if dir == "" {
		t.Skip("ETL_CORPUS is not set: no real .etl corpus to test against")
	}
	p := filepath.Join(dir, rel)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("corpus file missing: %v", err)
	}
	return p
}

const (
	netRel      = "microsoft+perfview/src/TraceEvent/TraceEvent.Tests/inputs/net.4.5.2.x64.etl.zip.unzipped/net.4.5.2.x64.etl"
	pktmonRel   = "nathaniel-security+microsoft-pktmon-VPN-capture-traffic/history/508f5bc135c8effceef0879693c6de45f2a92012/PktMon.etl"
	shutdownRel = "airbus-cert+etl-parser/tests/example/ShutdownPerfDiagLogger.etl"
)

func corpusReport(t testing.TB, rel string) (*Data, []byte) {
	t.Helper()
	f, err := etl.Open(corpusFile(t, rel))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := Build([]*etl.File{f}, decode.New(), &Options{Names: []string{filepath.Base(rel)}})
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	var h bytes.Buffer
	if err := d.WriteHTML(&h); err != nil {
		t.Fatal(err)
	}
	return d, h.Bytes()
}

// TestCorpusNet: the PerfView trace has every section, with the figures
// stats and stacks give.
func TestCorpusNet(t *testing.T) {
	d, page := corpusReport(t, netRel)
	if d.Overview.Events != 179474 || d.Overview.Processes != 35 || len(d.Providers) != 26 {
		t.Errorf("events %d, processes %d, providers %d", d.Overview.Events, d.Overview.Processes, len(d.Providers))
	}
	if d.CPU.Samples != 6320 || d.CPU.Root.Children[0].Name != "Test.x64 (3676)" || d.CPU.Root.Children[0].Value != 5129 {
		t.Errorf("CPU: %d samples, first process %s %d", d.CPU.Samples, d.CPU.Root.Children[0].Name, d.CPU.Root.Children[0].Value)
	}
	// The CPU utilisation adds up to the flame graph's samples (the
	// library's count, checked against the raw events in package
	// analysis), per bucket and in all, and in % of 8 processors.
	u := d.CPUUtilization
	if u == nil || u.CPUs != 8 || u.IntervalMS != 1 || u.IntervalFrom != "PerfInfo/CollectionStart" || u.Series[0].Name != "Test.x64 (3676)" || u.Series[0].Total != 5129 {
		t.Fatalf("CPU utilisation: %+v", u)
	}
	var usum int64
	for _, s := range u.Series {
		for _, n := range s.Samples {
			usum += n
		}
	}
	if usum != d.CPU.Samples {
		t.Errorf("CPU utilisation adds up to %d samples, the flame graph %d", usum, d.CPU.Samples)
	}
	busy := pctf(float64(usum), 8*float64(len(u.Series[0].Samples))*u.BucketSec*1000)
	if !strings.Contains(string(page), "<b>"+busy+"</b><span>CPU busy") || !strings.Contains(string(page), "Top processes by CPU: Test.x64 (3676)") {
		t.Errorf("overview: no CPU busy %s or top processes", busy)
	}
	var test *DotNetProcess
	for i, p := range d.DotNet.Processes {
		if p.PID == 3676 {
			test = &d.DotNet.Processes[i]
		}
	}
	if test == nil || test.GCs != 263 || !near(test.PauseMSTotal, 28.9706) || !near(test.PauseMSMax, 1.4177) {
		t.Errorf("Test.x64 GCs: %+v", test)
	}
	if d.IO.Disk == nil || d.IO.Disk.Total.Reads != 1208 || d.IO.Disk.Total.Writes != 21 || d.IO.File != nil {
		t.Errorf("I/O: %+v", d.IO)
	}
	if !strings.HasSuffix(d.IO.Disk.ByFile[0].Name, `\clr.dll`) {
		t.Errorf("disk: first file %s", d.IO.Disk.ByFile[0].Name)
	}
	// The trace maps \Device\HarddiskVolume2\ to C:\ (KernelTraceControl
	// SysConfig VolumeMapping): the files are shown on C:.
	for _, f := range d.IO.Disk.ByFile {
		if strings.HasPrefix(f.Name, `\Device\HarddiskVolume2\`) {
			t.Errorf("disk: file %s not mapped to its drive letter", f.Name)
		}
	}
	if name := d.IO.Disk.ByFile[0].Name; !strings.HasPrefix(name, `C:\`) {
		t.Errorf("disk: first file %s, want it on C:", name)
	}
	checkPage(t, string(page), []string{"overview", "cpuutil", "timeline", "processes", "cpu", "dotnet", "io", "providers", "events"})
	// The overview comes first with what a person asks of a trace; the
	// decode coverage is in the providers section.
	ov, prov := sectionOf(string(page), "overview"), sectionOf(string(page), "providers")
	for _, want := range []string{"duration", "CPU busy", "Top processes by CPU", "time in GC", "events lost", "damaged buffers"} {
		if !strings.Contains(ov, want) {
			t.Errorf("the overview does not show %q", want)
		}
	}
	if strings.Contains(ov, "Decode coverage") || !strings.Contains(prov, "Decode coverage by schema source") {
		t.Error("the decode coverage is not in the providers section (only)")
	}
	if len(page) > 3<<20 {
		t.Errorf("page of %d bytes", len(page))
	}
	t.Logf("page %d bytes; flame graph %d of %d frames; timeline %d buckets of %g s, %d detail levels",
		len(page), d.CPU.Kept, d.CPU.Frames, d.Timeline.Buckets, d.Timeline.BucketSec, len(d.Timeline.Detail))
}

// TestCorpusPktMon: a capture with no kernel or .NET events has only the
// overview, timeline, processes, network and providers.
func TestCorpusPktMon(t *testing.T) {
	d, page := corpusReport(t, pktmonRel)
	if d.Overview.Events != 4601 || d.CPU != nil || d.DotNet != nil || d.IO != nil {
		t.Errorf("events %d; CPU %v, .NET %v, I/O %v", d.Overview.Events, d.CPU, d.DotNet, d.IO)
	}
	if d.Providers[0].Name != "Microsoft-Windows-PktMon" || d.Providers[0].Events != 4514 {
		t.Errorf("first provider %+v", d.Providers[0])
	}
	if n := d.Network; n == nil || n.Packets != 3646 || n.Drops != 0 || len(n.ByComponent) != 12 || len(n.Endpoints) == 0 {
		t.Errorf("network %+v", d.Network)
	}
	if !strings.Contains(string(page), "tracerpt-go pcapng TRACE.etl -o TRACE.pcapng") {
		t.Errorf("the network section does not point to tracerpt-go pcapng")
	}
	checkPage(t, string(page), []string{"overview", "timeline", "processes", "network", "providers", "events"})
}

// TestCorpusShutdown: a kernel logger file whose events cluster at the
// end of an 8-hour session: the timeline keeps finer levels for zooming.
func TestCorpusShutdown(t *testing.T) {
	d, page := corpusReport(t, shutdownRel)
	if d.Overview.Events != 17078 || d.Overview.DurationSec < 29000 {
		t.Errorf("events %d over %g s", d.Overview.Events, d.Overview.DurationSec)
	}
	if len(d.Timeline.Detail) < 4 || d.Timeline.Detail[len(d.Timeline.Detail)-1].BucketSec > 1e-3 {
		t.Errorf("detail levels %d", len(d.Timeline.Detail))
	}
	exits := 0
	for _, p := range d.Processes.List {
		if p.End != nil {
			exits++
		}
	}
	if exits == 0 {
		t.Error("no process exits in a shutdown trace")
	}
	checkPage(t, string(page), []string{"overview", "timeline", "processes", "providers", "events"})
}

// BenchmarkBuildNet builds the report of net.4.5.2.x64.etl (179,474
// events): the model, then every event decoded with its stack.
func BenchmarkBuildNet(b *testing.B) {
	p := corpusFile(b, netRel)
	for b.Loop() {
		f, err := etl.Open(p)
		if err != nil {
			b.Fatal(err)
		}
		d, err := Build([]*etl.File{f}, decode.New(), nil)
		if err != nil {
			b.Fatal(err)
		}
		if err := d.WriteHTML(&bytes.Buffer{}); err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
}

// BenchmarkWriteHTMLNet writes net.4.5.2.x64.etl's report page (1.5 MB)
// from its built Data: the views' pages and the templates.
func BenchmarkWriteHTMLNet(b *testing.B) {
	f, err := etl.Open(corpusFile(b, netRel))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	d, err := Build([]*etl.File{f}, decode.New(), nil)
	if err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	for b.Loop() {
		buf.Reset()
		if err := d.WriteHTML(&buf); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(buf.Len()))
}

// TestCoverageKinds: every listed coverage kind but the errors and the
// events without a schema is a schema origin that counts under its name,
// and unknown origins are not listed.
func TestCoverageKinds(t *testing.T) {
	for k, name := range coverageNames {
		if k == covError || k == covNone {
			continue
		}
		if got := coverageOf(name); got != k {
			t.Errorf("coverageOf(%q) = %d, want %d", name, got, k)
		}
	}
	for _, kind := range []string{"", "none", "error", "import:x", "Trace"} {
		if got := coverageOf(kind); got != covOther {
			t.Errorf("coverageOf(%q) = %d, want covOther", kind, got)
		}
	}
}

// TestTraceSchemas: the schemas a trace carries are registered by the
// pass that builds the model, before the events are decoded: an event
// logged before its EventSource manifest decodes with it, and a manifest
// event that cannot be used is a warning.
func TestTraceSchemas(t *testing.T) {
	const manifest = `<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events">
 <instrumentation><events>
  <provider name="Demo" guid="{a8a71ac1-040f-54a2-07ca-00a89b5ab761}" symbol="Demo">
   <tasks><task name="Work" value="1"/></tasks>
   <templates><template tid="T"><data name="Count" inType="win:Int32"/></template></templates>
   <events><event value="7" version="0" task="Work" opcode="win:Start" level="win:Informational" template="T"/></events>
  </provider>
 </events></instrumentation>
</instrumentationManifest>`
	demo := uuid.MustParse("a8a71ac1-040f-54a2-07ca-00a89b5ab761")
	broken := uuid.MustParse("a8a71ac1-040f-54a2-07ca-00a89b5ab762")
	var buf bytes.Buffer
	w, err := etl.NewWriter(&buf, &etl.WriterOptions{Header: etl.LogfileHeader{
		StartTime: filetime(synthStart), Is64: true, NumberOfProcessors: 1, LoggerName: "report test"}})
	if err != nil {
		t.Fatal(err)
	}
	tw := &analysistest.Writer{W: w, Start: synthStart}
	manifestEvent := func(us int, g uuid.UUID, data []byte) {
		tw.Write(etl.Event{Header: etl.HeaderEvent64, ProviderID: g, ProcessID: appPID, ThreadID: appTID, Timestamp: tw.Raw(us),
			Descriptor: etl.EventDescriptor{ID: 0xFFFE, Version: 1, Opcode: 0xFE}, UserData: data})
	}
	tw.Write(etl.Event{Header: etl.HeaderEvent64, ProviderID: demo, ProcessID: appPID, ThreadID: appTID, Timestamp: tw.Raw(1),
		Descriptor: etl.EventDescriptor{ID: 7, Level: 4, Opcode: 1, Task: 1}, UserData: []byte{3, 0, 0, 0}})
	manifestEvent(2, demo, append([]byte{1, 1, 0, 0x5B, 1, 0, 0, 0}, manifest...)) // one chunk of one
	manifestEvent(3, broken, []byte{1, 2})
	if tw.Err != nil {
		t.Fatal(tw.Err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	d, err := Build([]*etl.File{openBytes(buf.Bytes())}, decode.New(), nil)
	if err == nil || !strings.Contains(err.Error(), "no manifest envelope") {
		t.Errorf("error %v, want the broken manifest's", err)
	}
	if d == nil {
		t.Fatal("no report")
	}
	if len(d.Overview.Damaged) != 0 {
		t.Errorf("damaged %+v", d.Overview.Damaged)
	}
	// Demo's two events, the manifest and the one before it, decode.
	var found bool
	for _, p := range d.Providers {
		if p.GUID == "{"+demo.String()+"}" {
			found = true
			if p.Name != "Demo" || p.Events != 2 || p.Decoded != 2 || p.Source != "eventsource" {
				t.Errorf("provider %+v, want Demo's 2 events decoded with its manifest", p)
			}
		}
	}
	if !found {
		t.Errorf("providers %+v lack Demo", d.Providers)
	}
}
