package report

import ()

// providersView: every provider (event class) with its events, those
// that decoded and the source of their schemas.
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
		}{D: d}
		for _, pr := range d.Providers {
			p.MaxProvider = max(p.MaxProvider, pr.Events)
		}
		return p, nil
	},
}

// providersTmpl is the section's template.
const providersTmpl = `{{if .D.Providers}}
<section id="providers" class="sect">
<h2>Providers</h2>
<p class="note">Each provider (each event class of the kernel and classic providers) with its events, those that decoded, and where their schemas came from, as <code>tracerpt-go providers</code> lists them. Click a column to sort.</p>
<input type="search" class="filter" data-table="prov-table" placeholder="Filter rows" aria-label="Filter providers">
<table class="sortable" id="prov-table">
<thead><tr><th>Provider</th><th>GUID</th><th>Events</th><th>Decoded</th><th>Decoded %</th><th>Source</th></tr></thead>
<tbody>{{range .D.Providers}}<tr><td>{{if .Name}}{{.Name}}{{if .Class}}/{{.Class}}{{end}}{{else}}(unknown){{end}}</td><td class="guid">{{.GUID}}</td>{{barcell .Events $.MaxProvider}}<td class="num">{{thousands .Decoded}}</td><td class="num" data-v="{{if .Events}}{{.Decoded}}{{end}}">{{pct .Decoded .Events}}</td><td>{{.Source}}</td></tr>{{end}}</tbody>
</table>
</section>
{{end}}`
