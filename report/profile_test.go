package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/etwkit/etw/analysis"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
)

// TestCorpusNetProfileFolded: the report's profile of net.4.5.2.x64,
// written folded, is line for line what `tracerpt-go stacks` writes
// (Model.Collect's profile), and its whole-trace tree is the flame
// graph's before pruning (same processes, same totals).
func TestCorpusNetProfileFolded(t *testing.T) {
	d, _ := corpusReport(t, netRel)
	f, err := etl.Open(corpusFile(t, netRel))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	files, dec := []*etl.File{f}, decode.New()
	m, err := analysis.Build(files, dec, nil)
	if err != nil {
		t.Fatal(err)
	}
	prof, _, err := m.Collect(files, dec, nil)
	if err != nil {
		t.Fatal(err)
	}
	var want, got bytes.Buffer
	if err := prof.WriteFolded(&want); err != nil {
		t.Fatal(err)
	}
	tr := d.CPU.Profile
	if err := tr.WriteFolded(&got); err != nil {
		t.Fatal(err)
	}
	wl, gl := strings.Split(want.String(), "\n"), strings.Split(got.String(), "\n")
	if len(wl) < 100 || len(gl) != len(wl) {
		t.Fatalf("%d lines from the report's tree, %d from stacks", len(gl), len(wl))
	}
	for i := range wl {
		if gl[i] != wl[i] {
			t.Fatalf("line %d: report %q, stacks %q", i+1, gl[i], wl[i])
		}
	}
	incl := tr.Inclusive(0, tr.Buckets)
	byRoot := map[string]int64{}
	for n, p := range tr.Parent {
		if p < 0 {
			byRoot[tr.Frames[tr.Frame[n]]] += incl[n]
		}
	}
	for _, p := range d.CPU.Root.Children {
		if byRoot[p.Name] != p.Value {
			t.Errorf("%s: tree %d, flame graph %d", p.Name, byRoot[p.Name], p.Value)
		}
	}
	if tr.Total != d.CPU.Samples || len(byRoot) != len(d.CPU.Root.Children) {
		t.Errorf("tree: %d samples in %d processes; flame graph %d in %d", tr.Total, len(byRoot), d.CPU.Samples, len(d.CPU.Root.Children))
	}
	// The JSON keys the page and programs read.
	b, err := json.Marshal(d.CPU)
	if err != nil {
		t.Fatal(err)
	}
	var keys struct {
		Profile map[string]json.RawMessage `json:"profile"`
	}
	json.Unmarshal(b, &keys)
	for _, k := range []string{"bucket_sec", "buckets", "total", "frames", "parent", "frame", "samples"} {
		if keys.Profile[k] == nil {
			t.Errorf("cpu.profile has no %q", k)
		}
	}
	if tr.BucketSec != d.Timeline.BucketSec || tr.Buckets != d.Timeline.Buckets {
		t.Errorf("profile buckets %d of %g s, timeline %d of %g s", tr.Buckets, tr.BucketSec, d.Timeline.Buckets, d.Timeline.BucketSec)
	}
}

// rangeTotals is what the page's etwProfile.totals() gives.
type rangeTotals struct {
	B0, B1    int
	Total     int64
	Processes map[string]int64
}

// checkProfile checks the CPU section's views against the library, in
// the browser: the flame graph the page builds for the whole trace is
// the Go side's (same frames, names and totals); the call tree, fully
// expanded, has the folded lines' inclusive and exclusive totals; the
// callers and callees of the heaviest function add up as the tree says;
// selecting a range on the timeline (a drag, with the mouse) makes the
// flame graph, call tree and processes table show the samples of the
// buckets the range overlaps, as StackTree counts them, and announces
// the range with an etw:range event; "Reset zoom" returns to the whole
// trace.
func checkProfile(t *testing.T, p *tab, d *Data) {
	t.Helper()
	if d.CPU == nil || d.Timeline == nil {
		return
	}
	tr := d.CPU.Profile
	settle := `new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))`
	if err := p.eval(`location.hash = '#cpu'; `+settle, nil); err != nil {
		t.Fatal(err)
	}
	// The flame graph: the Go side's tree.
	var flame FlameNode
	if err := p.eval(`etwProfile.flame()`, &flame); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(&flame, d.CPU.Root) {
		a, _ := json.Marshal(&flame)
		b, _ := json.Marshal(d.CPU.Root)
		t.Errorf("the page's flame graph differs from the report's:\npage %.300s\n  go %.300s", a, b)
	}
	// Folded lines and the call tree's rows.
	var folded bytes.Buffer
	tr.WriteFolded(&folded)
	want := strings.Split(strings.TrimSuffix(folded.String(), "\n"), "\n")
	var lines []string
	if err := p.eval(`etwProfile.folded()`, &lines); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(lines, want) {
		t.Errorf("the page's call tree folded: %d lines, %d from the library (first %q)", len(lines), len(want), lines[:min(1, len(lines))])
	}
	inclPath, exclPath := map[string]int64{}, map[string]int64{}
	for _, l := range want {
		sp := strings.LastIndexByte(l, ' ')
		n, _ := strconv.ParseInt(l[sp+1:], 10, 64)
		path := l[:sp]
		exclPath[path] += n
		for {
			inclPath[path] += n
			i := strings.LastIndexByte(path, ';')
			if i < 0 {
				break
			}
			path = path[:i]
		}
	}
	var rows [][3]int64 // node, inclusive, exclusive as the table shows them
	if err := p.eval(`etwProfile.expandAll(); Array.from(document.querySelectorAll('#calltree tbody tr'), r => [+r.dataset.node, +r.cells[1].dataset.v, +r.cells[4].dataset.v])`, &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(inclPath) {
		t.Errorf("call tree expanded: %d rows, %d distinct stack prefixes folded", len(rows), len(inclPath))
	}
	for _, r := range rows {
		path := strings.Join(tr.Path(int(r[0])), ";")
		if r[1] != inclPath[path] || r[2] != exclPath[path] {
			t.Errorf("call tree row %q: inclusive %d exclusive %d, folded %d and %d", path, r[1], r[2], inclPath[path], exclPath[path])
		}
	}
	p.eval(`document.getElementById('tree-collapse').click()`, nil)
	checkButterfly(t, p, tr)

	// A range, dragged on the timeline, with the flame graph zoomed into
	// its heaviest process, which it stays zoomed into when the range
	// holds samples of it.
	heaviest := d.CPU.Root.Children[0].Name
	p.eval(`(() => { const s = document.getElementById('flame-proc'); s.value = '0'; s.dispatchEvent(new Event('change')); })()`, nil)
	if err := p.eval(`window.etwRanges = []; document.addEventListener('etw:range', e => etwRanges.push([e.detail.from, e.detail.to === Infinity ? -1 : e.detail.to])); location.hash = '#timeline'; `+settle, nil); err != nil {
		t.Fatal(err)
	}
	var r struct{ X, Y, W, H float64 }
	if err := p.eval(`(() => { const b = document.querySelector('svg[data-chart=timeline] rect.frame').getBoundingClientRect(); return {X: b.left, Y: b.top, W: b.width, H: b.height}; })()`, &r); err != nil {
		t.Fatal(err)
	}
	for _, ev := range []struct {
		typ string
		x   float64
	}{{"mousePressed", 0.3}, {"mouseMoved", 0.4}, {"mouseReleased", 0.55}} {
		if err := p.call("Input.dispatchMouseEvent", map[string]any{"type": ev.typ, "x": r.X + r.W*ev.x, "y": r.Y + r.H/2, "button": "left", "clickCount": 1}, nil); err != nil {
			t.Fatal(err)
		}
	}
	p.eval(settle, nil)
	var ranges [][2]float64
	p.eval(`etwRanges`, &ranges)
	if len(ranges) != 1 || ranges[0][1] <= ranges[0][0] {
		t.Fatalf("etw:range events after a drag: %v", ranges)
	}
	from, to := ranges[0][0], ranges[0][1]
	var dur float64 // the chart's span: whole buckets
	if err := p.eval(`+document.querySelector('svg[data-chart=timeline]').dataset.dur`, &dur); err != nil {
		t.Fatal(err)
	}
	if math.Abs(from-0.3*dur) > dur*0.01 || math.Abs(to-0.55*dur) > dur*0.01 {
		t.Errorf("drag from 30 %% to 55 %% of %g s: range %g..%g", dur, from, to)
	}
	got := pageTotals(t, p)
	w := tr.BucketSec
	if got.B0 != int(math.Floor(from/w+1e-9)) || got.B1 != min(tr.Buckets, int(math.Ceil(to/w-1e-9))) {
		t.Errorf("range %g..%g s: buckets [%d, %d) of %g s", from, to, got.B0, got.B1, w)
	}
	checkRange(t, p, d, got)
	checkOtherViews(t, p, d, from, to, got)
	checkRangeTables(t, p, d, from, to)
	var info, title string
	p.eval(`document.getElementById('flame-info').textContent`, &info)
	// Drawn for the range when its tab shows.
	if err := p.eval(`location.hash = '#cpu'; `+settle, nil); err != nil {
		t.Fatal(err)
	}
	p.eval(settle, nil) // the observer draws in the frame after the resize
	p.eval(`(() => { const g = document.querySelector('#flame g[data-i="0"] title'); return g ? g.textContent : ''; })()`, &title)
	if want := "all\n" + thousands(got.Total) + " samples"; got.Total > 0 && !strings.HasPrefix(title, want) {
		t.Errorf("the flame graph drawn for the range: first frame %q, want %q…", title, want)
	}
	if got.Processes[heaviest] > 0 && !strings.HasPrefix(info, heaviest+": ") || got.Processes[heaviest] == 0 && !strings.HasPrefix(info, "all processes: ") {
		t.Errorf("flame graph zoomed into %s (%d samples in the range) shows %q", heaviest, got.Processes[heaviest], info)
	}
	if got.Total == tr.Total && tr.Total > 0 {
		t.Logf("the range holds every sample (%d): a weak check", got.Total)
	}
	// Reset: the whole trace.
	p.eval(`document.querySelector('[data-zoom=reset]').click(); `+settle, nil)
	ranges = nil
	p.eval(`etwRanges`, &ranges)
	if len(ranges) != 2 || ranges[1] != [2]float64{0, -1} {
		t.Errorf("etw:range events after the reset: %v, want the last {from: 0, to: Infinity}", ranges)
	}
	got = pageTotals(t, p)
	if got.B0 != 0 || got.B1 != tr.Buckets || got.Total != d.CPU.Samples {
		t.Errorf("after the reset: buckets [%d, %d), %d samples; want [0, %d), %d", got.B0, got.B1, got.Total, tr.Buckets, d.CPU.Samples)
	}
	checkRange(t, p, d, got)
	checkOtherViews(t, p, d, 0, math.Inf(1), got)
	checkRangeTables(t, p, d, 0, math.Inf(1))
	p.checkConsole(t)
}

// checkOtherViews checks the .NET table's GCs (the GCs that start in
// [from, to), or the table as written for the whole trace) and the I/O
// totals of the range (the buckets [got.B0, got.B1)).
func checkOtherViews(t *testing.T, p *tab, d *Data, from, to float64, got rangeTotals) {
	t.Helper()
	whole := from <= 0 && math.IsInf(to, 1)
	if dn := d.DotNet; dn != nil && len(dn.GCs) > 0 {
		want := map[uint32]int{}
		for _, g := range dn.GCs {
			if g.T >= from && g.T < to {
				want[g.PID]++
			}
		}
		if whole {
			clear(want)
			for _, dp := range dn.Processes {
				want[dp.PID] = dp.GCs
			}
		}
		var rows [][2]float64 // pid, GCs
		if err := p.eval(`Array.from(document.querySelectorAll('#dotnet-table tbody tr'), r => [+r.dataset.pid, +r.cells[2].textContent.replace(/,/g, '')])`, &rows); err != nil {
			t.Fatal(err)
		}
		t.Logf("range %g..%g: GCs by pid %v", from, to, want)
		for _, r := range rows {
			if int(r[1]) != want[uint32(r[0])] {
				t.Errorf("range %g..%g: .NET process %g shows %g GCs, want %d", from, to, r[0], r[1], want[uint32(r[0])])
			}
		}
	}
	if d.IO == nil {
		return
	}
	for _, k := range []struct {
		kind    string
		buckets []IOBucket
		total   *IOSummary
	}{{"disk", d.IO.DiskBuckets, d.IO.Disk}, {"file", d.IO.FileBuckets, d.IO.File}} {
		if k.total == nil {
			continue
		}
		var reads, all uint64
		for _, b := range k.buckets {
			if b[0] >= uint64(got.B0) && b[0] < uint64(got.B1) {
				reads += b[1]
			}
			all += b[1]
		}
		if all != uint64(k.total.Total.Reads) {
			t.Errorf("%s I/O: the buckets hold %d reads, the total %d", k.kind, all, k.total.Total.Reads)
		}
		var shown string
		if err := p.eval(`document.querySelector('.io-range[data-kind=`+k.kind+`]').getAttribute('data-reads') || ''`, &shown); err != nil {
			t.Fatal(err)
		}
		t.Logf("range %g..%g: %s reads %s of %d", from, to, k.kind, shown, all)
		if want := fmt.Sprint(reads); !whole && shown != want || whole && shown != "" {
			t.Errorf("range %g..%g: %s I/O reads %q, want %d", from, to, k.kind, shown, reads)
		}
	}
}

func pageTotals(t *testing.T, p *tab) rangeTotals {
	t.Helper()
	var got rangeTotals
	if err := p.eval(`etwProfile.totals()`, &got); err != nil {
		t.Fatal(err)
	}
	return got
}

// checkRange checks the page's figures for buckets [got.B0, got.B1)
// against the library's: the totals, the flame graph's root and
// processes, the processes table's CPU samples.
func checkRange(t *testing.T, p *tab, d *Data, got rangeTotals) {
	t.Helper()
	tr := d.CPU.Profile
	incl := tr.Inclusive(got.B0, got.B1)
	want := map[string]int64{}
	var total int64
	for n, par := range tr.Parent {
		if par < 0 {
			want[tr.Frames[tr.Frame[n]]] += incl[n]
			total += incl[n]
		}
	}
	if got.Total != total {
		t.Errorf("buckets [%d, %d): the page counts %d samples, the library %d", got.B0, got.B1, got.Total, total)
	}
	for name, v := range want {
		if got.Processes[name] != v {
			t.Errorf("buckets [%d, %d), %s: page %d, library %d", got.B0, got.B1, name, got.Processes[name], v)
		}
	}
	var flame struct {
		Samples  string
		Root     int64
		Children map[string]int64
	}
	if err := p.eval(`(() => { const f = etwProfile.flame(); return {Samples: document.getElementById('flame').dataset.samples, Root: f.value, Children: Object.fromEntries((f.children || []).map(c => [c.name, c.value]))}; })()`, &flame); err != nil {
		t.Fatal(err)
	}
	if flame.Samples != fmt.Sprint(total) || flame.Root != total {
		t.Errorf("flame graph: %s samples, root %d; library %d", flame.Samples, flame.Root, total)
	}
	for name, v := range want {
		if v > 0 && flame.Children[name] != v {
			t.Errorf("flame graph, %s: %d, library %d", name, flame.Children[name], v)
		}
	}
	if d.Processes == nil {
		return
	}
	var cells []struct {
		Root, Text string
		V          int64
	}
	if err := p.eval(`(() => { const t = document.getElementById('proc-table'); const c = Array.from(t.tHead.rows[0].cells).findIndex(h => h.textContent === 'CPU samples');
		return Array.from(t.tBodies[0].rows, r => ({Root: r.dataset.root, V: +r.cells[c].dataset.v, Text: r.cells[c].textContent})); })()`, &cells); err != nil {
		t.Fatal(err)
	}
	var ivMS float64
	if err := p.eval(`parseFloat(document.getElementById('flame').dataset.intervalMs || '0')`, &ivMS); err != nil {
		t.Fatal(err)
	}
	var sum int64
	for _, c := range cells {
		if c.V != want[c.Root] {
			t.Errorf("processes table, %s: %d CPU samples, library %d", c.Root, c.V, want[c.Root])
		}
		// The samples with their share of the range's (to 0.1 %) and their
		// time.
		parts := strings.Split(c.Text, " · ")
		ok := parts[0] == thousands(c.V)
		if total > 0 {
			pc, err := strconv.ParseFloat(strings.TrimSuffix(parts[min(1, len(parts)-1)], " %"), 64)
			ok = ok && len(parts) > 1 && err == nil && math.Abs(pc-100*float64(c.V)/float64(total)) <= 0.05+1e-9
		}
		if ivMS > 0 {
			ok = ok && parts[len(parts)-1] == thousands(int64(math.Round(float64(c.V)*ivMS)))+" ms"
		}
		if !ok {
			t.Errorf("processes table, %s: %q for %d of %d samples at %v ms", c.Root, c.Text, c.V, total, ivMS)
		}
		sum += c.V
	}
	if len(cells) != len(d.Processes.List) {
		t.Errorf("processes table: %d rows, %d processes", len(cells), len(d.Processes.List))
	}
	t.Logf("buckets [%d, %d): %d samples, %d in the processes table", got.B0, got.B1, total, sum)
}

// checkButterfly checks the callers and callees of the function with the
// most exclusive samples (not a process) against the tree: its
// inclusive samples (outermost frames only) are its callers' sum.
func checkButterfly(t *testing.T, p *tab, tr *analysis.StackTree) {
	t.Helper()
	excl := tr.Exclusive(0, tr.Buckets)
	incl := tr.Inclusive(0, tr.Buckets)
	byFrame := make([]int64, len(tr.Frames))
	for n, v := range excl {
		if tr.Parent[n] >= 0 {
			byFrame[tr.Frame[n]] += v
		}
	}
	f := 0
	for i, v := range byFrame {
		if v > byFrame[f] {
			f = i
		}
	}
	if byFrame[f] == 0 {
		return
	}
	var inclusive int64
	callers, callees := map[string]int64{}, map[string]int64{}
	for n := range tr.Parent {
		if int(tr.Frame[n]) != f {
			continue
		}
		outer := true
		for a := tr.Parent[n]; a >= 0; a = tr.Parent[a] {
			if int(tr.Frame[a]) == f {
				outer = false
			}
		}
		if !outer {
			continue
		}
		inclusive += incl[n]
		caller := ""
		if pa := tr.Parent[n]; pa >= 0 {
			caller = tr.Frames[tr.Frame[pa]]
		}
		callers[caller] += incl[n]
		for c, pa := range tr.Parent {
			if int(pa) == n && incl[c] > 0 {
				callees[tr.Frames[tr.Frame[c]]] += incl[c]
			}
		}
	}
	var got struct {
		Inclusive, Exclusive int64
		Callers, Callees     map[string]int64
	}
	if err := p.eval(fmt.Sprintf(`etwProfile.butterfly(%q)`, tr.Frames[f]), &got); err != nil {
		t.Fatal(err)
	}
	if got.Inclusive != inclusive || got.Exclusive != byFrame[f] || !sameCounts(got.Callers, callers) || !sameCounts(got.Callees, callees) {
		t.Errorf("callers and callees of %q: page %+v; library inclusive %d exclusive %d callers %v callees %v", tr.Frames[f], got, inclusive, byFrame[f], callers, callees)
	}
	var shown int
	p.eval(`document.querySelectorAll('#butterfly table.bf tbody tr[data-frame]').length`, &shown)
	if shown != len(callers)+len(callees) {
		t.Errorf("callers and callees of %q: %d rows shown, want %d", tr.Frames[f], shown, len(callers)+len(callees))
	}
}

func sameCounts(a, b map[string]int64) bool {
	return reflect.DeepEqual(a, b) || len(a) == 0 && len(b) == 0
}

// TestBoundTriples: a profile over its bound of triples gets coarser
// buckets, with the same stacks and weights.
func TestBoundTriples(t *testing.T) {
	d, _ := corpusReport(t, netRel)
	tr := d.CPU.Profile
	if tr.Triples() > maxProfileTriples || tr.BucketSec != d.Timeline.BucketSec {
		t.Fatalf("net.4.5.2.x64: %d triples, buckets of %g s", tr.Triples(), tr.BucketSec)
	}
	limit := tr.Triples() / 3
	b := boundTriples(tr, limit)
	if b.Triples() > limit || b.Buckets >= tr.Buckets || b.BucketSec <= tr.BucketSec {
		t.Errorf("bound %d: %d triples in %d buckets of %g s (from %d in %d)", limit, b.Triples(), b.Buckets, b.BucketSec, tr.Triples(), tr.Buckets)
	}
	if !slices.Equal(b.Inclusive(0, b.Buckets), tr.Inclusive(0, tr.Buckets)) {
		t.Error("coarser buckets changed the totals")
	}
	if one := boundTriples(tr, 0); one.Buckets != 1 || !slices.Equal(one.Exclusive(0, 1), tr.Exclusive(0, tr.Buckets)) {
		t.Errorf("bound 0: %d buckets", one.Buckets)
	}
	t.Logf("%d triples in %d buckets; bound %d: %d in %d", tr.Triples(), tr.Buckets, limit, b.Triples(), b.Buckets)
}
