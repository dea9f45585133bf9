package report

import (
	"cmp"
	"encoding/json"
	"fmt"
	"html/template"
	"math"
	"slices"

	"github.com/etwkit/etw/catalog"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
)

// timelineCollector counts the events per bucket and provider.
type timelineCollector struct {
	c *collector
	// provs numbers the providers; perProv (the counts per bucket) is
	// indexed by that number.
	provs   providerIndex
	perProv [][]int32
	levels  []*level
	lost    []Marker
}

// headerOnly says observe reads only the event's header (headerObserver).
func (*timelineCollector) headerOnly() {}

func (v *timelineCollector) observe(ev *etl.Event, res *decode.Result) {
	c := v.c
	if ev.Flags&etl.FlagClassicHeader != 0 && ev.ProviderID == catalog.RTLostEventGUID {
		kind := "lost"
		switch ev.Descriptor.Opcode {
		case catalog.RTLostEvents:
			kind = "events lost"
		case catalog.RTLostBuffer:
			kind = "buffer lost"
		case catalog.RTLostFile:
			kind = "file lost"
		}
		v.lost = append(v.lost, Marker{T: c.sec(ev.Time), Kind: kind, Detail: "real-time lost-event record"})
	}
	if c.axis.Buckets == 0 {
		return
	}
	pi, added := v.provs.number(ev.ProviderID)
	if added {
		v.perProv = append(v.perProv, make([]int32, c.axis.Buckets))
	}
	rel := max(etl.SubTime(ev.Time, c.axis.Start), 0)
	v.perProv[pi][min(int(rel/c.axis.Width), c.axis.Buckets-1)]++
	for i, l := range v.levels {
		if l.count(lkey{rel / l.width, pi}) && l.entries() > maxLevelEntries {
			v.levels = v.levels[:i] // this level and the finer ones
			break
		}
	}
}

// Detail levels of the timeline: at most maxLevels, each dropped (with
// the finer ones) once it holds more than maxLevelEntries (bucket,
// provider) counts; at most maxDetailRows buckets are written in all.
const (
	maxLevels       = 6
	maxLevelEntries = 40000
	maxDetailNums   = 80000 // numbers in all the levels' rows
)

func (v *timelineCollector) finish(d *Data) {
	c := v.c
	if c.axis.Buckets == 0 {
		return
	}
	tl := &Timeline{BucketSec: float64(c.axis.Width) / 1e7, Buckets: c.axis.Buckets, Lost: []Marker{}, Damaged: []Marker{}}
	other := Series{Counts: make([]int, c.axis.Buckets)}
	others := 0
	for i, p := range c.pc.Providers() {
		var counts []int32
		if pi, ok := v.provs.lookup(p.GUID); ok {
			counts = v.perProv[pi]
		}
		if i < c.o.TopProviders {
			s := Series{Name: providerLabel(&p), GUID: "{" + p.GUID.String() + "}", Events: p.Events, Counts: make([]int, c.axis.Buckets)}
			for b, n := range counts {
				s.Counts[b] = int(n)
			}
			tl.Series = append(tl.Series, s)
			continue
		}
		others++
		other.Events += p.Events
		for b, n := range counts {
			other.Counts[b] += int(n)
		}
	}
	if others > 0 {
		other.Name = fmt.Sprintf("%d other providers", others)
		if others == 1 {
			other.Name = "1 other provider"
		}
		tl.Series = append(tl.Series, other)
	}
	tl.Detail = v.details(len(tl.Series))
	end := c.t1
	for i, f := range c.files {
		for _, b := range f.Buffers() {
			fl := b.Header.Flags
			if fl&(etl.BufferFlagEventsLost|etl.BufferFlagBufferLost) == 0 {
				continue
			}
			t := f.Clock.FileTime(b.Header.TimeStamp)
			if t < c.axis.Start || t > end {
				continue
			}
			kind := "events lost"
			if fl&etl.BufferFlagBufferLost != 0 {
				kind = "buffer lost"
			}
			tl.Lost = append(tl.Lost, Marker{T: c.sec(t), Kind: kind,
				Detail: fmt.Sprintf("%s: buffer at offset %#x flagged", fileName(c.files, c.o, i), b.FileOffset)})
		}
	}
	tl.Lost = append(tl.Lost, v.lost...)
	slices.SortStableFunc(tl.Lost, func(a, b Marker) int { return cmp.Compare(a.T, b.T) })
	for _, dm := range d.Overview.Damaged {
		if dm.T != nil {
			tl.Damaged = append(tl.Damaged, Marker{T: *dm.T, Kind: "damaged",
				Detail: fmt.Sprintf("%s: offset %#x: %s", dm.File, dm.Offset, dm.Message)})
		}
	}
	slices.SortStableFunc(tl.Damaged, func(a, b Marker) int { return cmp.Compare(a.T, b.T) })
	d.Timeline = tl
}

// details turns the detail levels into rows of counts per series, from
// the coarsest level to the finest that fits in maxDetailNums numbers.
func (v *timelineCollector) details(nseries int) []Detail {
	c := v.c
	series := make([]int, len(v.provs.list)) // provider index → series
	for i, p := range c.pc.Providers() {
		if pi, ok := v.provs.lookup(p.GUID); ok {
			series[pi] = min(i, nseries-1)
		}
	}
	out := []Detail{}
	nums := 0
	for _, l := range v.levels {
		l.flush()
		rows, n := l.rows(series, nseries)
		if nums+n > maxDetailNums {
			break
		}
		nums += n
		out = append(out, Detail{BucketSec: float64(l.width) / 1e7, Buckets: rows})
	}
	return out
}

// providerLabel names a provider as the providers table does.
func providerLabel(p *decode.ProviderStat) string {
	name := p.Name
	if p.Class != "" {
		name += "/" + p.Class
	}
	if name == "" {
		name = "{" + p.GUID.String() + "}"
	}
	return name
}

// timelinePage draws the timeline and gives the script its counts.
func timelinePage(d *Data) (any, error) {
	tl := d.Timeline
	p := &struct {
		D            *Data
		Timeline     template.HTML
		TimelineData template.JS
		OtherSeries  int  // index of the "other providers" series, -1 if none
		HeaderLost   bool // the headers count lost events the timeline cannot place
	}{D: d, OtherSeries: -1}
	p.Timeline = timelineSVG(tl, max(d.Overview.DurationSec, 1e-6))
	for i, s := range tl.Series {
		if s.GUID == "" {
			p.OtherSeries = i
		}
	}
	p.HeaderLost = d.Overview.EventsLost > 0 && len(tl.Lost) == 0
	td := timelineJS{BucketSec: tl.BucketSec, Detail: tl.Detail}
	for i, s := range tl.Series {
		col := seriesColor(i)
		if s.GUID == "" {
			col = otherColor
		}
		td.Colors = append(td.Colors, col)
		td.Names = append(td.Names, s.Name)
		td.Counts = append(td.Counts, s.Counts)
	}
	b, err := json.Marshal(td)
	if err != nil {
		return nil, err
	}
	p.TimelineData = template.JS(b)
	return p, nil
}

// timelineJS is what the script needs to redraw the timeline.
type timelineJS struct {
	BucketSec float64  `json:"bucket_sec"`
	Colors    []string `json:"colors"`
	Names     []string `json:"names"`
	Counts    [][]int  `json:"counts"`
	Detail    []Detail `json:"detail"`
}

// timelineSVG draws the events per second, stacked by provider (the
// largest at the bottom), with the lost-event and damaged-buffer moments.
func timelineSVG(tl *Timeline, dur float64) template.HTML {
	nb := tl.Buckets
	peak := stackedPeak(tl.Series, func(s Series) []int { return s.Counts })
	rate := float64(peak) / tl.BucketSec
	yMax := 1.0
	if rate > 0 {
		yMax = niceMax(rate)
	}
	const units = 1000.0
	tc := &timeChart{name: "timeline", dur: max(dur, float64(nb)*tl.BucketSec), left: 64, plotH: 300, plotUnits: units, yMax: yMax, yUnit: "events/s"}
	var b svgb
	tc.open(&b, "events per second by provider", nil)
	y := func(count int) string {
		return num(math.Round((units-float64(count)/tl.BucketSec/yMax*units)*100) / 100)
	}
	lower := make([]int, nb)
	upper := make([]int, nb)
	for si, s := range tl.Series {
		col := seriesColor(si)
		if s.GUID == "" { // the other providers
			col = otherColor
		}
		stepArea(&b, col, s.Counts, lower, upper, tl.BucketSec, y, s.Name+": "+thousands(int64(s.Events))+" events")
	}
	for _, m := range tl.Damaged {
		tc.marker(&b, m.T, "mark-damaged", "damaged: "+m.Detail)
	}
	for _, m := range tl.Lost {
		tc.marker(&b, m.T, "mark-lost", m.Kind+" at "+timeLabel(m.T, 1e-7, 1)+": "+m.Detail)
	}
	tc.close(&b)
	return b.html()
}

// timelineView: events per bucket of time by provider, with finer levels
// for zoomed views, and the moments events were lost or buffers damaged.
var timelineView = &view{id: "timeline", title: "Timeline", tmpl: timelineTmpl,
	present: func(d *Data) bool { return d.Timeline != nil },
	collect: func(c *collector) finisher {
		v := &timelineCollector{c: c}
		if c.axis.Buckets > 0 {
			for w, i := c.axis.Width/10, 0; w >= 10 && i < maxLevels; w, i = w/10, i+1 {
				v.levels = append(v.levels, &level{width: w, cur: -1})
			}
		}
		return v
	},
	page: timelinePage,
}

// timelineTmpl is the section's template.
const timelineTmpl = `{{with .D.Timeline}}
<section id="timeline" class="sect">
<h2>Timeline</h2>
<p class="note">Events per second by provider, in buckets of <span class="tl-res">{{width .BucketSec}}</span>; the providers with most events on their own, the rest together.{{if .Lost}} <span class="k-lost">Red lines</span>: events or buffers lost.{{end}}{{if .Damaged}} <span class="k-damaged">Orange lines</span>: damaged buffers.{{end}} Drag across any time chart to zoom (they all follow); double-click or “Reset zoom” to see the whole trace.</p>
<div class="toolbar zoombar"><button type="button" data-zoom="out">Zoom out</button><button type="button" data-zoom="reset">Reset zoom</button><span class="zoomview"></span></div>
{{$.Timeline}}
<script type="application/json" id="timeline-data">{{$.TimelineData}}</script>
<ul class="legend">{{$other := $.OtherSeries}}{{range $i, $s := .Series}}<li><i style="{{if eq $i $other}}background:#bab0ac{{else}}{{swatch $i}}{{end}}"></i>{{$s.Name}}: {{thousands $s.Events}}</li>{{end}}</ul>
{{if $.HeaderLost}}<p class="warnline">The log-file header counts {{thousands $.D.Overview.EventsLost}} lost events; no buffer or record says when they were lost.</p>{{end}}
{{if or .Lost .Damaged}}
<h3>Marked moments</h3>
<table class="sortable">
<thead><tr><th>When</th><th>What</th><th>Detail</th></tr></thead>
<tbody>{{range .Lost}}<tr><td class="num" data-v="{{.T}}">+{{printf "%.6f" .T}} s</td><td>{{.Kind}}</td><td>{{.Detail}}</td></tr>{{end}}{{range .Damaged}}<tr><td class="num" data-v="{{.T}}">+{{printf "%.6f" .T}} s</td><td>{{.Kind}}</td><td>{{.Detail}}</td></tr>{{end}}</tbody>
</table>
{{end}}
</section>
{{end}}`
