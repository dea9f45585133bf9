package report

import (
	"cmp"
	"fmt"
	"html/template"
	"slices"
	"strconv"
	"time"

	"github.com/etwkit/etw/analysis"
)

// maxProcesses bounds the process list (the ones with most events stay).
const maxProcesses = 500

// listed reports whether a process record goes into the report: not a
// placeholder no event ended up in.
func listed(p *analysis.Process) bool { return p.Events > 0 || p.ImageFileName != "" }

func (c *collector) relTime(t time.Time) *float64 {
	if t.IsZero() {
		return nil
	}
	s := t.Sub(c.m.Start()).Seconds()
	return &s
}

func (c *collector) processes(d *Data) {
	var list []*analysis.Process
	for _, p := range c.m.Processes() {
		if listed(p) {
			list = append(list, p)
		}
	}
	if len(list) == 0 {
		return
	}
	ps := &Processes{}
	if len(list) > maxProcesses {
		slices.SortStableFunc(list, func(a, b *analysis.Process) int { return cmp.Compare(b.Events, a.Events) })
		ps.Omitted = len(list) - maxProcesses
		list = list[:maxProcesses]
	}
	for _, p := range list {
		name := p.ImageFileName
		if name == "" {
			name = analysis.ProcessName(p, p.PID)
		}
		ps.List = append(ps.List, Process{PID: p.PID, Name: name, CommandLine: p.CommandLine,
			Start: c.relTime(p.Start()), End: c.relTime(p.End()), Events: p.Events, CPUSamples: p.CPUSamples,
			Threads: len(p.Threads()), DotNet: p.CLR, Root: analysis.ProcessName(p, p.PID), rec: p})
	}
	// By start (those running when the trace began first), then pid.
	slices.SortStableFunc(ps.List, func(a, b Process) int {
		as, bs := -1.0, -1.0
		if a.Start != nil {
			as = *a.Start
		}
		if b.Start != nil {
			bs = *b.Start
		}
		if c := cmp.Compare(as, bs); c != 0 {
			return c
		}
		return cmp.Compare(a.PID, b.PID)
	})
	d.Processes = ps
}

// processesPage draws the lifetimes and the CPU samples by process.
func processesPage(d *Data) (any, error) {
	ps := d.Processes
	p := &struct {
		D                     *Data
		Gantt, CPUBars        template.HTML
		MaxEvents, MaxSamples int   // largest values, for the table's inline bars
		Samples               []int // the CPU samples of each row of the table
		EventsProc            []int // 1 + each row's process in the events table (0: none), for the script
	}{D: d}
	p.Gantt = ganttSVG(ps.List, max(d.Overview.DurationSec, 1e-6))
	var bars []bar
	for _, pr := range topBy(ps.List, 20, func(p Process) float64 { return float64(p.CPUSamples) }) {
		bars = append(bars, bar{Label: fmt.Sprintf("%s (%d)", pr.Name, pr.PID), Values: []float64{float64(pr.CPUSamples)}})
	}
	p.CPUBars = barsSVG("cpu-bars", "CPU samples by process", bars, []string{"CPU samples"}, countFmt)
	// The table's CPU samples are the profile's (the idle thread's left
	// out), which the page's script counts again for a time range; the
	// model's count without a profile.
	p.Samples = make([]int, len(ps.List))
	var byRoot map[string]int64
	if d.CPU != nil {
		byRoot = map[string]int64{}
		for _, n := range d.CPU.Root.Children {
			byRoot[n.Name] += n.Value
		}
	}
	p.EventsProc = make([]int, len(ps.List))
	for i, pr := range ps.List {
		p.EventsProc[i] = pr.evp
		p.Samples[i] = pr.CPUSamples
		if byRoot != nil {
			p.Samples[i] = int(byRoot[pr.Root])
		}
		p.MaxEvents = max(p.MaxEvents, pr.Events)
		p.MaxSamples = max(p.MaxSamples, p.Samples[i])
	}
	return p, nil
}

func topBy[T any](list []T, n int, key func(T) float64) []T {
	out := make([]T, 0, len(list))
	for _, x := range list {
		if key(x) > 0 {
			out = append(out, x)
		}
	}
	// insertion sort keeps equal keys in list order; n is small
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && key(out[j]) > key(out[j-1]); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out[:min(n, len(out))]
}

// ganttSVG draws the processes' lifetimes, one row each.
func ganttSVG(ps []Process, dur float64) template.HTML {
	const row = 16
	tc := &timeChart{name: "gantt", dur: dur, left: 280, plotH: row * len(ps), plotUnits: float64(row * len(ps))}
	var b svgb
	tc.openRows(&b, ps, row)
	for i, p := range ps {
		start, end := 0.0, dur
		if p.Start != nil {
			start = *p.Start
		}
		if p.End != nil {
			end = *p.End
		}
		cls := "life"
		if p.DotNet {
			cls = "life dotnet"
		}
		y := i*row + 3
		title := fmt.Sprintf("%s (%d)\n%s – %s\nevents %s, CPU samples %s, threads %d", p.Name, p.PID,
			lifeEdge(p.Start, "running at the start"), lifeEdge(p.End, "running at the end"),
			thousands(int64(p.Events)), thousands(int64(p.CPUSamples)), p.Threads)
		if p.CommandLine != "" {
			title += "\n" + p.CommandLine
		}
		b.p(`<rect class="%s" x="%s" y="%d" width="%s" height="%d"><title>%s</title></rect>`,
			cls, num(start), y, num(max(end-start, dur/2000)), row-6, esc(title))
		if p.Start != nil {
			b.p(`<line class="edge" x1="%s" x2="%s" y1="%d" y2="%d" vector-effect="non-scaling-stroke"/>`, num(start), num(start), y-2, y+row-4)
		}
		if p.End != nil {
			b.p(`<line class="edge" x1="%s" x2="%s" y1="%d" y2="%d" vector-effect="non-scaling-stroke"/>`, num(end), num(end), y-2, y+row-4)
		}
	}
	tc.close(&b)
	return b.html()
}

func lifeEdge(t *float64, unknown string) string {
	if t == nil {
		return unknown
	}
	return "+" + strconv.FormatFloat(*t, 'f', 6, 64) + " s"
}

// openRows opens a time chart whose rows are labelled on the left.
func (tc *timeChart) openRows(b *svgb, ps []Process, row int) {
	tc.open(b, "process lifetimes", func() {
		for i, p := range ps {
			if i%2 == 1 {
				b.p(`<rect class="stripe" x="%d" y="%d" width="%d" height="%d"/>`, tc.left, tcTop+i*row, tc.plotW(), row)
			}
			label := truncate(p.Name, 30) + " (" + strconv.FormatUint(uint64(p.PID), 10) + ")"
			title := p.Name
			if p.CommandLine != "" {
				title = p.CommandLine
			}
			b.p(`<text class="rowlabel" x="%d" y="%d" dy="0.32em" text-anchor="end">%s<title>%s</title></text>`,
				tc.left-6, tcTop+i*row+row/2, esc(label), esc(title))
		}
	})
}

// processesView: the process records, their lifetimes and CPU samples.
var processesView = &view{id: "processes", title: "Processes", tmpl: processesTmpl,
	present: func(d *Data) bool { return d.Processes != nil },
	collect: func(c *collector) finisher { return finishFunc(c.processes) },
	page:    processesPage,
}

// processesTmpl is the section's template.
const processesTmpl = `{{with .D.Processes}}
<section id="processes" class="sect">
<h2>Processes</h2>
<p class="note">{{len .List}} processes{{if .Omitted}} ({{.Omitted}} with fewest events left out){{end}}, by start. A bar runs from the process's start to its exit; a short line marks a start or exit the trace holds, a bar reaching an edge was running before or after the trace. Hover for the command line. <span class="k-dotnet">Green</span>: .NET.</p>
<div class="toolbar zoombar"><button type="button" data-zoom="out">Zoom out</button><button type="button" data-zoom="reset">Reset zoom</button><span class="zoomview"></span></div>
<div class="scrollbox">{{$.Gantt}}</div>
{{if $.CPUBars}}<h3>CPU samples by process</h3>
{{$.CPUBars}}{{end}}
<h3>All processes</h3>
<p class="note">Events and CPU samples (the idle thread's left out, as in the flame graph) over the time range selected on any time chart: <span class="zoomview"></span>. In a range, events count as the events table counts them, in its buckets the range overlaps.</p>
<input type="search" class="filter" data-table="proc-table" placeholder="Filter rows" aria-label="Filter processes">
<table class="sortable" id="proc-table">
<thead><tr><th>PID</th><th>Name</th><th>Start</th><th>End</th><th>Events</th><th>CPU samples</th><th>Threads</th><th>.NET</th><th>Command line</th></tr></thead>
<tbody>{{range $i, $p := .List}}<tr data-root="{{.Root}}"{{with index $.EventsProc $i}} data-evp="{{.}}"{{end}}><td class="num">{{.PID}}</td><td>{{.Name}}</td><td class="num" data-v="{{with .Start}}{{.}}{{else}}-1{{end}}">{{reltime .Start "before"}}</td><td class="num" data-v="{{with .End}}{{.}}{{else}}1e300{{end}}">{{reltime .End "after"}}</td>{{barcell .Events $.MaxEvents}}{{barcell (index $.Samples $i) $.MaxSamples}}<td class="num">{{.Threads}}</td><td>{{if .DotNet}}yes{{end}}</td><td class="cmd">{{.CommandLine}}</td></tr>{{end}}</tbody>
</table>
</section>
{{end}}`
