package analysis_test

import (
	"bytes"
	"cmp"
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/pprof/profile"

	"github.com/etwkit/etw/analysis"
	"github.com/etwkit/etw/analysis/analysistest"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/pprof"
)

// writeAndParse writes p (gzip-compressed profile.proto) and reads it
// back with github.com/google/pprof/profile's Parse, which checks it.
// Written again by that package, what it read is the same bytes.
func writeAndParse(t *testing.T, p *pprof.Profile) *profile.Profile {
	t.Helper()
	var b bytes.Buffer
	if err := p.Write(&b); err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b.Bytes(), []byte{0x1f, 0x8b}) {
		t.Fatalf("not gzip: % x", b.Bytes()[:min(4, b.Len())])
	}
	q, err := profile.Parse(&b)
	if err != nil {
		t.Fatalf("profile.Parse: %v", err)
	}
	if err := q.CheckValid(); err != nil {
		t.Fatal(err)
	}
	var again bytes.Buffer
	if err := q.WriteUncompressed(&again); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again.Bytes(), p.Marshal()) {
		t.Fatalf("google/pprof writes the profile it read as other bytes (%d against %d)", again.Len(), len(p.Marshal()))
	}
	return q
}

// nativeName matches the function names of code in an image or at an
// unknown address: "module!0xOFFSET", "?!0xADDRESS".
var nativeName = regexp.MustCompile(`^(.*)!0x[0-9A-F]+$`)

// refold turns a parsed pprof profile back into the folded format with
// the folded format's naming rules, from what the profile says alone:
// the process label as root, "module" for "module!0xOFFSET" functions
// (consecutive frames of one module folding into one), "?" for unknown
// addresses, "module!Method" for .NET methods in a mapping and the
// method's name for the others; counts from samples/count.
func refold(t *testing.T, p *profile.Profile) string {
	t.Helper()
	clean := strings.NewReplacer(";", ":", "\r", " ", "\n", " ")
	type line struct {
		frames []string
		n      int64
	}
	lines := map[string]*line{}
	for _, s := range p.Sample {
		proc := s.Label["process"]
		if len(proc) != 1 {
			t.Fatalf("sample with process labels %q", proc)
		}
		frames := []string{clean.Replace(proc[0])}
		for i := len(s.Location) - 1; i >= 0; i-- {
			l := s.Location[i]
			if len(l.Line) != 1 {
				t.Fatalf("location %d has %d lines", l.ID, len(l.Line))
			}
			fn := l.Line[0].Function.Name
			var name string
			folds := false
			if m := nativeName.FindStringSubmatch(fn); m != nil {
				name, folds = m[1], true
			} else if l.Mapping != nil {
				file := l.Mapping.File
				file = file[strings.LastIndexAny(file, `\/`)+1:]
				name = file + "!" + fn
			} else {
				name = fn
			}
			name = clean.Replace(name)
			if folds && len(frames) > 1 && frames[len(frames)-1] == name {
				continue
			}
			frames = append(frames, name)
		}
		k := strings.Join(frames, "\x00")
		if lines[k] == nil {
			lines[k] = &line{frames: frames}
		}
		lines[k].n += s.Value[0]
	}
	sorted := make([]*line, 0, len(lines))
	for _, l := range lines {
		sorted = append(sorted, l)
	}
	slices.SortFunc(sorted, func(a, b *line) int { return slices.Compare(a.frames, b.frames) })
	var b strings.Builder
	for _, l := range sorted {
		b.WriteString(strings.Join(l.frames, ";") + " " + strconv.FormatInt(l.n, 10) + "\n")
	}
	return b.String()
}

// stackNames returns a sample's function names, innermost first.
func stackNames(s *profile.Sample) string {
	var names []string
	for _, l := range s.Location {
		names = append(names, l.Line[0].Function.Name)
	}
	return strings.Join(names, " ")
}

func TestCollectPprof(t *testing.T) {
	files, dec, m := buildExample(t)
	p, st, err := m.CollectPprof(files, dec, nil)
	if err != nil {
		t.Fatal(err)
	}
	if st.Selected != 4 || st.WithStack != 4 || !st.CPU || st.Interval != time.Millisecond || st.IntervalFrom != "default" ||
		st.Mappings != 3 || st.Locations != 7 || st.Functions != 7 {
		t.Errorf("stats %+v", st)
	}
	q := writeAndParse(t, p)
	if len(q.SampleType) != 2 || q.SampleType[0].Type != "samples" || q.SampleType[0].Unit != "count" ||
		q.SampleType[1].Type != "cpu" || q.SampleType[1].Unit != "nanoseconds" || q.DefaultSampleType != "cpu" {
		t.Errorf("sample types %v %v, default %q", q.SampleType[0], q.SampleType[len(q.SampleType)-1], q.DefaultSampleType)
	}
	if q.PeriodType == nil || q.PeriodType.Type != "cpu" || q.PeriodType.Unit != "nanoseconds" || q.Period != 1e6 {
		t.Errorf("period %v %d", q.PeriodType, q.Period)
	}
	if q.TimeNanos != m.Start().UnixNano() || q.DurationNanos != int64(m.End().Sub(m.Start())) || q.DurationNanos != 900e3 {
		t.Errorf("time %d duration %d, want %d and %v", q.TimeNanos, q.DurationNanos, m.Start().UnixNano(), m.End().Sub(m.Start()))
	}
	if len(q.Comments) != 1 || !strings.Contains(q.Comments[0], "1ms (Windows' default") {
		t.Errorf("comments %q", q.Comments)
	}
	// The samples in time order: a user-mode stack key; a kernel key and
	// the user key that completes it; an inline stack; managed code.
	want := []string{
		"app.exe!0x100 ntdll.dll!0x1000",
		"ntoskrnl.exe!0x1000 ntoskrnl.exe!0x2000 app.exe!0x100 ntdll.dll!0x1000",
		"app.exe!0x300 ntdll.dll!0x2000",
		"App.Program.Work app.exe!0x100 ntdll.dll!0x1000",
	}
	if len(q.Sample) != len(want) {
		t.Fatalf("%d samples", len(q.Sample))
	}
	for i, s := range q.Sample {
		if got := stackNames(s); got != want[i] {
			t.Errorf("sample %d: %s, want %s", i, got, want[i])
		}
		if !slices.Equal(s.Value, []int64{1, 1e6}) {
			t.Errorf("sample %d: values %v", i, s.Value)
		}
		if s.Label["process"][0] != "app (100)" || s.Label["thread"][0] != "200" || s.NumLabel["pid"][0] != appPID || s.NumLabel["tid"][0] != appTID {
			t.Errorf("sample %d: labels %v %v", i, s.Label, s.NumLabel)
		}
	}
	// Mappings: the main program first; PDB identity as the build id.
	if f := q.Mapping[0]; f.File != `C:\app\app.exe` || f.Start != appBase || f.Limit != appBase+0x10000 || f.BuildID != "" {
		t.Errorf("main mapping %+v", f)
	}
	for _, l := range q.Location {
		fn := l.Line[0].Function
		switch {
		case fn.Name == "App.Program.Work":
			if l.Mapping != nil || l.Address != workStart+0x10 {
				t.Errorf("managed location: %#x %+v", l.Address, l.Mapping)
			}
		case strings.HasPrefix(fn.Name, "ntdll.dll!"):
			mp := l.Mapping
			if mp == nil || mp.File != `C:\Windows\System32\ntdll.dll` || mp.Start != ntdllBase || mp.Limit != ntdllBase+0x200000 ||
				mp.BuildID != "EC83D8DF555946E0B1A40123456789AB2" || mp.HasFunctions || mp.Offset != 0 {
				t.Errorf("ntdll mapping %+v", mp)
			}
			if off, _ := strconv.ParseUint(strings.TrimPrefix(fn.Name, "ntdll.dll!0x"), 16, 64); l.Address != ntdllBase+off {
				t.Errorf("%s at %#x", fn.Name, l.Address)
			}
		case strings.HasPrefix(fn.Name, "ntoskrnl.exe!"):
			if l.Mapping == nil || l.Mapping.File != `\SystemRoot\system32\ntoskrnl.exe` || l.Mapping.Start != kernelBase {
				t.Errorf("kernel mapping %+v", l.Mapping)
			}
		}
		if fn.SystemName != fn.Name {
			t.Errorf("function %q: system name %q", fn.Name, fn.SystemName)
		}
	}
	if want := "EC83D8DF555946E0B1A40123456789AB2"; analysis.ImageBuildID(m.Processes()[findPID(m, appPID)].Images()[1]) != want {
		t.Errorf("ImageBuildID: want %s", want)
	}

	// The same selection as the folded output, line for line.
	prof, _, err := m.Collect(files, dec, nil)
	if err != nil {
		t.Fatal(err)
	}
	var folded bytes.Buffer
	prof.WriteFolded(&folded)
	if got := refold(t, q); got != folded.String() {
		t.Errorf("pprof refolded:\n%s\nfolded:\n%s", got, folded.String())
	}

	// Other events: events/count, no cpu value.
	sel, err := analysis.MatchEvent("{e13c0d23-ccbc-4e12-931b-d9cc2eee27e4}/10")
	if err != nil {
		t.Fatal(err)
	}
	p, st, _ = m.CollectPprof(files, dec, &analysis.PprofOptions{CollectOptions: analysis.CollectOptions{Select: sel, NeedsSchema: true}})
	q = writeAndParse(t, p)
	if st.CPU || st.Interval != 0 || len(q.SampleType) != 1 || q.SampleType[0].Type != "events" || q.PeriodType.Type != "events" || q.Period != 1 ||
		len(q.Sample) != 1 || stackNames(q.Sample[0]) != "App.Program.Work app.exe!0x200" || !slices.Equal(q.Sample[0].Value, []int64{1}) {
		t.Errorf("allocation ticks: %+v\n%v", st, q)
	}
	// A given interval; a selection of nothing is still a valid profile.
	p, st, _ = m.CollectPprof(files, dec, &analysis.PprofOptions{Interval: 250 * time.Microsecond})
	q = writeAndParse(t, p)
	if st.IntervalFrom != "option" || q.Period != 250e3 || q.Sample[0].Value[1] != 250e3 {
		t.Errorf("--interval: %+v, period %d", st, q.Period)
	}
	p, st, _ = m.CollectPprof(files, dec, &analysis.PprofOptions{CollectOptions: analysis.CollectOptions{PIDs: []uint32{4}}})
	q = writeAndParse(t, p)
	if st.Selected != 0 || len(q.Sample) != 0 || q.Period != 1e6 || !st.CPU {
		t.Errorf("pid 4: %+v, %d samples, period %d", st, len(q.Sample), q.Period)
	}
}

func findPID(m *analysis.Model, pid uint32) int {
	return slices.IndexFunc(m.Processes(), func(p *analysis.Process) bool { return p.PID == pid })
}

// intervalTrace writes a trace whose sampling interval changes: a
// SetInterval of the timer source from 0.5 ms to 2 ms, a CollectionStart
// of another profile source (ignored), a CollectionEnd; CPU samples of
// a named thread and of an unnamed one, and an idle-thread sample taken
// in a DPC.
func intervalTrace(t *testing.T) ([]*etl.File, *decode.Decoder) {
	t.Helper()
	tw := newTraceWriter()
	w, err := etl.NewWriter(&tw.buf, &etl.WriterOptions{Header: etl.LogfileHeader{
		StartTime: fileTime(traceStart), Is64: true, NumberOfProcessors: 1, LoggerName: "pprof intervals"}})
	if err != nil {
		t.Fatal(err)
	}
	tw.W = w
	const none = analysistest.None
	tw.Kernel(0, hookProcess, 3, 3, appPID, appTID, analysistest.ProcessPayload(appPID, 4, "app.exe", "app.exe"))
	// Thread v4 with a name; v2 without.
	named := &payload{B: analysistest.ThreadPayload(appPID, appTID)}
	named.B = append(named.B, 8, 5, 2, 0)
	tw.Kernel(0, hookThread, 3, 4, appPID, appTID, named.WStr("worker").B)
	tw.Kernel(0, hookThread, 3, 2, appPID, appTID+1, analysistest.ThreadPayload(appPID, appTID+1))
	tw.Kernel(1, hookImage, 3, 2, none, none, analysistest.ImagePayload(appBase, 0x10000, appPID, `C:\app\app.exe`))
	interval := func(us int, opcode uint8, source, newIv, oldIv uint32) {
		p := (&payload{}).U32(source).U32(newIv).U32(oldIv)
		version := uint16(2)
		if opcode != 72 {
			version = 3
			p.WStr("Timer")
		}
		tw.Kernel(us, hookPerfInfo, opcode, version, 4, 8, p.B)
	}
	sample := func(us int, tid uint32, flags uint16) {
		tw.Kernel(us, hookPerfInfo, 46, 2, none, none, (&payload{}).U64(appBase+0x100).U32(tid).U16(1).U16(flags).B)
	}
	sample(5, appTID, 0)
	interval(10, 72, 0, 20000, 5000)
	interval(15, 73, 1, 1000, 1000) // another profile source
	sample(20, appTID, 0)
	sample(30, appTID+1, 0)
	sample(35, 0, 2) // idle thread, in a DPC
	sample(40, appTID, 0)
	interval(50, 74, 0, 20000, 20000)
	if tw.Err != nil {
		t.Fatal(tw.Err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := etl.NewFile(bytes.NewReader(tw.buf.Bytes()), int64(tw.buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	return []*etl.File{f}, decode.New()
}

func TestPprofIntervalsAndLabels(t *testing.T) {
	files, dec := intervalTrace(t)
	m, err := analysis.Build(files, dec, nil)
	if err != nil {
		t.Fatal(err)
	}
	p, st, err := m.CollectPprof(files, dec, nil)
	if err != nil {
		t.Fatal(err)
	}
	q := writeAndParse(t, p)
	if st.Selected != 5 || st.IntervalFrom != "PerfInfo/SetInterval" || st.Interval != 2*time.Millisecond || q.Period != 2e6 {
		t.Errorf("stats %+v, period %d", st, q.Period)
	}
	// Before the SetInterval, its OldInterval; after it, NewInterval.
	type want struct {
		cpu          int64
		process, thr string
		pid, tid     []int64
	}
	wants := []want{
		{500e3, "app (100)", "worker", []int64{appPID}, []int64{appTID}},
		{2e6, "app (100)", "worker", []int64{appPID}, []int64{appTID}},
		{2e6, "app (100)", "201", []int64{appPID}, []int64{appTID + 1}},
		{2e6, "Idle (0)", "0", nil, nil},
		{2e6, "app (100)", "worker", []int64{appPID}, []int64{appTID}},
	}
	if len(q.Sample) != len(wants) {
		t.Fatalf("%d samples", len(q.Sample))
	}
	for i, s := range q.Sample {
		w := wants[i]
		if s.Value[0] != 1 || s.Value[1] != w.cpu || s.Label["process"][0] != w.process || s.Label["thread"][0] != w.thr ||
			!slices.Equal(s.NumLabel["pid"], w.pid) || !slices.Equal(s.NumLabel["tid"], w.tid) || len(s.Location) != 0 {
			t.Errorf("sample %d: %v %v %v, %d locations; want %+v", i, s.Value, s.Label, s.NumLabel, len(s.Location), w)
		}
	}
	// Samples without stacks: the folded format has their processes.
	prof, _, _ := m.Collect(files, dec, nil)
	var folded bytes.Buffer
	prof.WriteFolded(&folded)
	if got := refold(t, q); got != folded.String() || got != "Idle (0) 1\napp (100) 4\n" {
		t.Errorf("refolded %q, folded %q", got, folded.String())
	}
}

// TestCorpusNetPprof writes the CPU profile of net.4.5.2.x64, reads it
// back with profile.Parse, and checks it against the folded output of
// the same selection, line for line.
func TestCorpusNetPprof(t *testing.T) {
	files := analysis.OpenNetCorpus(t)
	dec := decode.New()
	m, err := analysis.Build(files, dec, nil)
	if err != nil {
		t.Fatal(err)
	}
	p, st, err := m.CollectPprof(files, dec, nil)
	if err != nil {
		t.Fatal(err)
	}
	q := writeAndParse(t, p)
	if st.Selected != 6320 || len(q.Sample) != 6320 || st.IntervalFrom != "PerfInfo/CollectionStart" || q.Period != 1e6 {
		t.Errorf("stats %+v, %d samples, period %d", st, len(q.Sample), q.Period)
	}
	var count, cpu int64
	perProcess := map[string]int64{}
	for _, s := range q.Sample {
		count += s.Value[0]
		cpu += s.Value[1]
		perProcess[s.Label["process"][0]] += s.Value[0]
		if pid := s.NumLabel["pid"]; len(pid) == 1 && !strings.HasSuffix(s.Label["process"][0], " ("+strconv.FormatInt(pid[0], 10)+")") {
			t.Errorf("pid %d in %q", pid[0], s.Label["process"][0])
		}
	}
	if count != 6320 || cpu != 6320*1e6 || perProcess["Test.x64 (3676)"] != 5129 {
		t.Errorf("count %d, cpu %d ns, Test.x64 %d", count, cpu, perProcess["Test.x64 (3676)"])
	}
	if q.TimeNanos != m.Start().UnixNano() || q.DurationNanos != int64(m.End().Sub(m.Start())) {
		t.Errorf("time %d + %d", q.TimeNanos, q.DurationNanos)
	}
	// The main program first, with its PDB identity.
	if mp := q.Mapping[0]; !strings.HasSuffix(mp.File, `\Test.x64.exe`) || mp.BuildID != "3304FFA1D9324925A38DFCAF4CAFB6241" {
		t.Errorf("main mapping %+v", mp)
	}
	withBuildID := 0
	for _, mp := range q.Mapping {
		if mp.BuildID != "" {
			withBuildID++
		}
	}
	if withBuildID < len(q.Mapping)/2 {
		t.Errorf("%d of %d mappings with a build id", withBuildID, len(q.Mapping))
	}
	prof, _, err := m.Collect(files, dec, nil)
	if err != nil {
		t.Fatal(err)
	}
	var folded bytes.Buffer
	prof.WriteFolded(&folded)
	if got := refold(t, q); got != folded.String() {
		gl, fl := strings.Split(got, "\n"), strings.Split(folded.String(), "\n")
		for i := range min(len(gl), len(fl)) {
			if gl[i] != fl[i] {
				t.Fatalf("refolded pprof differs from the folded output at line %d:\n%s\n%s", i+1, gl[i], fl[i])
			}
		}
		t.Fatalf("refolded pprof: %d lines, folded %d", len(gl), len(fl))
	}
	// The heaviest function: System.DateTime.GetDatePart, as in folded.
	flat := map[string]int64{}
	for _, s := range q.Sample {
		if len(s.Location) > 0 {
			flat[s.Location[0].Line[0].Function.Name] += s.Value[0]
		}
	}
	names := make([]string, 0, len(flat))
	for n := range flat {
		names = append(names, n)
	}
	slices.SortFunc(names, func(a, b string) int { return cmp.Or(cmp.Compare(flat[b], flat[a]), strings.Compare(a, b)) })
	if names[0] != "System.DateTime.GetDatePart" || flat[names[0]] != 1855 {
		t.Errorf("top function %s %d", names[0], flat[names[0]])
	}
}

// TestSampleIntervalsConstant: a trace whose timer interval changes has
// no constant interval; a trace that logs none has none either (nothing
// assumed); net.4.5.2.x64 logs 1 ms throughout.
func TestSampleIntervalsConstant(t *testing.T) {
	observe := func(files []*etl.File, dec *decode.Decoder) *analysis.SampleIntervals {
		t.Helper()
		m, err := analysis.Build(files, dec, nil)
		if err != nil {
			t.Fatal(err)
		}
		var s analysis.SampleIntervals
		if _, err := m.EachSelected(files, dec, &analysis.CollectOptions{Decode: s.NeedsDecode, Observe: s.Observe}, func(*analysis.Annotation) error { return nil }); err != nil {
			t.Fatal(err)
		}
		return &s
	}
	files, dec := intervalTrace(t)
	if d, ok := observe(files, dec).Constant(); ok {
		t.Errorf("a changing interval is constant: %v", d)
	}
	files, dec, _ = buildExample(t)
	if d, ok := observe(files, dec).Constant(); ok {
		t.Errorf("a trace without interval events has one: %v", d)
	}
	files = analysis.OpenNetCorpus(t)
	if d, ok := observe(files, decode.New()).Constant(); !ok || d != time.Millisecond {
		t.Errorf("net.4.5.2.x64: %v, %v; want 1ms", d, ok)
	}
}

// TestProfileInTime: samples weighed by the interval in effect at their
// time (0.5 ms before the SetInterval, 2 ms after) give the folded
// output in ms and speedscope's in nanoseconds, as pprof's cpu values.
func TestProfileInTime(t *testing.T) {
	files, dec := intervalTrace(t)
	m, err := analysis.Build(files, dec, nil)
	if err != nil {
		t.Fatal(err)
	}
	var iv analysis.SampleIntervals
	if _, err := m.EachSelected(files, dec, &analysis.CollectOptions{Decode: iv.NeedsDecode, Observe: iv.Observe}, func(*analysis.Annotation) error { return nil }); err != nil {
		t.Fatal(err)
	}
	prof, _, err := m.CollectWeighted(files, dec, nil, func(a *analysis.Annotation) int64 { return int64(iv.At(a.Time()) / 100) })
	if err != nil {
		t.Fatal(err)
	}
	var folded, ss bytes.Buffer
	if err := prof.WriteFoldedWith(&folded, analysis.AppendMS); err != nil {
		t.Fatal(err)
	}
	// app: 0.5 + 2 + 2 + 2 ms; Idle's DPC sample 2 ms.
	if got := folded.String(); got != "Idle (0) 2\napp (100) 6.5\n" {
		t.Errorf("folded in ms:\n%s", got)
	}
	if err := prof.WriteSpeedscopeTicks(&ss, "t"); err != nil {
		t.Fatal(err)
	}
	var f struct {
		Profiles []struct {
			Name, Unit string
			EndValue   int64
		}
	}
	if err := json.Unmarshal(ss.Bytes(), &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Profiles) != 2 || f.Profiles[0].Name != "app (100)" || f.Profiles[0].Unit != "nanoseconds" || f.Profiles[0].EndValue != 6_500_000 || f.Profiles[1].EndValue != 2_000_000 {
		t.Errorf("speedscope: %+v", f.Profiles)
	}
}
