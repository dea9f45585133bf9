package analysis_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/etwkit/etw/analysis"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
)

func buildExample(t *testing.T) ([]*etl.File, *decode.Decoder, *analysis.Model) {
	t.Helper()
	files, dec := exampleTrace()
	m, err := analysis.Build(files, dec, nil)
	if err != nil {
		t.Fatal(err)
	}
	return files, dec, m
}

func TestModelProcessesThreadsImages(t *testing.T) {
	_, _, m := buildExample(t)
	var app *analysis.Process
	for _, p := range m.Processes() {
		if p.PID == appPID {
			app = p
		}
	}
	if app == nil {
		t.Fatal("no record for pid 100")
	}
	if app.ImageFileName != "app.exe" || app.Name != "app" || app.CommandLine != "app.exe --work" || app.ParentPID != 4 {
		t.Errorf("process: %+v", app)
	}
	if !app.Start().IsZero() || !app.End().IsZero() {
		t.Errorf("rundown process: start %v end %v, want both unknown", app.Start(), app.End())
	}
	if p := m.ProcessAt(appPID, traceStart.Add(time.Millisecond)); p != app {
		t.Errorf("ProcessAt = %v", p)
	}
	if pid, ok := m.ThreadPID(appTID, traceStart); !ok || pid != appPID {
		t.Errorf("ThreadPID(200) = %d %v", pid, ok)
	}
	if pid, ok := m.ThreadPID(0, traceStart); !ok || pid != 0 {
		t.Errorf("ThreadPID(0) = %d %v, want the idle process", pid, ok)
	}
	if _, ok := m.ThreadPID(999, traceStart); ok {
		t.Error("ThreadPID(999) known")
	}
	imgs := app.Images()
	if len(imgs) != 2 || imgs[0].FileName() != "app.exe" || imgs[1].FileName() != "ntdll.dll" {
		t.Fatalf("images: %v", imgs)
	}
	if pdb := imgs[1].PDB(); pdb.Name != "ntdll.pdb" || pdb.GUID != ntdllPDBGUID || pdb.Age != 2 {
		t.Errorf("ntdll PDB: %+v", pdb)
	}
	if k := m.KernelImages(); len(k) != 1 || k[0].FileName() != "ntoskrnl.exe" || k[0].PID != 0 {
		t.Errorf("kernel images: %v", k)
	}
	if ms := app.Methods(); len(ms) != 1 || ms[0].FullName() != "App.Program.Work" || ms[0].Size != 0x100 {
		t.Errorf("methods: %v", ms)
	}
	at := traceStart.Add(100 * time.Microsecond)
	for _, c := range []struct {
		addr         uint64
		module       string
		offset       uint64
		method, name string
	}{
		{appBase + 0x123, "app.exe", 0x123, "", "app.exe"},
		{ntdllBase + 0x1000, "ntdll.dll", 0x1000, "", "ntdll.dll"},
		{kernelBase + 0x42, "ntoskrnl.exe", 0x42, "", "ntoskrnl.exe"},
		{workStart + 0x10, "", 0, "App.Program.Work", "App.Program.Work"},
		{0x12345, "", 0, "", "?"},
	} {
		f := m.ResolveFrame(appPID, c.addr, at)
		method := ""
		if f.Method != nil {
			method = f.Method.FullName()
		}
		if f.Module() != c.module || f.Offset != c.offset || method != c.method || f.Name() != c.name {
			t.Errorf("%#x: module %q offset %#x method %q name %q", c.addr, f.Module(), f.Offset, method, f.Name())
		}
	}
	// The JIT-compiled method did not exist before its load.
	if f := m.ResolveFrame(appPID, workStart, traceStart); f.Method == nil {
		t.Error("a method is still found before it was loaded (the closest in time is taken)")
	}
}

func TestModelCountsAndGC(t *testing.T) {
	_, _, m := buildExample(t)
	var app, idle *analysis.Process
	for _, p := range m.Processes() {
		switch p.PID {
		case appPID:
			app = p
		case 0:
			idle = p
		}
	}
	// 5 CPU samples: 4 of thread 200, 1 of the idle thread.
	if app.CPUSamples != 4 || idle == nil || idle.CPUSamples != 1 {
		t.Errorf("samples: app %d, idle %v", app.CPUSamples, idle)
	}
	if !app.CLR || app.GC == nil {
		t.Fatal("no .NET statistics for the app")
	}
	g := app.GC
	if g.Count != 2 || len(g.GCs) != 2 {
		t.Fatalf("GCs: %+v", g)
	}
	if g.GCs[0].Pause != 130*time.Microsecond || g.GCs[1].Pause != 120*time.Microsecond {
		t.Errorf("pauses %v %v, want 130µs 120µs", g.GCs[0].Pause, g.GCs[1].Pause)
	}
	if g.PauseTotal != 250*time.Microsecond || g.PauseMax != 130*time.Microsecond {
		t.Errorf("total %v max %v", g.PauseTotal, g.PauseMax)
	}
	if g.GCs[0].Duration != 80*time.Microsecond || g.GCs[1].Number != 2 {
		t.Errorf("GC 1 duration %v, GC 2 number %d", g.GCs[0].Duration, g.GCs[1].Number)
	}
	if m.Unattributed != 0 {
		t.Errorf("%d events without a process", m.Unattributed)
	}
}

// annotations enriches every event of the example trace.
func annotations(t *testing.T, window int) (map[int64]analysis.Annotation, []*etl.Event, analysis.EnrichStats) {
	t.Helper()
	files, dec, m := buildExample(t)
	e := m.NewEnricher(&analysis.EnrichOptions{Window: window})
	r := etl.NewReader(files, nil)
	defer r.Close()
	out := map[int64]analysis.Annotation{}
	var evs []*etl.Event
	take := func() {
		for a, ok := e.Next(); ok; a, ok = e.Next() {
			c := *a
			c.Stack = append([]analysis.Frame(nil), a.Stack...)
			out[a.Seq] = c
		}
	}
	for r.Next() {
		ev := *r.Event()
		evs = append(evs, &ev)
		e.Push(r.Event(), dec.Decode(r.Event()))
		take()
	}
	e.Flush()
	take()
	return out, evs, e.Stats
}

func frameNames(s []analysis.Frame) string {
	var l []string
	for _, f := range s {
		l = append(l, f.Name())
	}
	return strings.Join(l, " < ")
}

func TestEnricherStacks(t *testing.T) {
	ann, evs, st := annotations(t, 0)
	if len(ann) != len(evs) {
		t.Fatalf("%d annotations for %d events", len(ann), len(evs))
	}
	base := evs[0].Time
	want := map[int]string{ // µs → stack, innermost first
		10:  "app.exe < ntdll.dll",
		20:  "ntoskrnl.exe < ntoskrnl.exe < app.exe < ntdll.dll",
		30:  "",
		40:  "app.exe < ntdll.dll",
		60:  "App.Program.Work < app.exe < ntdll.dll",
		500: "App.Program.Work < app.exe",
	}
	seen := 0
	for i, ev := range evs {
		us := int((ev.Time - base) / 10)
		a := ann[int64(i)]
		isSample := ev.ProviderID.String() == "ce1dbfb4-137e-4da6-87b0-3f59aa102cbc"
		if w, ok := want[us]; ok && (isSample || us == 500) {
			seen++
			if got := frameNames(a.Stack); got != w {
				t.Errorf("event at %d µs: stack %q, want %q", us, got, w)
			}
			if us != 30 && (a.PID != appPID || a.TID != appTID || a.Process == nil || a.Process.Name != "app") {
				t.Errorf("event at %d µs: pid %d tid %d process %v", us, a.PID, a.TID, a.Process)
			}
			if us == 30 && (a.PID != 0 || a.TID != 0) {
				t.Errorf("idle sample: pid %d tid %d", a.PID, a.TID)
			}
		}
	}
	if seen != len(want) {
		t.Errorf("checked %d events, want %d", seen, len(want))
	}
	if st.Orphans != 0 || st.Stacks != 6 {
		t.Errorf("stats %+v", st)
	}
	// A kernel frame resolves through the kernel's images, with its offset.
	for i, ev := range evs {
		if int((ev.Time-base)/10) == 20 && len(ann[int64(i)].Stack) == 4 {
			f := ann[int64(i)].Stack[1]
			if f.Address != kernelBase+0x2000 || f.Offset != 0x2000 || f.Image.Path != `\SystemRoot\system32\ntoskrnl.exe` {
				t.Errorf("kernel frame %+v", f)
			}
		}
	}
}

// TestEnricherWindow: with a window too small to reach back to the event,
// the user part logged two events later is lost and the sample keeps its
// kernel part.
func TestEnricherWindow(t *testing.T) {
	ann, evs, _ := annotations(t, 2)
	base := evs[0].Time
	for i, ev := range evs {
		if int((ev.Time-base)/10) == 20 && ev.Header == etl.HeaderPerfInfo64 && ev.HookID == 0x0F2E {
			if got := frameNames(ann[int64(i)].Stack); got != "ntoskrnl.exe < ntoskrnl.exe" {
				t.Errorf("stack %q, want the kernel part only", got)
			}
			return
		}
	}
	t.Fatal("no sample at 20 µs")
}

func TestCollectFoldedAndSpeedscope(t *testing.T) {
	files, dec, m := buildExample(t)
	prof, st, err := m.Collect(files, dec, nil)
	if err != nil {
		t.Fatal(err)
	}
	if st.Selected != 4 || st.WithStack != 4 || prof.Total != 4 || st.Resolved != st.Frames {
		t.Errorf("stats %+v, total %d", st, prof.Total)
	}
	var b bytes.Buffer
	if err := prof.WriteFolded(&b); err != nil {
		t.Fatal(err)
	}
	want := `app (100);ntdll.dll;app.exe 2
app (100);ntdll.dll;app.exe;App.Program.Work 1
app (100);ntdll.dll;app.exe;ntoskrnl.exe 1
`
	if b.String() != want {
		t.Errorf("folded:\n%s\nwant:\n%s", b.String(), want)
	}
	// EachStack gives the stacks of the folded lines, in their order.
	var each strings.Builder
	prof.EachStack(func(frames []string, w int64) { fmt.Fprintf(&each, "%s %d\n", strings.Join(frames, ";"), w) })
	if each.String() != want {
		t.Errorf("EachStack:\n%s\nwant:\n%s", each.String(), want)
	}
	b.Reset()
	if err := prof.WriteSpeedscope(&b, "example"); err != nil {
		t.Fatal(err)
	}
	checkSpeedscope(t, b.Bytes(), 4)

	// Other events: the runtime's allocation ticks, with their CLR stack.
	sel, err := analysis.MatchEvent("{e13c0d23-ccbc-4e12-931b-d9cc2eee27e4}/10")
	if err != nil {
		t.Fatal(err)
	}
	prof, st, _ = m.Collect(files, dec, &analysis.CollectOptions{Select: sel, NeedsSchema: true})
	b.Reset()
	prof.WriteFolded(&b)
	if b.String() != "app (100);app.exe;App.Program.Work 1\n" || st.Selected != 1 {
		t.Errorf("allocation ticks: %q %+v", b.String(), st)
	}
	// A pid filter that keeps nothing.
	prof, st, _ = m.Collect(files, dec, &analysis.CollectOptions{PIDs: []uint32{4}})
	if st.Selected != 0 || prof.Total != 0 || prof.Len() != 0 {
		t.Errorf("pid 4: %+v", st)
	}
}

// checkSpeedscope parses a speedscope file back and checks what its
// importer requires.
func checkSpeedscope(t *testing.T, data []byte, total int64) {
	t.Helper()
	var f struct {
		Schema string `json:"$schema"`
		Shared struct {
			Frames []struct {
				Name string `json:"name"`
			} `json:"frames"`
		} `json:"shared"`
		Profiles []struct {
			Type       string    `json:"type"`
			Name       string    `json:"name"`
			Unit       string    `json:"unit"`
			StartValue int64     `json:"startValue"`
			EndValue   int64     `json:"endValue"`
			Samples    [][]int   `json:"samples"`
			Weights    []float64 `json:"weights"`
		} `json:"profiles"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatalf("speedscope: %v", err)
	}
	if f.Schema != analysis.SpeedscopeSchema || len(f.Profiles) == 0 {
		t.Fatalf("speedscope: schema %q, %d profiles", f.Schema, len(f.Profiles))
	}
	var sum int64
	for _, p := range f.Profiles {
		if p.Type != "sampled" || p.Unit != "none" || len(p.Samples) != len(p.Weights) || p.StartValue != 0 {
			t.Errorf("profile %q: type %s unit %s, %d samples, %d weights", p.Name, p.Type, p.Unit, len(p.Samples), len(p.Weights))
		}
		var w int64
		for i, s := range p.Samples {
			for _, id := range s {
				if id < 0 || id >= len(f.Shared.Frames) {
					t.Fatalf("profile %q: frame index %d of %d", p.Name, id, len(f.Shared.Frames))
				}
			}
			if p.Weights[i] <= 0 {
				t.Errorf("profile %q: weight %v", p.Name, p.Weights[i])
			}
			w += int64(p.Weights[i])
		}
		if w != p.EndValue {
			t.Errorf("profile %q: weights %d, endValue %d", p.Name, w, p.EndValue)
		}
		sum += w
	}
	if sum != total {
		t.Errorf("speedscope weights add up to %d, want %d", sum, total)
	}
}

func TestEventProcessRules(t *testing.T) {
	files, dec, m := buildExample(t)
	r := etl.NewReader(files, nil)
	defer r.Close()
	n := 0
	for r.Next() {
		ev := r.Event()
		res := dec.Decode(ev)
		pid, tid, p := m.EventProcess(ev, res)
		if ev.HookID == 0x0303 && ev.ProcessID == appPID { // Process DCStart: the process it describes, no thread
			n++
			if pid != appPID || tid != analysis.NoID || p == nil || p.Name != "app" {
				t.Errorf("Process DCStart: %d %d %v", pid, tid, p)
			}
		}
		if ev.HookID == 0x1824 { // KeyRundown: user key → its process, kernel key → 0
			n++
			key, _ := res.Decoded.Uint("Key")
			if want := map[uint64]uint32{key1: appPID, key2: 0}[key]; pid != want {
				t.Errorf("key %#x: pid %d, want %d", key, pid, want)
			}
		}
	}
	if n != 3 {
		t.Errorf("checked %d events", n)
	}
}

func TestMatchEvent(t *testing.T) {
	for _, bad := range []string{"", "bad/", "/GC"} {
		if _, err := analysis.MatchEvent(bad); err == nil {
			t.Errorf("MatchEvent(%q): no error", bad)
		}
	}
	files, dec, _ := buildExample(t)
	count := func(spec string) int {
		f, err := analysis.MatchEvent(spec)
		if err != nil {
			t.Fatal(err)
		}
		r := etl.NewReader(files, nil)
		defer r.Close()
		n := 0
		for r.Next() {
			if f(r.Event(), dec.Decode(r.Event())) {
				n++
			}
		}
		return n
	}
	for spec, want := range map[string]int{
		"MSNT_SystemTrace/SampleProf":             5,
		"msnt_systemtrace/perfinfo/sampleprof":    5,
		"Microsoft-Windows-DotNETRuntime/GCStart": 4,
		"GCStart": 4,
		"{e13c0d23-ccbc-4e12-931b-d9cc2eee27e4}/1":        4,
		"Microsoft-Windows-DotNETRuntime/NoSuchEvent":     0,
		"MSNT_SystemTrace/StackWalk/KeyRundown":           2,
		"{ce1dbfb4-137e-4da6-87b0-3f59aa102cbc}/46":       0, // kernel events have no event id
		"{ce1dbfb4-137e-4da6-87b0-3f59aa102cbc}/PerfInfo": 5,
	} {
		if got := count(spec); got != want {
			t.Errorf("%s: %d events, want %d", spec, got, want)
		}
	}
}

// TestEachSelected: the selected events come out once each, in push
// order, with the stacks Collect aggregates; Observe sees every event
// first; PIDs filter before Select; Decode adds decodings; an error from
// the callback stops the walk.
func TestEachSelected(t *testing.T) {
	files, dec, m := buildExample(t)
	var seqs []int64
	observed, decoded := 0, 0
	opts := &analysis.CollectOptions{Observe: func(ev *etl.Event, res *decode.Result) {
		observed++
		if res != nil {
			decoded++
		}
	}}
	st, err := m.EachSelected(files, dec, opts, func(a *analysis.Annotation) error {
		if a.Process == nil || a.PID != appPID || len(a.Stack) == 0 {
			t.Errorf("event %d: pid %d, process %v, %d frames", a.Seq, a.PID, a.Process, len(a.Stack))
		}
		if observed <= int(a.Seq) {
			t.Errorf("event %d handed out after %d events observed", a.Seq, observed)
		}
		seqs = append(seqs, a.Seq)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []int64{10, 12, 16, 19}; !slices.Equal(seqs, want) {
		t.Errorf("selected %v, want %v", seqs, want)
	}
	if observed != st.Events || observed != 39 || st.WithStack != 5 {
		t.Errorf("observed %d, stats %+v", observed, st)
	}
	if decoded == 0 || decoded == observed {
		t.Errorf("%d of %d events decoded without NeedsSchema", decoded, observed)
	}

	// Decode every event; Select sees the results.
	observed, decoded = 0, 0
	opts.Decode = func(*etl.Event) bool { return true }
	withRes := 0
	opts.Select = func(ev *etl.Event, res *decode.Result) bool {
		if res != nil {
			withRes++
		}
		return false
	}
	if _, err := m.EachSelected(files, dec, opts, func(a *analysis.Annotation) error {
		t.Errorf("event %d selected", a.Seq)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if decoded != observed || withRes != observed {
		t.Errorf("Decode: %d events observed, %d decoded, %d selected with a result", observed, decoded, withRes)
	}

	// PIDs filter before Select: the System process has no event Select
	// would see among the app's.
	calls := 0
	opts = &analysis.CollectOptions{PIDs: []uint32{4}, Select: func(*etl.Event, *decode.Result) bool { calls++; return true }}
	var pids []uint32
	if _, err := m.EachSelected(files, dec, opts, func(a *analysis.Annotation) error {
		pids = append(pids, a.PID)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if calls == 0 || calls != len(pids) || calls >= observed {
		t.Errorf("pid 4: Select called %d times, %d events selected of %d", calls, len(pids), observed)
	}
	for _, pid := range pids {
		if pid != 4 {
			t.Errorf("pid 4 filter let pid %d through", pid)
		}
	}

	// The callback's error stops the walk.
	stop := errors.New("stop")
	n := 0
	_, err = m.EachSelected(files, dec, nil, func(a *analysis.Annotation) error {
		n++
		return stop
	})
	if err != stop || n != 1 {
		t.Errorf("stop: err %v after %d calls", err, n)
	}
}
