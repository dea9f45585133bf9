package report

import (
	"fmt"
	"html"
	"html/template"
	"strings"

	"github.com/etwkit/etw/analysis"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
)

// Threads is the thread time of a trace with context switches (kernel
// CSwitch and ReadyThread events): precise CPU per process and thread,
// and the states over time of the top threads.
type Threads struct {
	// ContextSwitches and ReadyThreads count the events read.
	ContextSwitches int `json:"context_switches"`
	ReadyThreads    int `json:"ready_threads"`
	// Processes is the precise CPU (running time) per process, idle
	// left out, most first, at most MaxRows.
	Processes []ThreadProcess `json:"processes"`
	// Threads are the threads with the most running time, at most
	// MaxRows, with their states over time (at most maxThreadStates).
	Threads []ThreadRow `json:"threads"`
}

// ThreadProcess is a process's precise CPU time.
type ThreadProcess struct {
	PID       uint32  `json:"pid"`
	Name      string  `json:"name"`
	RunningMS float64 `json:"running_ms"`
	Threads   int     `json:"threads"`
}

// ThreadRow is one thread's time by state, and its states over time.
type ThreadRow struct {
	TID       uint32        `json:"tid"`
	PID       uint32        `json:"pid"`
	Process   string        `json:"process"`
	RunningMS float64       `json:"running_ms"`
	ReadyMS   float64       `json:"ready_ms"`
	WaitingMS float64       `json:"waiting_ms"`
	Switches  int           `json:"switches"`
	States    []ThreadState `json:"states"`
	// StatesDropped counts the intervals beyond the bound.
	StatesDropped int `json:"states_dropped,omitempty"`
}

// ThreadState is one interval of a thread's state, in ms from the
// trace's first event; a wait names its reason and the thread that
// readied it (absent when no ReadyThread event did).
type ThreadState struct {
	StartMS    float64 `json:"start_ms"`
	EndMS      float64 `json:"end_ms"`
	State      string  `json:"state"`
	WaitReason string  `json:"wait_reason,omitempty"`
	Readier    *uint32 `json:"readier_tid,omitempty"`
}

// maxThreadStates bounds the intervals each thread shows.
const maxThreadStates = 2000

// threadsCollector runs the thread-time pass.
type threadsCollector struct {
	c  *collector
	tt *analysis.ThreadTime
}

func (v *threadsCollector) observe(ev *etl.Event, res *decode.Result) { v.tt.Observe(ev, res) }

func (v *threadsCollector) finish(d *Data) {
	cs, rd := v.tt.Switches()
	if cs == 0 {
		return
	}
	max := v.c.o.MaxRows
	t := &Threads{ContextSwitches: cs, ReadyThreads: rd, Processes: []ThreadProcess{}, Threads: []ThreadRow{}}
	for i, p := range v.tt.Processes() {
		if i == max {
			break
		}
		t.Processes = append(t.Processes, ThreadProcess{PID: p.PID, Name: p.Name, RunningMS: ftMS(p.Running), Threads: p.Threads})
	}
	for _, th := range v.tt.Threads(max) {
		r := ThreadRow{TID: th.TID, PID: th.PID, RunningMS: ftMS(th.Running), ReadyMS: ftMS(th.Ready), WaitingMS: ftMS(th.Waiting),
			Switches: th.Switches, States: []ThreadState{}, StatesDropped: th.DroppedIntervals}
		if p := v.c.m.ProcessAt(th.PID, v.c.m.End()); p != nil {
			r.Process = p.Name
		}
		for i, iv := range th.Intervals {
			if i == maxThreadStates {
				r.StatesDropped += len(th.Intervals) - i
				break
			}
			s := ThreadState{StartMS: ftMS(iv.Start - v.c.axis.Start), EndMS: ftMS(iv.End - v.c.axis.Start), State: iv.State.String()}
			if iv.State == analysis.StateWaiting {
				s.WaitReason = analysis.WaitReasonName(iv.WaitReason)
				if iv.ReadierTID != analysis.NoID {
					tid := iv.ReadierTID
					s.Readier = &tid
				}
			}
			r.States = append(r.States, s)
		}
		t.Threads = append(t.Threads, r)
	}
	d.Threads = t
}

// ftMS converts FILETIME units (100 ns) to ms.
func ftMS(ft int64) float64 { return float64(ft) / 1e4 }

// threadStatesSVG draws the states over time of the top threads: one
// row each, running green, ready amber, waiting grey.
func threadStatesSVG(t *Threads, durMS float64) template.HTML {
	const rowH, labelW, width = 18, 220, 1100
	if durMS <= 0 {
		durMS = 1
	}
	rows := min(len(t.Threads), 12)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="chart" id="thread-states" viewBox="0 0 %d %d" width="100%%" role="img" aria-label="thread states over time">`, width, rows*rowH+20)
	colors := map[string]string{"running": "#2e9d4f", "ready": "#e0a526", "waiting": "#c8ccd2"}
	scale := float64(width-labelW-10) / durMS
	for i, th := range t.Threads[:rows] {
		y := i * rowH
		fmt.Fprintf(&b, `<text x="4" y="%d" font-size="11">%s</text>`, y+13, html.EscapeString(fmt.Sprintf("%s (%d) tid %d", th.Process, th.PID, th.TID)))
		for _, s := range th.States {
			w := max((s.EndMS-s.StartMS)*scale, 0.5)
			title := fmt.Sprintf("%s %s–%s ms", s.State, fmtMS(s.StartMS), fmtMS(s.EndMS))
			if s.WaitReason != "" {
				title += " · " + s.WaitReason
			}
			if s.Readier != nil {
				title += fmt.Sprintf(" · readied by tid %d", *s.Readier)
			}
			fmt.Fprintf(&b, `<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s"><title>%s</title></rect>`,
				float64(labelW)+s.StartMS*scale, y+3, w, rowH-6, colors[s.State], html.EscapeString(title))
		}
	}
	for i, st := range []string{"running", "ready", "waiting"} {
		x := labelW + i*90
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="12" height="10" fill="%s"/><text x="%d" y="%d" font-size="11">%s</text>`,
			x, rows*rowH+6, colors[st], x+16, rows*rowH+15, st)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// threadsView: thread time from context switches.
var threadsView = &view{id: "threads", title: "Threads", tmpl: threadsTmpl,
	present: func(d *Data) bool { return d.Threads != nil },
	collect: func(c *collector) finisher { return &threadsCollector{c, analysis.NewThreadTime(c.m, 0)} },
	page: func(d *Data) (any, error) {
		return &struct {
			D      *Data
			States template.HTML
		}{d, threadStatesSVG(d.Threads, d.Overview.DurationSec*1e3)}, nil
	},
}

// threadsTmpl is the section's template.
const threadsTmpl = `{{with .D.Threads}}
<section id="threads" class="sect">
<h2>Thread time (context switches)</h2>
<p class="note">From {{thousands .ContextSwitches}} kernel context switches (CSwitch) and {{thousands .ReadyThreads}} ReadyThread events: CPU Usage (Precise) is each thread's time from switch-in to switch-out; a wait ends when another thread readies it.</p>
<h3>States over time (top threads)</h3>{{$.States}}
<h3>Precise CPU by process</h3>
<table class="sortable">
<thead><tr><th>Process</th><th>PID</th><th>Running ms</th><th>Threads</th></tr></thead>
<tbody>{{range .Processes}}<tr><td>{{.Name}}</td><td class="num">{{.PID}}</td><td class="num">{{ms .RunningMS}}</td><td class="num">{{.Threads}}</td></tr>{{end}}</tbody>
</table>
<h3>Threads</h3>
<table class="sortable">
<thead><tr><th>Thread</th><th>Process</th><th>Running ms</th><th>Ready ms</th><th>Waiting ms</th><th>Switches</th></tr></thead>
<tbody>{{range .Threads}}<tr><td class="num">{{.TID}}</td><td>{{.Process}} ({{.PID}})</td><td class="num">{{ms .RunningMS}}</td><td class="num">{{ms .ReadyMS}}</td><td class="num">{{ms .WaitingMS}}</td><td class="num">{{.Switches}}</td></tr>{{end}}</tbody>
</table>
</section>
{{end}}`
