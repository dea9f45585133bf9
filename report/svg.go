package report

import (
	"fmt"
	"html"
	"html/template"
	"math"
	"strconv"
	"strings"
)

// The charts are SVG drawn here: they show without scripts, and the
// page's script only changes their view (zoom) and draws the flame graph.
// Every chart is 1000 units wide (its viewBox) and scales to the page.

const chartWidth = 1000

// palette is Tableau 10, a categorical palette made for charts; the last
// colour (grey) is for "other".
var palette = []string{"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f"}

const otherColor = "#bab0ac"

func seriesColor(i int) string { return palette[i%len(palette)] }

type svgb struct{ strings.Builder }

func (b *svgb) p(format string, args ...any) { fmt.Fprintf(b, format, args...) }

func (b *svgb) html() template.HTML { return template.HTML(b.String()) } // #nosec: built from escaped parts

func esc(s string) string { return html.EscapeString(s) }

// num formats a coordinate compactly.
func num(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'g', 7, 64)
}

// truncate shortens s to n runes with an ellipsis.
func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// niceStep returns a step of 1, 2 or 5 × 10^k giving about n ticks over
// span.
func niceStep(span float64, n int) float64 {
	if span <= 0 || n <= 0 {
		return 1
	}
	raw := span / float64(n)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, f := range []float64{1, 2, 5, 10} {
		if f*mag >= raw {
			return f * mag
		}
	}
	return 10 * mag
}

// niceMax rounds peak up to a whole number of its niceStep (4 ticks): the
// top of a chart's y axis.
func niceMax(peak float64) float64 {
	step := niceStep(peak, 4)
	return math.Ceil(peak/step) * step
}

// stackedPeak is the highest sum over one bucket of the series' counts
// stacked on each other.
func stackedPeak[S any, T int | int64](series []S, counts func(S) []T) T {
	var sum []T
	for _, s := range series {
		c := counts(s)
		if len(c) > len(sum) {
			sum = append(sum, make([]T, len(c)-len(sum))...)
		}
		for i, n := range c {
			sum[i] += n
		}
	}
	var peak T
	for _, n := range sum {
		peak = max(peak, n)
	}
	return peak
}

// timeLabel formats t seconds for an axis whose ticks are step apart over
// a view of span seconds (the page's script has the same rule).
func timeLabel(t, step, span float64) string {
	unit, scale := "s", 1.0
	switch {
	case span < 0.002:
		unit, scale = "µs", 1e6
	case span < 2:
		unit, scale = "ms", 1e3
	}
	dec := max(0, int(math.Ceil(-math.Log10(step*scale)-1e-9)))
	return strconv.FormatFloat(t*scale, 'f', dec, 64) + " " + unit
}

// countLabel formats an axis value (events/s, ms) on ticks step apart,
// with k/M suffixes (the page's script has the same rule).
func countLabel(v, step float64) string {
	unit, scale := "", 1.0
	switch {
	case v >= 1e6:
		unit, scale = "M", 1e6
	case v >= 1e3:
		unit, scale = "k", 1e3
	}
	dec := max(0, int(math.Ceil(-math.Log10(step/scale)-1e-9)))
	return strconv.FormatFloat(v/scale, 'f', dec, 64) + unit
}

// timeChart is the frame of a chart over the trace's time: an outer SVG
// with the axes, and a plot (a nested SVG) whose x coordinates are seconds
// from the first event and whose y coordinates run from 0 to plotUnits.
// The page's script zooms by changing the plot's viewBox and redrawing
// the x axis: everything in the plot is drawn to stretch (no text; lines
// and dots with non-scaling strokes).
type timeChart struct {
	name      string  // data-chart
	dur       float64 // seconds shown at first
	left      int     // width of the label column
	plotH     int     // plot height, px
	plotUnits float64 // y extent of the plot's coordinates
	yMax      float64 // value at the top of the plot, for the y axis (0: none)
	yUnit     string
}

const (
	tcTop    = 20
	tcAxis   = 26
	tcRight  = 16
	yTickLen = 4
)

func (tc *timeChart) plotW() int { return chartWidth - tc.left - tcRight }

// open writes the outer SVG, the axes, what extra writes (labels in the
// outer frame) and the opening of the plot.
func (tc *timeChart) open(b *svgb, label string, extra func()) {
	h := tcTop + tc.plotH + tcAxis
	b.p(`<svg class="chart tchart" data-chart="%s" data-sync="trace" role="img" aria-label="%s" viewBox="0 0 %d %d" data-dur="%s" data-px="%d" data-pw="%d" data-pt="%d" data-ph="%d" data-units="%s">`,
		tc.name, esc(label), chartWidth, h, num(tc.dur), tc.left, tc.plotW(), tcTop, tc.plotH, num(tc.plotUnits))
	// y axis
	if tc.yMax > 0 {
		step := niceStep(tc.yMax, 4)
		b.p(`<g class="yaxis">`)
		for i := 0; float64(i)*step <= tc.yMax*1.0000001; i++ {
			v := float64(i) * step
			y := float64(tcTop+tc.plotH) - v/tc.yMax*float64(tc.plotH)
			b.p(`<line x1="%d" x2="%d" y1="%s" y2="%s" class="grid"/>`, tc.left, tc.left+tc.plotW(), num(y), num(y))
			b.p(`<text x="%d" y="%s" dy="0.32em" text-anchor="end">%s</text>`, tc.left-yTickLen-2, num(y), countLabel(v, step))
		}
		if tc.yUnit != "" {
			b.p(`<text class="unit" x="4" y="%d">%s</text>`, tcTop-8, esc(tc.yUnit))
		}
		b.p(`</g>`)
	}
	// x axis (the script redraws it on zoom)
	b.p(`<g class="xaxis">`)
	step := niceStep(tc.dur, 8)
	for i := 0; float64(i)*step <= tc.dur*1.0000001; i++ {
		t := float64(i) * step
		x := float64(tc.left) + t/tc.dur*float64(tc.plotW())
		b.p(`<line x1="%s" x2="%s" y1="%d" y2="%d"/>`, num(x), num(x), tcTop+tc.plotH, tcTop+tc.plotH+yTickLen)
		anchor := "middle"
		if x > float64(tc.left+tc.plotW()-24) {
			anchor = "end"
		}
		b.p(`<text x="%s" y="%d" dy="0.9em" text-anchor="%s">%s</text>`, num(x), tcTop+tc.plotH+yTickLen+1, anchor, timeLabel(t, step, tc.dur))
	}
	b.p(`</g>`)
	b.p(`<rect class="frame" x="%d" y="%d" width="%d" height="%d"/>`, tc.left, tcTop, tc.plotW(), tc.plotH)
	if extra != nil {
		extra()
	}
	b.p(`<svg class="plot" x="%d" y="%d" width="%d" height="%d" viewBox="0 0 %s %s" preserveAspectRatio="none">`,
		tc.left, tcTop, tc.plotW(), tc.plotH, num(tc.dur), num(tc.plotUnits))
}

func (tc *timeChart) close(b *svgb) {
	b.p(`</svg><rect class="sel" x="0" y="%d" width="0" height="%d"/></svg>`, tcTop, tc.plotH)
}

// marker draws a vertical line across the plot at t.
func (tc *timeChart) marker(b *svgb, t float64, class, title string) {
	b.p(`<line class="%s" x1="%s" x2="%s" y1="0" y2="%s" vector-effect="non-scaling-stroke"><title>%s</title></line>`,
		class, num(t), num(t), num(tc.plotUnits), esc(title))
}

// bar is one row of a horizontal bar chart: stacked values.
type bar struct {
	Label  string
	Values []float64
	Title  string
	Color  string // of a single-value bar, instead of the series colour
}

// barsSVG draws a horizontal bar chart; series name the stacked values
// (legend), format writes a row's total.
func barsSVG(name, label string, bars []bar, series []string, format func(float64) string) template.HTML {
	const row, left, right = 22, 330, 110
	if len(bars) == 0 {
		return ""
	}
	peak := 0.0
	for _, br := range bars {
		t := 0.0
		for _, v := range br.Values {
			t += v
		}
		peak = max(peak, t)
	}
	if peak == 0 {
		peak = 1
	}
	legend := 0
	if len(series) > 1 {
		legend = 22
	}
	h := legend + row*len(bars) + 4
	w := float64(chartWidth - left - right)
	var b svgb
	b.p(`<svg class="chart bars" data-chart="%s" role="img" aria-label="%s" viewBox="0 0 %d %d">`, name, esc(label), chartWidth, h)
	if legend > 0 {
		x := left
		for i, s := range series {
			b.p(`<rect x="%d" y="4" width="12" height="12" fill="%s"/><text x="%d" y="10" dy="0.32em">%s</text>`, x, seriesColor(i), x+16, esc(s))
			x += 30 + 8*len([]rune(s))
		}
	}
	for i, br := range bars {
		y := legend + i*row
		title := br.Title
		if title == "" {
			title = br.Label
		}
		b.p(`<g><title>%s</title>`, esc(title))
		b.p(`<text x="%d" y="%d" dy="0.32em" text-anchor="end">%s</text>`, left-8, y+row/2, esc(truncate(br.Label, 46)))
		x, total := float64(left), 0.0
		for si, v := range br.Values {
			if v <= 0 {
				continue
			}
			bw := v / peak * w
			col := seriesColor(si)
			if br.Color != "" {
				col = br.Color
			}
			b.p(`<rect x="%s" y="%d" width="%s" height="%d" fill="%s"/>`, num(math.Round(x*100)/100), y+3, num(math.Round(max(bw, 1)*100)/100), row-6, col)
			x += bw
			total += v
		}
		b.p(`<text class="value" x="%s" y="%d" dy="0.32em">%s</text></g>`, num(math.Round((x+6)*100)/100), y+row/2, esc(format(total)))
	}
	b.p(`</svg>`)
	return b.html()
}

// stepArea draws one series of a stacked step chart, counts per bucket
// of bucketSec seconds (y gives a value's plot coordinate), titled
// title, on top of lower, the sums of the series below, which it then
// raises by counts (upper is scratch of the same length): the area along
// the upper edge forwards and the lower edge back.
func stepArea[T int | int64](b *svgb, col string, counts, lower, upper []T, bucketSec float64, y func(T) string, title string) {
	for i, n := range counts {
		upper[i] = lower[i] + n
	}
	b.p(`<path class="area" fill="%s" d="M0 %s`, col, y(lower[0]))
	for i := range upper {
		b.p(`V%sH%s`, y(upper[i]), num(float64(i+1)*bucketSec))
	}
	for i := len(lower) - 1; i >= 0; i-- {
		b.p(`V%sH%s`, y(lower[i]), num(float64(i)*bucketSec))
	}
	b.p(`Z"><title>%s</title></path>`, esc(title))
	copy(lower, upper)
}
