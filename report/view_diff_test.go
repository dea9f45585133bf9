package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/etwkit/etw/analysis"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
)

// diffReport builds the report of the corpus file after compared with
// the corpus file before.
func diffReport(t testing.TB, before, after string) *Data {
	t.Helper()
	open := func(rel string) *etl.File {
		f, err := etl.Open(corpusFile(t, rel))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	b, a := open(before), open(after)
	d, err := BuildDiff([]*etl.File{a}, decode.New(), &Options{Names: []string{filepath.Base(after)}},
		&Baseline{Files: []*etl.File{b}, Decoder: decode.New(), Names: []string{filepath.Base(before)}})
	if err != nil {
		t.Fatalf("BuildDiff: %v", err)
	}
	return d
}

// checkDiffNode checks that every frame holds at least its children's
// samples, before and after.
func checkDiffNode(t *testing.T, n *analysis.DiffNode, same bool) {
	t.Helper()
	var b, a int64
	for _, c := range n.Children {
		b, a = b+c.Before, a+c.After
		checkDiffNode(t, c, same)
	}
	if b > n.Before || a > n.After || same && n.Before != n.After {
		t.Errorf("%s: %d/%d, children %d/%d", n.Name, n.Before, n.After, b, a)
	}
}

// TestCorpusDiffSelf: net.4.5.2.x64 against itself: no process changed,
// every frame has the same samples before and after, the totals are the
// CPU section's, and the rest of the report is the plain report's.
func TestCorpusDiffSelf(t *testing.T) {
	d := diffReport(t, netRel, netRel)
	df := d.Diff
	if df == nil || len(df.Processes) == 0 {
		t.Fatal("no diff")
	}
	for _, p := range df.Processes {
		if p.Delta != (analysis.ProcessTotals{}) || p.Before != p.After {
			t.Errorf("%s changed: %+v", p.Name, p)
		}
	}
	if df.Before != df.After || df.IntervalsDiffer || df.After.CPUSamples != d.CPU.Samples || df.Flame.After != d.CPU.Samples {
		t.Errorf("before %+v after %+v, flame %d, CPU %d", df.Before, df.After, df.Flame.After, d.CPU.Samples)
	}
	checkDiffNode(t, df.Flame, true)
	for _, f := range df.TopFrames {
		if f.Before != f.After || f.SelfBefore != f.SelfAfter {
			t.Errorf("frame %+v", f)
		}
	}
	plain, _ := corpusReport(t, netRel)
	d.Diff = nil
	x, _ := json.Marshal(plain)
	y, _ := json.Marshal(d)
	if !bytes.Equal(x, y) {
		t.Error("the compared report's data differs from the plain report's")
	}
}

// TestCorpusDiffTwo: the kernel shutdown trace as the baseline of
// net.4.5.2.x64 (the corpus has no two traces of one program): the
// changes add up to the difference of each report's own totals.
func TestCorpusDiffTwo(t *testing.T) {
	d := diffReport(t, shutdownRel, netRel)
	before, _ := corpusReport(t, shutdownRel)
	after, _ := corpusReport(t, netRel)
	df := d.Diff
	cpu := func(d *Data) (n int64) {
		for _, p := range d.Processes.List {
			n += int64(p.CPUSamples)
		}
		return n
	}
	io := func(d *Data) (disk, file int64) {
		if d.IO == nil {
			return 0, 0
		}
		if s := d.IO.Disk; s != nil {
			disk = int64(s.Total.ReadBytes + s.Total.WriteBytes)
		}
		if s := d.IO.File; s != nil {
			file = int64(s.Total.ReadBytes + s.Total.WriteBytes)
		}
		return disk, file
	}
	var sum analysis.ProcessTotals
	for _, p := range df.Processes {
		sum.CPUSamples += p.Delta.CPUSamples
		sum.DiskBytes += p.Delta.DiskBytes
		sum.FileBytes += p.Delta.FileBytes
		sum.Processes += p.Delta.Processes
	}
	bd, bf := io(before)
	ad, af := io(after)
	if sum.CPUSamples != cpu(after)-cpu(before) || sum.DiskBytes != ad-bd || sum.FileBytes != af-bf ||
		sum.Processes != len(after.Processes.List)-len(before.Processes.List) {
		t.Errorf("changes %+v; reports: CPU %d−%d, disk %d−%d, file %d−%d, processes %d−%d", sum, cpu(after), cpu(before),
			ad, bd, af, bf, len(after.Processes.List), len(before.Processes.List))
	}
	var bcpu int64
	if before.CPU != nil {
		bcpu = before.CPU.Samples
	}
	if df.Flame.Before != bcpu || df.Flame.After != after.CPU.Samples || df.Before.Title != before.Title || df.After.Title != after.Title {
		t.Errorf("flame %d/%d, CPU sections %d/%d; titles %q %q", df.Flame.Before, df.Flame.After, bcpu, after.CPU.Samples, df.Before.Title, df.After.Title)
	}
	checkDiffNode(t, df.Flame, false)
	// The page and the JSON have the comparison; its tab comes first.
	var h bytes.Buffer
	if err := d.WriteHTML(&h); err != nil {
		t.Fatal(err)
	}
	page := h.String()
	if !strings.Contains(page, `data-tab="diff"`) || strings.Index(page, `id="diff"`) > strings.Index(page, `id="overview"`) ||
		!strings.Contains(page, `data-chart="diff-flame"`) || strings.Contains(page, `data-chart="diff-flame-before"`) {
		t.Error("the page's diff section is missing, not first, or draws an empty baseline")
	}
	j, _ := json.Marshal(d)
	var back struct {
		Diff *Diff `json:"diff"`
	}
	if err := json.Unmarshal(j, &back); err != nil || back.Diff == nil || len(back.Diff.Processes) != len(df.Processes) {
		t.Errorf("JSON diff: %v", err)
	}
}

// TestDiffColor: red grows, blue shrinks, grey stays.
func TestDiffColor(t *testing.T) {
	if c := diffColor(0, 10); c != "rgb(225,225,225)" {
		t.Error(c)
	}
	if c := diffColor(10, 10); c != "rgb(255,35,35)" {
		t.Error(c)
	}
	if c := diffColor(-5, 10); c != "rgb(135,135,255)" {
		t.Error(c)
	}
}

// TestBrowserDiff opens the compared report in headless Chromium: no
// console error, the diff tab first and drawn, with the usual checks of
// every tab.
func TestBrowserDiff(t *testing.T) {
	d := diffReport(t, shutdownRel, netRel)
	c := startBrowser(t)
	p := openPage(t, c)
	var page bytes.Buffer
	if err := d.WriteHTML(&page); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path, first := filepath.Join(dir, "diff.html"), filepath.Join(dir, "first.html")
	for _, f := range []string{path, first} {
		if err := os.WriteFile(f, page.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	browserCheck(t, p, path, browserCase{name: "diff", sections: []string{"diff", "overview", "cpuutil", "timeline", "processes", "cpu", "dotnet", "io", "providers", "events"}}, d)
	// Opened without a fragment, as a person opens it: on the diff tab.
	p.load(t, first, "")
	st := p.selfTest(t)
	if !slices.Equal(st.Visible, []string{"diff"}) {
		t.Errorf("the page opens on %v", st.Visible)
	}
	drawn := false
	for _, ch := range st.Charts {
		if ch.Chart == "diff-flame" {
			drawn = ch.W > 0 && ch.H > 0 && ch.Marks > 100
		}
	}
	if !drawn {
		t.Errorf("the differential flame graph is not drawn: %+v", st.Charts)
	}
	var red int
	if err := p.eval(`document.querySelectorAll('svg[data-chart=diff-flame] rect[fill^="rgb(255,"]').length`, &red); err != nil {
		t.Fatal(err)
	}
	if red == 0 {
		t.Error("no frame drawn as grown")
	}
	p.checkConsole(t)
	if *screenshotDir != "" {
		// Tall enough for the table and the top of the flame graph.
		if err := p.call("Emulation.setDeviceMetricsOverride", map[string]any{"width": 1280, "height": 1500, "deviceScaleFactor": 1, "mobile": false}, nil); err != nil {
			t.Fatal(err)
		}
		writeDocScreenshot(t, filepath.Join(*screenshotDir, "report-diff.png"), p.screenshot(t))
	}
}

// TestDiffFlameIntervals: traces sampled at different intervals are
// coloured by the change of CPU time, not of samples; with an interval
// unknown, by the change of samples.
func TestDiffFlameIntervals(t *testing.T) {
	root := func() *analysis.DiffNode {
		return &analysis.DiffNode{Name: "all", Before: 20, After: 30, Children: []*analysis.DiffNode{
			{Name: "same-time", Before: 10, After: 20}, // 10 ms before, 20 × 0.5 ms after
			{Name: "same-samples", Before: 10, After: 10},
		}}
	}
	fill := func(svg, name string) string {
		i := strings.Index(svg, "<title>"+name+"\n")
		if i < 0 {
			t.Fatalf("no frame %s in %s", name, svg)
		}
		rest := svg[i:]
		j := strings.Index(rest, `fill="`)
		rest = rest[j+6:]
		return rest[:strings.IndexByte(rest, '"')]
	}
	df := &Diff{Before: DiffTrace{IntervalMS: 1}, After: DiffTrace{IntervalMS: 0.5}, Flame: root()}
	svg := string(diffFlameSVG("x", df, false))
	if f := fill(svg, "same-time"); f != "rgb(225,225,225)" {
		t.Errorf("same CPU time drawn %s", f)
	}
	if f := fill(svg, "same-samples"); !strings.HasSuffix(f, ",255)") || f == "rgb(255,255,255)" {
		t.Errorf("less CPU time drawn %s, want blue", f)
	}
	if !strings.Contains(svg, "change: 0 samples (−5.00 ms)") {
		t.Errorf("tooltip without the change in ms: %s", svg)
	}
	df = &Diff{After: DiffTrace{IntervalMS: 0.5}, Flame: root()}
	svg = string(diffFlameSVG("x", df, false))
	if f := fill(svg, "same-time"); !strings.HasPrefix(f, "rgb(255,") {
		t.Errorf("more samples drawn %s, want red", f)
	}
	if f := fill(svg, "same-samples"); f != "rgb(225,225,225)" {
		t.Errorf("same samples drawn %s", f)
	}
}
