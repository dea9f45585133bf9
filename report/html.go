package report

import (
	"bufio"
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"math"
	"strconv"
	"strings"
	"sync"
)

//go:embed assets/report.html.tmpl
var pageTemplate string

//go:embed assets/report.css
var pageCSS string

//go:embed assets/report.js
var pageJS string

//go:embed assets/errors.js
var errorsJS string

// tmpl is the page template, parsed on first use (not at every start of
// the program that links the package).
var tmpl = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report").Funcs(template.FuncMap{
		"thousands": func(v any) string {
			switch n := v.(type) {
			case int:
				return thousands(int64(n))
			case int64:
				return thousands(n)
			case uint32:
				return thousands(int64(n))
			case uint64:
				return thousands(int64(n))
			}
			return fmt.Sprint(v)
		},
		"bytes":    func(v any) string { return fmtBytes(uint64(toFloat(v))) },
		"ms":       fmtMS,
		"sec":      fmtSec,
		"width":    fmtWidth,
		"pct":      pct,
		"reltime":  relTime,
		"barcell":  barCell,
		"covcolor": func(s string) template.CSS { return template.CSS("background:" + coverageColor(s)) },
		"swatch":   func(i int) template.CSS { return template.CSS("background:" + seriesColor(i)) },
		"avg": func(total float64, n int) float64 {
			if n == 0 {
				return 0
			}
			return total / float64(n)
		},
		"hex": func(v any) string {
			switch n := v.(type) {
			case int64:
				return fmt.Sprintf("%#x", n)
			case *int64:
				return fmt.Sprintf("%#x", *n)
			}
			return fmt.Sprint(v)
		},
		"add": func(a, b int) int { return a + b },
	}).Parse(pageTemplate))
})

// section is a tab of the page.
type section struct{ ID, Title string }

// page is what the template reads.
type page struct {
	D        *Data
	Sections []section
	CSS      template.CSS
	JS       template.JS
	Errors   template.JS
	// Flame is the flame-graph tree as JSON for the script; TimelineData
	// the timeline's counts (timelineJS), which the script redraws when
	// zoomed.
	Flame, TimelineData template.JS
	// Charts drawn in Go.
	Timeline, Coverage, Gantt, CPUBars, GC, Gens, Alloc, JIT template.HTML
	DiskProc, DiskFile, FileProc, FileFile                   template.HTML
	// Largest values, for the tables' inline bars.
	MaxEvents, MaxSamples, MaxProvider int
	HeaderLost                         bool // the headers count lost events the timeline cannot place
	OtherSeries                        int  // index of the "other providers" series, -1 if none
}

// WriteHTML writes the report as one self-contained HTML page: styles,
// script and data inline, no network access (a Content-Security-Policy
// forbids any), readable from file://.
func (d *Data) WriteHTML(w io.Writer) error {
	p := &page{D: d, CSS: template.CSS(pageCSS), JS: template.JS(pageJS), Errors: template.JS(errorsJS), OtherSeries: -1}
	p.Sections = append(p.Sections, section{"overview", "Overview"})
	p.Coverage = coverageSVG(d.Overview.Coverage)
	dur := max(d.Overview.DurationSec, 1e-6)
	if tl := d.Timeline; tl != nil {
		p.Sections = append(p.Sections, section{"timeline", "Timeline"})
		p.Timeline = timelineSVG(tl, dur)
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
			return err
		}
		p.TimelineData = template.JS(b)
	}
	if ps := d.Processes; ps != nil {
		p.Sections = append(p.Sections, section{"processes", "Processes"})
		p.Gantt = ganttSVG(ps.List, dur)
		var bars []bar
		for _, pr := range topBy(ps.List, 20, func(p Process) float64 { return float64(p.CPUSamples) }) {
			bars = append(bars, bar{Label: fmt.Sprintf("%s (%d)", pr.Name, pr.PID), Values: []float64{float64(pr.CPUSamples)}})
		}
		p.CPUBars = barsSVG("cpu-bars", "CPU samples by process", bars, []string{"CPU samples"}, countFmt)
		for _, pr := range ps.List {
			p.MaxEvents = max(p.MaxEvents, pr.Events)
			p.MaxSamples = max(p.MaxSamples, pr.CPUSamples)
		}
	}
	if d.CPU != nil {
		p.Sections = append(p.Sections, section{"cpu", "CPU"})
		b, err := json.Marshal(d.CPU.Root) // escapes <, > and & for the script element
		if err != nil {
			return err
		}
		p.Flame = template.JS(b)
	}
	if dn := d.DotNet; dn != nil {
		p.Sections = append(p.Sections, section{"dotnet", ".NET"})
		if len(dn.GCs) > 0 {
			p.GC = gcSVG(dn.GCs, dur)
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
	}
	if io := d.IO; io != nil {
		p.Sections = append(p.Sections, section{"io", "I/O"})
		p.DiskProc, p.DiskFile = ioBars("disk", io.Disk)
		p.FileProc, p.FileFile = ioBars("file", io.File)
	}
	if len(d.Providers) > 0 {
		p.Sections = append(p.Sections, section{"providers", "Providers"})
		for _, pr := range d.Providers {
			p.MaxProvider = max(p.MaxProvider, pr.Events)
		}
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	if err := tmpl().Execute(bw, p); err != nil {
		return err
	}
	return bw.Flush()
}

// genColors are the colours of GC generations 0, 1 and 2 (as in the
// stylesheet's dots).
var genColors = []string{palette[0], palette[1], palette[2]}

// timelineJS is what the script needs to redraw the timeline.
type timelineJS struct {
	BucketSec float64  `json:"bucket_sec"`
	Colors    []string `json:"colors"`
	Names     []string `json:"names"`
	Counts    [][]int  `json:"counts"`
	Detail    []Detail `json:"detail"`
}

func ioBars(kind string, s *IOSummary) (byProc, byFile template.HTML) {
	if s == nil {
		return "", ""
	}
	mk := func(rows []IORow, path bool) []bar {
		var bars []bar
		for _, r := range rows {
			label := r.Name
			if path {
				label = shortPath(r.Name)
			}
			title := fmt.Sprintf("%s\nread %s in %s operations, written %s in %s", r.Name, fmtBytes(r.ReadBytes), thousands(int64(r.Reads)),
				fmtBytes(r.WriteBytes), thousands(int64(r.Writes)))
			if r.Timed > 0 {
				title += fmt.Sprintf("\nlatency: average %s ms, longest %s ms", fmtMS(r.LatencyMS/float64(r.Timed)), fmtMS(r.MaxMS))
			}
			bars = append(bars, bar{Label: label, Values: []float64{float64(r.ReadBytes), float64(r.WriteBytes)}, Title: title})
		}
		return bars
	}
	f := func(v float64) string { return fmtBytes(uint64(v)) }
	series := []string{"read", "written"}
	return barsSVG(kind+"-proc", kind+" I/O bytes by process", mk(s.ByProcess, false), series, f),
		barsSVG(kind+"-file", kind+" I/O bytes by file", mk(s.ByFile, true), series, f)
}

// shortPath keeps the end of a long path, where the file name is.
func shortPath(p string) string {
	r := []rune(p)
	if len(r) <= 46 {
		return p
	}
	return "…" + string(r[len(r)-45:])
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

func countFmt(v float64) string { return thousands(int64(v)) }

// thousands writes n with comma separators.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

func fmtBytes(n uint64) string {
	const unit = 1024
	if n < unit {
		return strconv.FormatUint(n, 10) + " B"
	}
	v, i := float64(n), 0
	for v >= unit && i < 4 {
		v /= unit
		i++
	}
	return strconv.FormatFloat(v, 'f', 1, 64) + " " + []string{"B", "KiB", "MiB", "GiB", "TiB"}[i]
}

func fmtMS(v float64) string {
	switch {
	case v == 0:
		return "0"
	case v >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
}

// fmtSec formats a duration in seconds for people.
func fmtSec(v float64) string {
	switch {
	case v >= 3600:
		return fmt.Sprintf("%dh%02dm%04.1fs", int(v/3600), int(math.Mod(v, 3600)/60), math.Mod(v, 60))
	case v >= 60:
		return fmt.Sprintf("%dm%05.2fs", int(v/60), math.Mod(v, 60))
	case v >= 1:
		return strconv.FormatFloat(v, 'f', 3, 64) + " s"
	case v >= 1e-3:
		return strconv.FormatFloat(v*1e3, 'f', 3, 64) + " ms"
	}
	return strconv.FormatFloat(v*1e6, 'f', 1, 64) + " µs"
}

// fmtWidth formats a bucket width (1, 2 or 5 × 10^k × 100 ns) with no
// trailing zeros (the page's script has the same rule).
func fmtWidth(v float64) string {
	switch {
	case v >= 1:
		return strconv.FormatFloat(v, 'f', -1, 64) + " s"
	case v >= 1e-3:
		return strconv.FormatFloat(math.Round(v*1e7)/1e4, 'f', -1, 64) + " ms"
	}
	return strconv.FormatFloat(math.Round(v*1e7)/10, 'f', -1, 64) + " µs"
}

// pct formats part/whole as a percentage; the template passes ints and
// floats.
func pct(a, b any) string { return pctf(toFloat(a), toFloat(b)) }

func toFloat(v any) float64 {
	switch n := v.(type) {
	case int:
		return float64(n)
	case int64:
		return float64(n)
	case uint64:
		return float64(n)
	case float64:
		return n
	}
	return math.NaN()
}

func pctf(part, whole float64) string {
	if whole == 0 {
		return "0 %"
	}
	v := part / whole * 100
	if v > 0 && v < 0.1 {
		return "<0.1 %"
	}
	return strconv.FormatFloat(v, 'f', 1, 64) + " %"
}

func relTime(t *float64, unknown string) string {
	if t == nil {
		return unknown
	}
	return "+" + strconv.FormatFloat(*t, 'f', 3, 64) + " s"
}

// barCell is a numeric table cell with an inline bar (width relative to
// the column's largest value) and the value to sort on.
func barCell(v, maxv int) template.HTML {
	w := 0.0
	if maxv > 0 {
		w = math.Round(float64(v)/float64(maxv)*1000) / 10
	}
	return template.HTML(fmt.Sprintf(`<td class="num bar" data-v="%d"><span class="ibar" style="width:%s%%"></span><span class="iv">%s</span></td>`,
		v, strconv.FormatFloat(w, 'f', -1, 64), thousands(int64(v))))
}
