package report

import (
	"errors"
	"fmt"
	"html/template"
	"strings"

	"github.com/etwkit/etw/analysis"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
)

// Baseline is the trace a report compares with ([BuildDiff]).
type Baseline struct {
	Files []*etl.File
	// Decoder decodes the baseline's events: a decoder of its own, since
	// a decoder registers the schemas its trace carries.
	Decoder *decode.Decoder
	// Names are the files' names as the report shows them (default: each
	// file's Name).
	Names []string
}

// Diff compares the report's trace ("after") with a baseline ("before"):
// processes matched by image name (pids differ between traces), the CPU
// stacks paired by their frames under the image name
// ([analysis.DiffProfiles]). Nothing is normalised: weights are samples
// as each trace counts them, and the sampling intervals are given to
// weigh them in ms.
type Diff struct {
	Before DiffTrace `json:"before"`
	After  DiffTrace `json:"after"`
	// IntervalsDiffer is set when both traces have CPU samples and sample
	// at different intervals (or one logs no interval): their sample
	// counts then do not compare as they are.
	IntervalsDiffer bool `json:"intervals_differ"`
	// Processes are the image names of either trace with their totals
	// before and after and the change, the largest change of CPU samples
	// first.
	Processes []analysis.ProcessDelta `json:"processes"`
	// Flame is the differential flame graph: the non-idle CPU stacks, the
	// root's children the image names, each frame with its samples
	// before and after. Frames holding less than MinFraction of the
	// larger of the two totals are left out (their samples stay in their
	// parent): Kept of Frames frames are kept.
	Flame       *analysis.DiffNode `json:"flame"`
	MinFraction float64            `json:"min_fraction"`
	Frames      int                `json:"frames"`
	Kept        int                `json:"kept"`
	// TopFrames are the frames (functions or modules) whose inclusive
	// samples changed most, at most Options.MaxRows.
	TopFrames []analysis.FrameDelta `json:"top_frames"`
}

// DiffTrace is what a [Diff] says of one of its traces.
type DiffTrace struct {
	Title       string  `json:"title"`
	DurationSec float64 `json:"duration_sec"`
	Events      int     `json:"events"`
	// CPUSamples counts the non-idle CPU samples: the flame graph's.
	CPUSamples int64 `json:"cpu_samples"`
	// IntervalMS is the sampling interval the trace logs, in ms, and
	// IntervalFrom the event it came from; absent when it logs none.
	IntervalMS   float64 `json:"interval_ms,omitempty"`
	IntervalFrom string  `json:"interval_from,omitempty"`
}

// BuildDiff builds the report of files, as [Build] does, with its
// comparison against base in Data.Diff (the page's first tab). The
// error lists the damage met in both traces, the baseline's marked so.
func BuildDiff(files []*etl.File, dec *decode.Decoder, opts *Options, base *Baseline) (*Data, error) {
	o := opts.withDefaults()
	bo := o
	bo.Names, bo.Title = base.Names, ""
	bd, bc, berr := buildCollected(base.Files, base.Decoder, &bo)
	d, c, err := buildCollected(files, dec, &o)
	d.Diff = newDiff(bd, bc, d, c, &o)
	var all etl.ErrorList
	for i, e := range []error{berr, err} {
		var l etl.ErrorList
		if !errors.As(e, &l) && e != nil {
			l = etl.ErrorList{e}
		}
		for _, e := range l {
			if i == 0 {
				e = fmt.Errorf("baseline: %w", e)
			}
			all = append(all, e)
		}
	}
	return d, all.Err()
}

// diffTrace is what the comparison says of the trace of d and c.
func diffTrace(d *Data, c *collector) DiffTrace {
	t := DiffTrace{Title: d.Title, DurationSec: d.Overview.DurationSec, Events: d.Overview.Events, CPUSamples: c.prof.Total}
	if iv, from := c.usage.Interval(); iv > 0 {
		t.IntervalMS, t.IntervalFrom = float64(iv.Microseconds())/1000, from
	}
	return t
}

// ioStatsOf returns the I/O the collector's I/O view aggregated.
func ioStatsOf(c *collector) *analysis.IOStats {
	for _, f := range c.views {
		if v, ok := f.(*ioCollector); ok {
			return v.stats
		}
	}
	return nil
}

func newDiff(bd *Data, bc *collector, d *Data, c *collector, o *Options) *Diff {
	df := &Diff{Before: diffTrace(bd, bc), After: diffTrace(d, c), MinFraction: o.FlameMinFraction}
	df.IntervalsDiffer = df.Before.CPUSamples > 0 && df.After.CPUSamples > 0 && df.Before.IntervalMS != df.After.IntervalMS
	df.Processes = analysis.DiffProcesses(analysis.TotalsByImage(bc.m, ioStatsOf(bc)), analysis.TotalsByImage(c.m, ioStatsOf(c)))
	if df.Processes == nil {
		df.Processes = []analysis.ProcessDelta{}
	}
	pd := analysis.DiffProfiles(bc.prof, c.prof)
	df.Flame = pd.Tree()
	df.Frames, df.Kept = pruneDiff(df.Flame, o.FlameMinFraction)
	top := pd.ByFrame()
	df.TopFrames = top[:min(len(top), o.MaxRows)]
	if df.TopFrames == nil {
		df.TopFrames = []analysis.FrameDelta{}
	}
	return df
}

// pruneDiff drops the frames holding less than frac of the larger total
// (before or after) and returns the frames below the root before and
// after.
func pruneDiff(root *analysis.DiffNode, frac float64) (frames, kept int) {
	frames = countDiff(root) - 1
	least := frac * float64(max(root.Before, root.After))
	var walk func(n *analysis.DiffNode)
	walk = func(n *analysis.DiffNode) {
		out := n.Children[:0]
		for _, ch := range n.Children {
			if float64(max(ch.Before, ch.After)) >= least {
				out = append(out, ch)
				walk(ch)
			}
		}
		clear(n.Children[len(out):])
		n.Children = out
		if len(n.Children) == 0 {
			n.Children = nil
		}
	}
	walk(root)
	return frames, countDiff(root) - 1
}

// countDiff counts n and the frames below it.
func countDiff(n *analysis.DiffNode) int {
	k := 1
	for _, c := range n.Children {
		k += countDiff(c)
	}
	return k
}

// pageViews returns the views in the order of the page's tabs: the
// comparison first when the report has one.
func (d *Data) pageViews() []*view {
	if d.Diff == nil {
		return views
	}
	out := []*view{diffView}
	for _, v := range views {
		if v != diffView {
			out = append(out, v)
		}
	}
	return out
}

// diffView: the comparison with a baseline (report --baseline); it
// collects nothing of its own (BuildDiff fills Data.Diff from the two
// traces' collectors).
var diffView = &view{id: "diff", title: "Diff", tmpl: diffTmpl,
	present: func(d *Data) bool { return d.Diff != nil },
	collect: func(c *collector) finisher { return finishFunc(func(*Data) {}) },
	page:    diffPage,
}

// diffRow is a row of the processes table, formatted.
type diffRow struct {
	Name                               string
	Procs                              string
	CPUBefore, CPUAfter, CPUDelta      int64
	CPUDeltaText, CPUMSDelta           string
	GCDelta, PauseDelta                string
	DiskDelta, FileDelta               string
	GCDeltaV, PauseDeltaV, DiskV, File float64
}

// frameRow is a row of the frames table, formatted.
type frameRow struct {
	Name                                     string
	Before, After, Delta, SelfDelta          int64
	BeforePct, AfterPct, DeltaText, SelfText string
}

// maxDiffRows bounds the rows of the page's processes table (the JSON
// has them all).
const maxDiffRows = 200

func diffPage(d *Data) (any, error) {
	df := d.Diff
	p := &struct {
		D                 *Data
		Rows              []diffRow
		Omitted           int // changed rows left out
		Unchanged         int // image names that did not change
		Frames            []frameRow
		ByAfter           template.HTML
		ByBefore          template.HTML
		MS                bool // both intervals known: ms columns
		BeforeIV, AfterIV string
	}{D: d, MS: df.Before.IntervalMS > 0 && df.After.IntervalMS > 0}
	p.BeforeIV, p.AfterIV = ivText(df.Before), ivText(df.After)
	for _, pr := range df.Processes {
		if pr.Delta == (analysis.ProcessTotals{}) {
			p.Unchanged++
			continue
		}
		if len(p.Rows) == maxDiffRows {
			p.Omitted++
			continue
		}
		r := diffRow{Name: pr.Name, Procs: fmt.Sprintf("%d → %d", pr.Before.Processes, pr.After.Processes),
			CPUBefore: pr.Before.CPUSamples, CPUAfter: pr.After.CPUSamples, CPUDelta: pr.Delta.CPUSamples,
			CPUDeltaText: signed(pr.Delta.CPUSamples),
			GCDelta:      fmt.Sprintf("%d → %d", pr.Before.GCs, pr.After.GCs), GCDeltaV: float64(pr.Delta.GCs),
			PauseDelta: signedMS(pr.Delta.GCPauseMS), PauseDeltaV: pr.Delta.GCPauseMS,
			DiskDelta: signedBytes(pr.Delta.DiskBytes), DiskV: float64(pr.Delta.DiskBytes),
			FileDelta: signedBytes(pr.Delta.FileBytes), File: float64(pr.Delta.FileBytes)}
		if p.MS {
			r.CPUMSDelta = signedMS(float64(pr.After.CPUSamples)*df.After.IntervalMS - float64(pr.Before.CPUSamples)*df.Before.IntervalMS)
		}
		p.Rows = append(p.Rows, r)
	}
	for _, f := range df.TopFrames {
		p.Frames = append(p.Frames, frameRow{Name: f.Name, Before: f.Before, After: f.After,
			Delta: f.After - f.Before, SelfDelta: f.SelfAfter - f.SelfBefore,
			BeforePct: pctf(float64(f.Before), float64(df.Before.CPUSamples)), AfterPct: pctf(float64(f.After), float64(df.After.CPUSamples)),
			DeltaText: signed(f.After - f.Before), SelfText: signed(f.SelfAfter - f.SelfBefore)})
	}
	p.ByAfter = diffFlameSVG("diff-flame", df, false)
	p.ByBefore = diffFlameSVG("diff-flame-before", df, true)
	return p, nil
}

func ivText(t DiffTrace) string {
	if t.IntervalMS == 0 {
		return "no sampling interval logged"
	}
	return "one sample every " + fmtMS(t.IntervalMS) + " ms (" + t.IntervalFrom + ")"
}

func signed(v int64) string {
	if v > 0 {
		return "+" + thousands(v)
	}
	return strings.Replace(thousands(v), "-", "−", 1)
}

func signedMS(v float64) string {
	switch {
	case v > 0:
		return "+" + fmtMS(v)
	case v < 0:
		return "−" + fmtMS(-v)
	}
	return "0"
}

func signedBytes(v int64) string {
	switch {
	case v > 0:
		return "+" + fmtBytes(uint64(v))
	case v < 0:
		return "−" + fmtBytes(uint64(-v))
	}
	return "0"
}

// diffColor is FlameGraph's colouring of a differential flame graph:
// red for a frame that grew, blue for one that shrank, the deeper the
// larger the change against the largest change; grey for no change.
func diffColor(delta, maxAbs int64) string {
	if delta == 0 || maxAbs == 0 {
		return "rgb(225,225,225)"
	}
	v := 235 - int(200*float64(max(delta, -delta))/float64(maxAbs))
	if delta > 0 {
		return fmt.Sprintf("rgb(255,%d,%d)", v, v)
	}
	return fmt.Sprintf("rgb(%d,%d,255)", v, v)
}

// diffFlameSVG draws the differential flame graph, the callers on top:
// frames as wide as their samples after (FlameGraph's choice) or, with
// byBefore, before (where what shrank or vanished shows), coloured by
// the change. Empty when that side has no samples.
func diffFlameSVG(id string, df *Diff, byBefore bool) template.HTML {
	root := df.Flame
	weight := func(n *analysis.DiffNode) int64 { return n.After }
	if byBefore {
		weight = func(n *analysis.DiffNode) int64 { return n.Before }
	}
	total := weight(root)
	if total == 0 {
		return ""
	}
	// The change that colours a frame: of CPU time when both traces log
	// their interval (in 100 ns: traces sampled at different intervals
	// compare), else of samples.
	delta := func(n *analysis.DiffNode) int64 { return n.After - n.Before }
	if df.Before.IntervalMS > 0 && df.After.IntervalMS > 0 {
		ivb, iva := int64(df.Before.IntervalMS*1e4+0.5), int64(df.After.IntervalMS*1e4+0.5)
		delta = func(n *analysis.DiffNode) int64 { return n.After*iva - n.Before*ivb }
	}
	var maxAbs int64
	depth := 0
	var scan func(n *analysis.DiffNode, k int)
	scan = func(n *analysis.DiffNode, k int) {
		if k > 0 {
			maxAbs = max(maxAbs, delta(n), -delta(n))
		}
		depth = max(depth, k)
		for _, c := range n.Children {
			scan(c, k+1)
		}
	}
	scan(root, 0)
	const row = 17
	var b svgb
	side := "after"
	if byBefore {
		side = "before"
	}
	b.p(`<svg class="chart diffflame" data-chart="%s" viewBox="0 0 %d %d" role="img" aria-label="differential flame graph, widths %s">`, id, chartWidth, (depth+1)*row, side)
	var draw func(n *analysis.DiffNode, x float64, k int)
	draw = func(n *analysis.DiffNode, x float64, k int) {
		w := float64(weight(n)) / float64(total) * chartWidth
		if w < 0.05 {
			return
		}
		title := fmt.Sprintf("%s\nbefore: %s samples (%s)\nafter: %s samples (%s)\nchange: %s samples", n.Name,
			thousands(n.Before), pctf(float64(n.Before), float64(root.Before)), thousands(n.After), pctf(float64(n.After), float64(root.After)), signed(n.After-n.Before))
		if df.Before.IntervalMS > 0 && df.After.IntervalMS > 0 {
			title += fmt.Sprintf(" (%s ms)", signedMS(float64(n.After)*df.After.IntervalMS-float64(n.Before)*df.Before.IntervalMS))
		}
		b.p(`<g><title>%s</title><rect x="%s" y="%d" width="%s" height="%d" fill="%s" stroke="#fff" stroke-width="0.5"/>`,
			esc(title), num(x), k*row, num(w), row-1, diffColor(delta(n), maxAbs))
		if chars := int(w / 6.6); chars >= 3 {
			b.p(`<text x="%s" y="%d" font-size="11">%s</text>`, num(x+3), k*row+12, esc(truncate(n.Name, chars)))
		}
		b.p(`</g>`)
		for _, c := range n.Children {
			draw(c, x, k+1)
			x += float64(weight(c)) / float64(total) * chartWidth
		}
	}
	draw(root, 0, 0)
	b.p(`</svg>`)
	return b.html()
}

// diffTmpl is the section's template.
const diffTmpl = `{{with .D.Diff}}
<section id="diff" class="sect">
<h2>Compared with a baseline</h2>
<table class="kv">
<tr><th>Before (baseline)</th><td>{{.Before.Title}}: {{thousands .Before.Events}} events over {{sec .Before.DurationSec}}, {{thousands .Before.CPUSamples}} CPU samples, {{$.BeforeIV}}</td></tr>
<tr><th>After (this trace)</th><td>{{.After.Title}}: {{thousands .After.Events}} events over {{sec .After.DurationSec}}, {{thousands .After.CPUSamples}} CPU samples, {{$.AfterIV}}</td></tr>
</table>
{{if .IntervalsDiffer}}<p class="note warnline">The traces sample at different intervals: their sample counts do not compare as they are. Nothing is normalised; {{if $.MS}}the ms column and the tooltips weigh each trace's samples by its interval, and the flame graph's colours show the change of CPU time{{else}}one trace logs no interval, so its samples cannot be weighed in ms{{end}}.</p>{{end}}
<p class="note">Processes are matched by image name (pids differ between traces): the processes of one name add up. Counts are as each trace has them, not normalised to the same duration or number of samples. CPU samples are each process's as <code>tracerpt-go stats</code> counts them (Idle's included); the flame graph leaves the idle thread out.</p>
<h3>Processes</h3>
{{if $.Rows}}<div class="scrollbox" style="max-height:40vh"><table class="sortable" id="diff-table">
<thead><tr><th>Name</th><th>Processes</th><th>CPU samples before</th><th>after</th><th>change</th>{{if $.MS}}<th>CPU ms change</th>{{end}}<th>GCs</th><th>GC pause ms change</th><th>Disk I/O change</th><th>File I/O change</th></tr></thead>
<tbody>{{range $.Rows}}<tr><td>{{.Name}}</td><td>{{.Procs}}</td><td class="num">{{thousands .CPUBefore}}</td><td class="num">{{thousands .CPUAfter}}</td><td class="num" data-v="{{.CPUDelta}}">{{.CPUDeltaText}}</td>{{if $.MS}}<td class="num">{{.CPUMSDelta}}</td>{{end}}<td class="num" data-v="{{.GCDeltaV}}">{{.GCDelta}}</td><td class="num" data-v="{{.PauseDeltaV}}">{{.PauseDelta}}</td><td class="num" data-v="{{.DiskV}}">{{.DiskDelta}}</td><td class="num" data-v="{{.File}}">{{.FileDelta}}</td></tr>{{end}}</tbody>
</table></div>{{end}}
<p class="note">{{if $.Rows}}The image names whose totals changed, the largest change of CPU samples first{{if $.Omitted}} ({{$.Omitted}} more in the JSON, <code>--json</code>){{end}}{{else}}No process's totals changed{{end}}{{if $.Unchanged}}; {{$.Unchanged}} image names did not change{{end}}.</p>
{{if or $.ByAfter $.ByBefore}}
<h3>Differential flame graph of the CPU stacks</h3>
<p class="note">FlameGraph's difference graph, the callers on top: <span style="color:#d62728">red</span> frames grew, <span style="color:#1f4fd6">blue</span> ones shrank, the deeper the colour the larger the change; grey ones did not change. Frames holding less than {{pct .MinFraction 1}} of the samples are left out ({{thousands .Kept}} of {{thousands .Frames}} frames kept). Hover for the samples before and after. The same as <code>tracerpt-go stacks --baseline</code> | <code>flamegraph.pl</code>.</p>
{{with $.ByAfter}}<h4>Widths: samples after</h4>
<div class="scrollbox">{{.}}</div>{{end}}
{{with $.ByBefore}}<h4>Widths: samples before (what shrank or vanished shows here)</h4>
<div class="scrollbox">{{.}}</div>{{end}}
<h3>Frames that changed most</h3>
<table class="sortable">
<thead><tr><th>Frame</th><th>Inclusive before</th><th>%</th><th>after</th><th>%</th><th>change</th><th>Exclusive change</th></tr></thead>
<tbody>{{range $.Frames}}<tr><td class="path">{{.Name}}</td><td class="num">{{thousands .Before}}</td><td class="num">{{.BeforePct}}</td><td class="num">{{thousands .After}}</td><td class="num">{{.AfterPct}}</td><td class="num" data-v="{{.Delta}}">{{.DeltaText}}</td><td class="num" data-v="{{.SelfDelta}}">{{.SelfText}}</td></tr>{{end}}</tbody>
</table>
{{end}}
</section>
{{end}}`
