package report

import (
	"bufio"
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/etwkit/etw/internal/panicerr"
)

//go:embed assets/report.html.tmpl
var pageTemplate string

//go:embed assets/report.css
var pageCSS string

//go:embed assets/report.js
var pageJS string

//go:embed assets/errors.js
var errorsJS string

//go:embed assets/profile.js
var profileJS string

//go:embed assets/range.js
var rangeJS string

// tmpl is the page template with the views' templates (named by their
// ids), parsed on first use (not at every start of
// the program that links the package).
var tmpl = sync.OnceValue(func() *template.Template {
	t := template.Must(template.New("report").Funcs(template.FuncMap{
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
	for _, v := range views {
		template.Must(t.New(v.id).Parse(v.tmpl))
	}
	return t
})

// section is a tab of the page.
type section struct{ ID, Title string }

// page is what the page's head and foot read.
type page struct {
	D        *Data
	Sections []section // the tabs: the views with data
	CSS      template.CSS
	JS       template.JS
	Errors   template.JS
	Profile  template.JS // the profile's views: flame graph, call tree, callers and callees
	Range    template.JS // the other views that follow the time range
}

// WriteHTML writes the report as one self-contained HTML page: styles,
// script and data inline, no network access (a Content-Security-Policy
// forbids any), readable from file://. The page is its head (with the
// tabs), each view's section (a blank line between them, for views
// without data too, up to the last view with data) and its foot.
func (d *Data) WriteHTML(w io.Writer) error {
	p := &page{D: d, CSS: template.CSS(pageCSS), JS: template.JS(pageJS), Errors: template.JS(errorsJS), Profile: template.JS(profileJS), Range: template.JS(rangeJS)}
	views := d.pageViews()
	for _, v := range views {
		if v.present(d) {
			p.Sections = append(p.Sections, section{v.id, v.title})
		}
	}
	t := tmpl()
	last := -1 // the last view with data: no blank lines after it
	for i, v := range views {
		if v.present(d) {
			last = i
		}
	}
	sections := renderSections(t, d, views[:last+1])
	bw := bufio.NewWriterSize(w, 64<<10)
	if err := t.ExecuteTemplate(bw, "head", p); err != nil {
		return err
	}
	for i := range sections {
		if i > 0 {
			bw.WriteString("\n\n")
		}
		if err := sections[i].err; err != nil {
			return err
		}
		bw.Write(sections[i].html.Bytes())
	}
	if err := t.ExecuteTemplate(bw, "foot", p); err != nil {
		return err
	}
	return bw.Flush()
}

// renderedSection is a view's section rendered, or why it could not be
// (nothing for a view without data).
type renderedSection struct {
	html bytes.Buffer
	err  error
}

// renderSections renders the sections of views (those present) at once,
// on up to GOMAXPROCS goroutines: a view's page reads d and makes its own
// charts. Writing the page is the report's last step, which runs alone:
// 15.9–17.2 ms of net.4.5.2's ~180 on two processors when the sections
// were rendered one after another, 12.1–12.6 so (BenchmarkWriteHTMLNet).
// The page is 1.5 MB there; a section is bounded as its view's tables and
// charts are.
func renderSections(t *template.Template, d *Data, views []*view) []renderedSection {
	out := make([]renderedSection, len(views))
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i, v := range views {
		if !v.present(d) {
			continue
		}
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			r := &out[i]
			defer panicerr.Recover(&r.err) // returned by WriteHTML
			data, err := v.page(d)
			if err == nil {
				err = t.ExecuteTemplate(&r.html, v.id, data)
			}
			r.err = err
		})
	}
	wg.Wait()
	return out
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
