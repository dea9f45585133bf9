package report

import (
	"html/template"
	"math"

	"github.com/etwkit/etw/analysis"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
)

// netCollector aggregates the packet captures (PktMon, NDIS).
type netCollector struct {
	c     *collector
	stats *analysis.NetStats
}

func (v *netCollector) observe(ev *etl.Event, res *decode.Result) { v.stats.Observe(ev, res) }

func (v *netCollector) finish(d *Data) { d.Network = v.stats.Summary(v.c.o.MaxRows) }

// networkSVG draws the packets per bucket of time, stacked by direction,
// the drops on top.
func networkSVG(n *Network, dur float64) template.HTML {
	if len(n.Series) == 0 {
		return ""
	}
	nb := len(n.Series[0].Packets)
	peak := stackedPeak(n.Series, func(s analysis.NetSeries) []int64 { return s.Packets })
	yMax := niceMax(float64(max(peak, 1)))
	const units = 1000.0
	tc := &timeChart{name: "network", dur: max(dur, float64(nb)*n.BucketSec), left: 64, plotH: 200, plotUnits: units, yMax: yMax, yUnit: "packets per bucket"}
	var b svgb
	tc.open(&b, "packets over time by direction", nil)
	y := func(v int64) string { return num(math.Round((units-float64(v)/yMax*units)*100) / 100) }
	lower, upper := make([]int64, nb), make([]int64, nb)
	for i, s := range n.Series {
		stepArea(&b, netColor(s.Name), s.Packets, lower, upper, n.BucketSec, y, netSeriesTitle(&n.Series[i]))
	}
	tc.close(&b)
	return b.html()
}

// netColor is the colour of a series of the network chart: the drops
// in the bar charts' colour of drops.
func netColor(series string) string {
	switch series {
	case "inbound":
		return palette[0]
	case "outbound":
		return palette[4]
	case "drops":
		return seriesColor(1)
	}
	return otherColor
}

// netSeriesTitle says what a series of the network chart holds.
func netSeriesTitle(s *analysis.NetSeries) string {
	var packets, bytes int64
	for b := range s.Packets {
		packets += s.Packets[b]
		bytes += s.Bytes[b]
	}
	return s.Name + ": " + thousands(packets) + " packets (" + fmtBytes(uint64(bytes)) + ")"
}

// legendItem is one entry of a chart's legend.
type legendItem struct {
	Style template.CSS
	Text  string
}

// groupBars draws a breakdown (by component or protocol): packets
// passed and dropped.
func groupBars(name, label string, rows []analysis.NetGroup) template.HTML {
	var bars []bar
	for _, r := range rows {
		bars = append(bars, bar{Label: r.Name, Values: []float64{float64(r.Packets), float64(r.Drops)},
			Title: r.Name + "\n" + thousands(r.Packets) + " packets (" + fmtBytes(uint64(r.Bytes)) + "), " + thousands(r.Drops) + " drops"})
	}
	return barsSVG(name, label, bars, []string{"packets", "drops"}, countFmt)
}

// networkView: the packets of PktMon and NDIS captures.
var networkView = &view{id: "network", title: "Network", tmpl: networkTmpl,
	present: func(d *Data) bool { return d.Network != nil },
	collect: func(c *collector) finisher { return &netCollector{c, analysis.NewNetStats(c.axis)} },
	page: func(d *Data) (any, error) {
		n := d.Network
		var legend []legendItem
		for i := range n.Series {
			legend = append(legend, legendItem{template.CSS("background:" + netColor(n.Series[i].Name)), netSeriesTitle(&n.Series[i])})
		}
		return &struct {
			D                            *Data
			Chart, Components, Protocols template.HTML
			Legend                       []legendItem
		}{d, networkSVG(n, d.Overview.DurationSec), groupBars("net-comp", "packets by component", n.ByComponent),
			groupBars("net-proto", "packets by protocol", n.ByProtocol), legend}, nil
	},
}

// networkTmpl is the section's template.
const networkTmpl = `{{with .D.Network}}
<section id="network" class="sect">
<h2>Network</h2>
<div class="cards">
<div class="card"><b>{{thousands .Packets}}</b><span>packets ({{bytes .Bytes}})</span></div>
<div class="card{{if .Drops}} warn{{end}}"><b>{{thousands .Drops}}</b><span>drops ({{bytes .DropBytes}})</span></div>
{{if .PktMon}}<div class="card"><b>{{thousands .PktMon}}</b><span>PktMon packets</span></div>{{end}}
{{if .NDIS}}<div class="card"><b>{{thousands .NDIS}}</b><span>NDIS packets</span></div>{{end}}
{{if or .Undecodable .Incomplete .Unsupported}}<div class="card warn"><b>{{thousands .Undecodable}} / {{thousands .Incomplete}} / {{thousands .Unsupported}}</b><span>undecodable / incomplete / no link type</span></div>{{end}}
</div>
<p class="note">The packets of the trace's PktMon and NDIS packet captures, as <code>tracerpt-go pcapng</code> reads them: the packets are the ones it writes (<code>tracerpt-go pcapng TRACE.etl -o TRACE.pcapng</code>, then open the file in Wireshark; <code>--include-drops</code> adds the drops, <code>--drop-only</code> writes only them). Bytes are lengths on the wire.</p>
{{$.Chart}}
{{with $.Legend}}<ul class="legend">{{range .}}<li><i style="{{.Style}}"></i>{{.Text}}</li>{{end}}</ul>{{end}}
{{if .ByComponent}}<h3>By component</h3>{{$.Components}}{{end}}
{{if .ByProtocol}}<h3>By protocol</h3>{{$.Protocols}}{{end}}
{{with .DropReasons}}
<h3>Drops</h3>
<p class="note">PktMon's drops by reason, location (pktmon's DropLocation) and the component that dropped them.</p>
<table class="sortable">
<thead><tr><th>Reason</th><th>Location</th><th>Component</th><th>Packets</th><th>Bytes</th></tr></thead>
<tbody>{{range .}}<tr><td>{{.Reason}}</td><td class="guid">{{.Location}}</td><td>{{.Component}}</td><td class="num">{{thousands .Packets}}</td><td class="num" data-v="{{.Bytes}}">{{bytes .Bytes}}</td></tr>{{end}}</tbody>
</table>
{{end}}
{{with .Endpoints}}
<h3>Top talkers</h3>
<p class="note">Addresses and ports by bytes sent and received (each packet counts for its source and its destination; drops left out).</p>
<input type="search" class="filter" data-table="net-ends" placeholder="Filter rows" aria-label="Filter endpoints">
<table class="sortable" id="net-ends">
<thead><tr><th>Address</th><th>Port</th><th>Protocol</th><th>Packets</th><th>Bytes</th></tr></thead>
<tbody>{{range .}}<tr><td class="guid">{{.Address}}</td><td class="num">{{if .Port}}{{.Port}}{{end}}</td><td>{{.Protocol}}</td><td class="num">{{thousands .Packets}}</td><td class="num" data-v="{{.Bytes}}">{{bytes .Bytes}}</td></tr>{{end}}</tbody>
</table>
{{end}}
</section>
{{end}}`
