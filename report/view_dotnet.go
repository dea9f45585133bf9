package report

import (
	"cmp"
	"encoding/json"
	"fmt"
	"html/template"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/etwkit/etw/analysis"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
)

// dotnetCollector aggregates the allocation ticks and JIT compilations.
type dotnetCollector struct {
	c     *collector
	stats *analysis.DotNetStats
}

func (v *dotnetCollector) observe(ev *etl.Event, res *decode.Result) { v.stats.Observe(ev, res) }

var gcReasons = []string{"AllocSmall", "Induced", "LowMemory", "Empty", "AllocLarge", "OutOfSpaceSOH", "OutOfSpaceLOH",
	"InducedNotForced", "Internal", "InducedLowMemory", "InducedCompacting", "LowMemoryHost", "PMFullGC", "LowMemoryHostBlocking"}

var gcTypes = []string{"Blocking", "Background", "Foreground"}

func nameOf(names []string, v uint32) string {
	if int(v) < len(names) {
		return names[v]
	}
	return strconv.FormatUint(uint64(v), 10)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// round4 rounds sums of milliseconds to 0.1 µs, the clock's resolution,
// so that float noise stays out of the JSON.
func round4(v float64) float64 { return math.Round(v*1e4) / 1e4 }

func (v *dotnetCollector) finish(d *Data) {
	c := v.c
	var procs []*analysis.Process
	for _, p := range c.m.Processes() {
		if p.CLR {
			procs = append(procs, p)
		}
	}
	if len(procs) == 0 && !v.stats.Seen() {
		return
	}
	dn := &DotNet{Processes: []DotNetProcess{}, GCs: []GC{}, Generations: []Generation{}, Allocations: []Allocation{}, JIT: []JITCount{}}
	gens := map[uint32]*Generation{}
	seen := map[*analysis.Process]bool{}
	for _, p := range procs {
		seen[p] = true
		dp := DotNetProcess{PID: p.PID, Name: p.ImageFileName, rec: p}
		if dp.Name == "" {
			dp.Name = analysis.ProcessName(p, p.PID)
		}
		if g := p.GC; g != nil {
			dp.GCs, dp.PauseMSTotal, dp.PauseMSMax = g.Count, ms(g.PauseTotal), ms(g.PauseMax)
			for _, gc := range g.GCs {
				dn.GCs = append(dn.GCs, GC{PID: p.PID, Process: p.String(), Number: gc.Number, Generation: gc.Generation,
					Reason: nameOf(gcReasons, gc.Reason), Type: nameOf(gcTypes, gc.Type), T: gc.Start.Sub(c.m.Start()).Seconds(),
					PauseMS: ms(gc.Pause), DurationMS: ms(gc.Duration)})
				gs := gens[gc.Generation]
				if gs == nil {
					gs = &Generation{Generation: gc.Generation}
					gens[gc.Generation] = gs
				}
				gs.Count++
				gs.PauseMSTotal += ms(gc.Pause)
				gs.PauseMSMax = max(gs.PauseMSMax, ms(gc.Pause))
			}
		}
		var alloc analysis.Allocation
		dp.Jitted, alloc = v.stats.Process(p)
		dp.AllocTicks, dp.AllocBytes = alloc.Ticks, alloc.Bytes
		dn.Processes = append(dn.Processes, dp)
	}
	slices.SortStableFunc(dn.GCs, func(a, b GC) int { return cmp.Compare(a.T, b.T) })
	if len(dn.GCs) > c.o.MaxGCs {
		dn.GCsOmitted = len(dn.GCs) - c.o.MaxGCs
		dn.GCs = dn.GCs[:c.o.MaxGCs]
	}
	for _, g := range gens {
		g.PauseMSTotal = round4(g.PauseMSTotal)
		dn.Generations = append(dn.Generations, *g)
	}
	slices.SortFunc(dn.Generations, func(a, b Generation) int { return cmp.Compare(a.Generation, b.Generation) })
	dn.Allocations = v.stats.Allocations(c.o.MaxRows)
	dn.JIT = v.stats.JIT(c.o.MaxRows)
	slices.SortStableFunc(dn.Processes, func(a, b DotNetProcess) int {
		return cmp.Or(cmp.Compare(b.GCs, a.GCs), cmp.Compare(b.Jitted, a.Jitted), cmp.Compare(a.PID, b.PID))
	})
	recs := make([]*analysis.Process, len(dn.Processes))
	for i, dp := range dn.Processes {
		recs[i] = dp.rec
	}
	dn.OverTime = dotnetOverTime(v.stats, seriesRows*c.o.MaxRows, recs, float64(c.axis.Width)/1e7)
	d.DotNet = dn
}

// dotnetPage draws the GCs and the allocation and JIT bars.
func dotnetPage(d *Data) (any, error) {
	dn := d.DotNet
	p := &struct {
		D                    *Data
		GC, Gens, Alloc, JIT template.HTML
		GCData               template.JS // [t, pid, pause ms, generation] of each GC, for the script
		OverTime             template.JS // the tables over time, for the script
	}{D: d}
	if dn.OverTime != nil {
		b, err := json.Marshal(struct {
			*DotNetOverTime
			MaxRows int `json:"max_rows"`
		}{dn.OverTime, d.maxRows})
		if err != nil {
			return nil, err
		}
		p.OverTime = template.JS(b)
	}
	if len(dn.GCs) > 0 {
		rows := make([][4]float64, len(dn.GCs))
		for i, g := range dn.GCs {
			rows[i] = [4]float64{g.T, float64(g.PID), g.PauseMS, float64(g.Generation)}
		}
		b, err := json.Marshal(rows)
		if err != nil {
			return nil, err
		}
		p.GCData = template.JS(b)
		p.GC = gcSVG(dn.GCs, max(d.Overview.DurationSec, 1e-6))
		var bars []bar
		for _, g := range dn.Generations {
			bars = append(bars, bar{Label: fmt.Sprintf("generation %d: %s GCs", g.Generation, thousands(int64(g.Count))),
				Color: genColors[min(g.Generation, 2)], Values: []float64{g.PauseMSTotal}, Title: fmt.Sprintf("generation %d: %d GCs, pauses %s ms in all, longest %s ms",
					g.Generation, g.Count, fmtMS(g.PauseMSTotal), fmtMS(g.PauseMSMax))})
		}
		p.Gens = barsSVG("gc-gens", "GC pause time by generation", bars, []string{"pause ms"}, func(v float64) string { return fmtMS(v) + " ms" })
	}
	var bars []bar
	for _, a := range dn.Allocations {
		bars = append(bars, bar{Label: a.Type, Values: []float64{float64(a.Bytes)},
			Title: fmt.Sprintf("%s: %s allocation ticks, %s", a.Type, thousands(int64(a.Ticks)), fmtBytes(a.Bytes))})
	}
	p.Alloc = barsSVG("alloc", "allocations by type", bars, []string{"bytes"}, func(v float64) string { return fmtBytes(uint64(v)) })
	bars = nil
	for _, j := range dn.JIT {
		bars = append(bars, bar{Label: j.Namespace, Values: []float64{float64(j.Methods)}})
	}
	p.JIT = barsSVG("jit", "methods JIT-compiled by type", bars, []string{"methods"}, countFmt)
	return p, nil
}

// genColors are the colours of GC generations 0, 1 and 2 (as in the
// stylesheet's dots).
var genColors = []string{palette[0], palette[1], palette[2]}

// gcSVG draws each GC's pause at its time, coloured by generation.
func gcSVG(gcs []GC, dur float64) template.HTML {
	peak := 0.0
	for _, g := range gcs {
		peak = max(peak, g.PauseMS)
	}
	if peak == 0 {
		peak = 1
	}
	yMax := niceMax(peak)
	const units = 1000.0
	tc := &timeChart{name: "gc", dur: dur, left: 64, plotH: 240, plotUnits: units, yMax: yMax, yUnit: "pause ms"}
	var b svgb
	tc.open(&b, "GC pauses over time", nil)
	for _, g := range gcs {
		y := units - g.PauseMS/yMax*units
		cls := "gen" + strconv.Itoa(int(min(g.Generation, 2)))
		if g.Type == "Background" {
			cls += " bgc"
		}
		b.p(`<path class="dot %s" d="M%s %sh0" vector-effect="non-scaling-stroke"><title>%s GC #%d gen %d (%s, %s) at %s: pause %s ms, %s ms</title></path>`,
			cls, num(g.T), num(math.Round(y*100)/100), esc(g.Process), g.Number, g.Generation, g.Type, g.Reason,
			timeLabel(g.T, 1e-6, 1), fmtMS(g.PauseMS), fmtMS(g.DurationMS))
	}
	tc.close(&b)
	return b.html()
}

// dotnetView: the .NET runtime's processes, garbage collections,
// allocation ticks and JIT compilations.
var dotnetView = &view{id: "dotnet", title: ".NET", tmpl: dotnetTmpl,
	present: func(d *Data) bool { return d.DotNet != nil },
	collect: func(c *collector) finisher { return &dotnetCollector{c, analysis.NewDotNetStats(c.m, c.axis)} },
	page:    dotnetPage,
}

// dotnetTmpl is the section's template.
const dotnetTmpl = `{{with .D.DotNet}}
<section id="dotnet" class="sect">
<h2>.NET runtime</h2>
<p class="note" id="dotnet-range">GCs and pauses over the time range selected on any time chart (a GC counts where it starts){{if .GCsOmitted}}, of the GCs listed{{end}}: <span class="zoomview"></span>; methods JIT-compiled and allocation ticks over the same range (in the buckets it overlaps).</p>
<table class="sortable" id="dotnet-table"{{if .GCsOmitted}} data-gcs-omitted="{{.GCsOmitted}}"{{end}}>
<thead><tr><th>PID</th><th>Process</th><th>GCs</th><th>GC pause total ms</th><th>Longest pause ms</th><th>Methods JIT-compiled</th><th>Allocation ticks</th><th>Allocated (sampled)</th></tr></thead>
<tbody>{{range $i, $p := .Processes}}<tr data-pid="{{.PID}}" data-i="{{$i}}"><td class="num">{{.PID}}</td><td>{{.Name}}</td><td class="num">{{thousands .GCs}}</td><td class="num" data-v="{{.PauseMSTotal}}">{{ms .PauseMSTotal}}</td><td class="num" data-v="{{.PauseMSMax}}">{{ms .PauseMSMax}}</td><td class="num">{{thousands .Jitted}}</td><td class="num">{{thousands .AllocTicks}}</td><td class="num" data-v="{{.AllocBytes}}">{{bytes .AllocBytes}}</td></tr>{{end}}</tbody>
</table>
{{if $.OverTime}}<script type="application/json" id="dotnet-data">{{$.OverTime}}</script>{{end}}
{{if $.GC}}<script type="application/json" id="gc-data">{{$.GCData}}</script>
<h3>GC pauses</h3>
<p class="note">One dot per garbage collection: its pause (managed threads suspended, as TraceEvent measures it) at its start. <span class="k-gen0">gen 0</span> <span class="k-gen1">gen 1</span> <span class="k-gen2">gen 2</span>; a ring marks a background GC.{{if .GCsOmitted}} {{.GCsOmitted}} later GCs not shown.{{end}}</p>
<div class="toolbar zoombar"><button type="button" data-zoom="out">Zoom out</button><button type="button" data-zoom="reset">Reset zoom</button><span class="zoomview"></span></div>
{{$.GC}}
<h3>Pause time by generation</h3>
{{$.Gens}}
{{end}}
{{if $.Alloc}}<h3>Allocations by type</h3>
<p class="note">From the allocation ticks the runtime logs about every 100 KB allocated: a sample, not every allocation.</p>
{{$.Alloc}}{{end}}
{{if $.JIT}}<h3>Methods JIT-compiled, by type</h3>
{{$.JIT}}{{end}}
</section>
{{end}}`
