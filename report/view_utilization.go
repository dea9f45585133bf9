package report

import (
	"fmt"
	"html/template"
	"math"
)

// maxUtilSeries is how many processes the CPU utilisation names; the
// others are added up in one series.
const maxUtilSeries = 10

// CPUUtilization is the CPU samples by process and time bucket (the
// timeline's buckets): the idle thread's samples are left out, so the
// series add up to the non-idle CPU samples (and those taken in DPCs and
// interrupts), the flame graph's total.
type CPUUtilization struct {
	BucketSec float64 `json:"bucket_sec"`
	// CPUs is the number of processors (the first file's header).
	CPUs uint32 `json:"cpus"`
	// IntervalMS is the sampling interval the trace logs, in ms, and
	// IntervalFrom the event it came from; both absent when the trace
	// logs none (the page then shows samples, not % or ms).
	IntervalMS   float64 `json:"interval_ms,omitempty"`
	IntervalFrom string  `json:"interval_from,omitempty"`
	// Series are the processes with the most samples first, then one
	// series (pid -1) that adds up the others.
	Series []UtilSeries `json:"series"`
}

// UtilSeries is one process's CPU samples per bucket.
type UtilSeries struct {
	// PID is -1 for the series of the other processes.
	PID     int64   `json:"pid"`
	Name    string  `json:"name"`
	Samples []int64 `json:"samples"`
	Total   int64   `json:"total"`
}

func (c *collector) utilization(d *Data) {
	if c.usage == nil || c.usage.Total() == 0 {
		return
	}
	u := &CPUUtilization{BucketSec: float64(c.axis.Width) / 1e7}
	if len(c.files) > 0 {
		u.CPUs = c.files[0].Header.NumberOfProcessors
	}
	if iv, from := c.usage.Interval(); iv > 0 {
		u.IntervalMS, u.IntervalFrom = float64(iv.Microseconds())/1000, from
	}
	all := c.usage.Series()
	for i, s := range all {
		if i < maxUtilSeries || len(all) == maxUtilSeries+1 {
			u.Series = append(u.Series, UtilSeries{PID: int64(s.PID), Name: s.Name, Samples: s.Samples, Total: s.Total})
			continue
		}
		if i == maxUtilSeries {
			u.Series = append(u.Series, UtilSeries{PID: -1, Name: fmt.Sprintf("%d other processes", len(all)-maxUtilSeries), Samples: make([]int64, len(s.Samples))})
		}
		o := &u.Series[maxUtilSeries]
		for b, n := range s.Samples {
			o.Samples[b] += n
		}
		o.Total += s.Total
	}
	d.CPUUtilization = u
}

// capacity is the samples all processors give in one bucket (0 without
// the interval or the processors).
func (u *CPUUtilization) capacity() float64 {
	if u.IntervalMS <= 0 || u.CPUs == 0 {
		return 0
	}
	return float64(u.CPUs) * u.BucketSec * 1000 / u.IntervalMS
}

// utilizationSVG draws the series stacked (the largest at the bottom):
// in % of all processors when the interval is known, the headroom above
// being idle; in samples per bucket otherwise.
func utilizationSVG(u *CPUUtilization, dur float64) template.HTML {
	nb := len(u.Series[0].Samples)
	capa := u.capacity()
	val := func(n int64) float64 {
		if capa > 0 {
			return float64(n) / capa * 100
		}
		return float64(n)
	}
	yMax, unit := 100.0, "% of all processors"
	if capa == 0 {
		peak := stackedPeak(u.Series, func(s UtilSeries) []int64 { return s.Samples })
		yMax, unit = niceMax(float64(max(peak, 1))), "samples per bucket"
	}
	const units = 1000.0
	tc := &timeChart{name: "cpuutil", dur: max(dur, float64(nb)*u.BucketSec), left: 64, plotH: 260, plotUnits: units, yMax: yMax, yUnit: unit}
	var b svgb
	tc.open(&b, "CPU utilisation by process", nil)
	y := func(n int64) string { return num(math.Round((units-val(n)/yMax*units)*100) / 100) }
	lower := make([]int64, nb)
	upper := make([]int64, nb)
	for si, s := range u.Series {
		col := seriesColor(si)
		if s.PID == -1 {
			col = otherColor
		}
		stepArea(&b, col, s.Samples, lower, upper, u.BucketSec, y, s.Name+": "+u.weight(s.Total))
	}
	tc.close(&b)
	return b.html()
}

// weight writes n samples with their time when the interval is known.
func (u *CPUUtilization) weight(n int64) string {
	if u.IntervalMS <= 0 {
		return thousands(n) + " samples"
	}
	return fmt.Sprintf("%s samples, %s ms", thousands(n), thousands(int64(math.Round(float64(n)*u.IntervalMS))))
}

// utilizationView: the CPU utilisation over time by process, first
// after the overview.
var utilizationView = &view{id: "cpuutil", title: "CPU use", tmpl: utilizationTmpl,
	present: func(d *Data) bool { return d.CPUUtilization != nil },
	collect: func(c *collector) finisher { return finishFunc(c.utilization) },
	page: func(d *Data) (any, error) {
		u := d.CPUUtilization
		type row struct {
			Color, Name, Weight, Share string
		}
		var total int64
		for _, s := range u.Series {
			total += s.Total
		}
		var rows []row
		for i, s := range u.Series {
			col := seriesColor(i)
			if s.PID == -1 {
				col = otherColor
			}
			share := pctf(float64(s.Total), float64(total)) + " of the CPU samples"
			if capa := u.capacity() * float64(len(s.Samples)); capa > 0 {
				share = pctf(float64(s.Total), capa) + " of all processors"
			}
			rows = append(rows, row{col, s.Name, u.weight(s.Total), share})
		}
		busy, _ := u.summary(0)
		return &struct {
			D     *Data
			Chart template.HTML
			Rows  []row
			Busy  string
			Total string
		}{d, utilizationSVG(u, max(d.Overview.DurationSec, 1e-6)), rows, busy, u.weight(total)}, nil
	},
}

// utilizationTmpl is the section's template.
const utilizationTmpl = `{{with .D.CPUUtilization}}
<section id="cpuutil" class="sect">
<h2>CPU utilisation by process</h2>
<p class="note">{{$.Total}} of CPU sampled outside the idle thread (except its DPCs and interrupts){{if $.Busy}}: {{$.Busy}} of {{.CPUs}} processors busy on average; the space above the areas is idle{{end}}. {{if .IntervalFrom}}Sampling interval {{.IntervalMS}} ms ({{.IntervalFrom}}).{{else}}The trace logs no sampling interval: samples are shown, not time or %.{{end}}</p>
{{$.Chart}}
<table class="sortable"><thead><tr><th></th><th>Process</th><th>CPU</th><th>Share</th></tr></thead><tbody>
{{range $.Rows}}<tr><td><i class="swatch" style="background:{{.Color}}"></i></td><td>{{.Name}}</td><td class="num">{{.Weight}}</td><td class="num">{{.Share}}</td></tr>{{end}}
</tbody></table>
</section>
{{end}}`

// summary returns the processors' busy share over the trace ("" without
// the interval) and the n processes with most CPU, each with its share
// of the CPU samples and its time; nothing for a nil u.
func (u *CPUUtilization) summary(n int) (busy string, top []string) {
	if u == nil {
		return "", nil
	}
	var total int64
	for _, s := range u.Series {
		total += s.Total
	}
	if capa := u.capacity() * float64(len(u.Series[0].Samples)); capa > 0 {
		busy = pctf(float64(total), capa)
	}
	for _, s := range u.Series {
		if len(top) == n || s.PID == -1 {
			break
		}
		top = append(top, fmt.Sprintf("%s %s (%s)", s.Name, pctf(float64(s.Total), float64(total)), u.weight(s.Total)))
	}
	return busy, top
}
