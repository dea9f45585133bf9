package report

import (
	"html/template"
	"math"
)

// providersView: the decode coverage by schema source, and every
// provider (event class) with its events, those that decoded and the
// source of their schemas.
var providersView = &view{id: "providers", title: "Providers", tmpl: providersTmpl,
	present: func(d *Data) bool { return len(d.Providers) > 0 },
	collect: func(c *collector) finisher {
		return finishFunc(func(d *Data) {
			for _, p := range c.pc.Providers() {
				d.Providers = append(d.Providers, NewProvider(&p))
			}
		})
	},
	page: func(d *Data) (any, error) {
		p := &struct {
			D           *Data
			MaxProvider int // the most events, for the table's inline bars
			Coverage    template.HTML
		}{D: d, Coverage: coverageSVG(d.Overview.Coverage)}
		for _, pr := range d.Providers {
			p.MaxProvider = max(p.MaxProvider, pr.Events)
		}
		return p, nil
	},
}

// coverageSVG draws one stacked bar of the events by schema source.
func coverageSVG(cov []Coverage) template.HTML {
	total := 0
	for _, c := range cov {
		total += c.Events
	}
	if total == 0 {
		return ""
	}
	var b svgb
	b.p(`<svg class="chart" data-chart="coverage" role="img" aria-label="decode coverage by schema source" viewBox="0 0 %d 34">`, chartWidth)
	x := 0.0
	for _, c := range cov {
		w := float64(c.Events) / float64(total) * chartWidth
		b.p(`<rect x="%s" y="2" width="%s" height="30" fill="%s"><title>%s: %s events (%s)</title></rect>`,
			num(math.Round(x*100)/100), num(math.Round(max(w, 1)*100)/100), coverageColor(c.Source), esc(c.Source), thousands(int64(c.Events)), pctf(float64(c.Events), float64(total)))
		x += w
	}
	b.p(`</svg>`)
	return b.html()
}

func coverageColor(source string) string {
	if c, ok := coverageColors[source]; ok {
		return c
	}
	return otherColor
}

var coverageColors = map[string]string{"trace": palette[0], "eventsource": palette[3], "tracelogging": palette[6],
	"built-in": palette[4], "import": palette[1], "error": palette[2]}

// providersTmpl is the section's template.
const providersTmpl = `{{if .D.Providers}}
<section id="providers" class="sect">
<h2>Providers</h2>
{{with .D.Overview}}{{if .Coverage}}
<h3>Decode coverage by schema source</h3>
{{$.Coverage}}
<ul class="legend">{{$cov := .}}{{range .Coverage}}<li><i style="{{covcolor .Source}}"></i>{{.Source}}: {{thousands .Events}} ({{pct .Events $cov.Events}})</li>{{end}}</ul>
<p class="note">trace: schemas the trace carries (relogging's TDH metadata); eventsource: manifests .NET EventSources logged; tracelogging: self-describing events; built-in: the kernel, KernelTraceControl and .NET runtime schemas this tool holds; import: files given with -import; error: a schema that does not fit the payload; none: no schema.</p>
{{end}}{{end}}
<h3>Providers and event classes</h3>
<p class="note">Each provider (each event class of the kernel and classic providers) with its events, those that decoded, and where their schemas came from, as <code>tracerpt-go providers</code> lists them. Click a column to sort.</p>
<input type="search" class="filter" data-table="prov-table" placeholder="Filter rows" aria-label="Filter providers">
<table class="sortable" id="prov-table">
<thead><tr><th>Provider</th><th>GUID</th><th>Events</th><th>Decoded</th><th>Decoded %</th><th>Source</th></tr></thead>
<tbody>{{range .D.Providers}}<tr><td>{{if .Name}}{{.Name}}{{if .Class}}/{{.Class}}{{end}}{{else}}(unknown){{end}}</td><td class="guid">{{.GUID}}</td>{{barcell .Events $.MaxProvider}}<td class="num">{{thousands .Decoded}}</td><td class="num" data-v="{{if .Events}}{{.Decoded}}{{end}}">{{pct .Decoded .Events}}</td><td>{{.Source}}</td></tr>{{end}}</tbody>
</table>
</section>
{{end}}`
