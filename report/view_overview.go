package report

import (
	"errors"

	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
)

// overviewCollector counts the events per file and by the source of
// their schemas.
type overviewCollector struct {
	c          *collector
	fileEvents []int
	fileTypes  [][256]int // per file, records by header type
	fileFirst  []int64
	fileLast   []int64
	cov        [numCoverage]int
}

func (v *overviewCollector) observe(ev *etl.Event, res *decode.Result) {
	i := ev.File
	v.fileEvents[i]++
	v.fileTypes[i][ev.Header]++
	if v.fileFirst[i] == 0 || ev.Time < v.fileFirst[i] {
		v.fileFirst[i] = ev.Time
	}
	v.fileLast[i] = max(v.fileLast[i], ev.Time)
	switch {
	case res == nil || res.Schema == nil:
		if res != nil && res.Err != nil {
			v.cov[covError]++
		} else {
			v.cov[covNone]++
		}
	case res.Err != nil:
		v.cov[covError]++
	default:
		v.cov[coverageOf(res.Origin.Kind)]++
	}
}

// Coverage kinds, in the order the overview lists them: the schemas'
// origins ([decode.Origin.Kind]), decoding errors, no schema. covOther
// counts origins the report does not know (not listed).
const (
	covTrace = iota
	covEventSource
	covTraceLogging
	covBuiltIn
	covImport
	covError
	covNone
	covOther
	numCoverage
)

// coverageNames names the listed coverage kinds.
var coverageNames = [covOther]string{"trace", "eventsource", "tracelogging", "built-in", "import", "error", "none"}

// coverageOf returns the coverage kind of a schema's origin.
func coverageOf(kind string) int {
	switch kind {
	case "trace":
		return covTrace
	case "eventsource":
		return covEventSource
	case "tracelogging":
		return covTraceLogging
	case "built-in":
		return covBuiltIn
	case "import":
		return covImport
	}
	return covOther
}

func (v *overviewCollector) finish(d *Data) {
	c := v.c
	ov := &d.Overview
	ov.Files = []FileFacts{}
	for i, f := range c.files {
		h := &f.Header
		st := etl.Stats{Events: v.fileEvents[i], HeaderTypes: map[etl.HeaderType]int{}, FirstTime: v.fileFirst[i], LastTime: v.fileLast[i]}
		for t, n := range v.fileTypes[i] {
			if n > 0 {
				st.HeaderTypes[etl.HeaderType(t)] = n
			}
		}
		for _, b := range f.Buffers() {
			st.Buffers++
			if b.Header.Compressed() {
				st.CompressedBuffers++
			}
		}
		ff := NewFileFacts(fileName(c.files, c.o, i), f, &st)
		ov.Files = append(ov.Files, ff)
		ov.Buffers += ff.Buffers
		ov.Compressed += ff.CompressedBuffers
		ov.Events += ff.Events
		ov.EventsLost += uint64(h.EventsLost)
		ov.BuffersLost += uint64(h.BuffersLost)
	}
	if c.m.Events > 0 {
		ov.Start, ov.End = rfc3339(c.axis.Start), rfc3339(c.t1)
		ov.DurationSec = etl.FiletimeDuration(c.axis.Start, c.t1).Seconds()
	}
	for _, p := range c.m.Processes() {
		if listed(p) {
			ov.Processes++
		}
	}
	ov.Coverage = []Coverage{}
	for k, name := range coverageNames {
		if n := v.cov[k]; n > 0 {
			ov.Coverage = append(ov.Coverage, Coverage{name, n})
		}
	}
	ov.Damaged = []Damage{}
	for _, err := range c.readErrs {
		dm := Damage{Message: err.Error()}
		var fe *etl.FormatError
		if errors.As(err, &fe) {
			dm.File, dm.Offset, dm.Message = fe.File, fe.Offset, fe.Msg
			if fe.Err != nil {
				dm.Message += ": " + fe.Err.Error()
			}
			if fe.RecordOffset >= 0 {
				ro := fe.RecordOffset
				dm.RecordOffset = &ro
			}
			if t, ok := c.damageTime(fe); ok {
				dm.T = &t
			}
			for i, f := range c.files {
				if f.Name == fe.File {
					dm.File = fileName(c.files, c.o, i)
					break
				}
			}
		}
		ov.Damaged = append(ov.Damaged, dm)
	}
}

// gcTime writes the .NET GC pauses of all processes, with their share of
// the trace's duration; "" without GCs.
func gcTime(d *Data) string {
	if d.DotNet == nil {
		return ""
	}
	ms, n := 0.0, 0
	for _, p := range d.DotNet.Processes {
		ms += p.PauseMSTotal
		n += p.GCs
	}
	if n == 0 {
		return ""
	}
	s := fmtMS(ms) + " ms"
	if d.Overview.DurationSec > 0 {
		s += " (" + pctf(ms, d.Overview.DurationSec*1000) + ")"
	}
	return s
}

// damageTime returns when a damaged buffer or record was logged: the
// flush time of its buffer, or for a buffer whose header is damaged (not
// in the index), of the buffer before it in the file.
func (c *collector) damageTime(fe *etl.FormatError) (float64, bool) {
	if c.m.Events == 0 {
		return 0, false
	}
	for _, f := range c.files {
		if f.Name != fe.File {
			continue
		}
		var best *etl.BufferInfo
		bufs := f.Buffers()
		for i := range bufs {
			if bufs[i].FileOffset <= fe.Offset && bufs[i].Header.Type != etl.BufferTypeHeader {
				best = &bufs[i]
			}
		}
		if best == nil {
			return 0, false
		}
		t := f.Clock.FileTime(best.Header.TimeStamp)
		end := c.t1
		if t < etl.SubTime(c.axis.Start, 1e7) || t > etl.AddTime(end, 1e7) { // a flush time outside the trace: not credible
			return 0, false
		}
		return c.sec(min(max(t, c.axis.Start), end)), true
	}
	return 0, false
}

// overviewView: what a person looks at first (duration, CPU busy and the
// top processes, time in GC, events lost, damaged buffers), then the
// files' header facts and the damaged buffers and records.
var overviewView = &view{id: "overview", title: "Overview", tmpl: overviewTmpl,
	present: func(*Data) bool { return true },
	collect: func(c *collector) finisher {
		n := len(c.files)
		return &overviewCollector{c: c, fileEvents: make([]int, n), fileTypes: make([][256]int, n),
			fileFirst: make([]int64, n), fileLast: make([]int64, n)}
	},
	page: func(d *Data) (any, error) {
		busy, top := d.CPUUtilization.summary(3)
		return &struct {
			D       *Data
			CPUBusy string
			TopCPU  []string
			GC      string
		}{d, busy, top, gcTime(d)}, nil
	},
}

// overviewTmpl is the section's template.
const overviewTmpl = `{{with .D.Overview}}
<section id="overview" class="sect">
<h2>Overview</h2>
<div class="cards">
<div class="card"><b>{{sec .DurationSec}}</b><span>duration</span></div>
{{with $.CPUBusy}}<div class="card"><b>{{.}}</b><span>CPU busy (sampled)</span></div>{{end}}
{{with $.GC}}<div class="card"><b>{{.}}</b><span>time in GC (pauses)</span></div>{{end}}
<div class="card"><b>{{thousands .Events}}</b><span>events</span></div>
<div class="card{{if .EventsLost}} warn{{end}}"><b>{{thousands .EventsLost}}</b><span>events lost{{if .BuffersLost}}, {{thousands .BuffersLost}} buffers{{end}}</span></div>
<div class="card"><b>{{thousands .Buffers}}</b><span>buffers{{if .Compressed}} ({{thousands .Compressed}} compressed){{end}}</span></div>
<div class="card"><b>{{thousands .Processes}}</b><span>processes</span></div>
<div class="card{{if .Damaged}} bad{{end}}"><b>{{len .Damaged}}</b><span>damaged buffers or records</span></div>
</div>
{{with $.TopCPU}}<p>Top processes by CPU: {{range $i, $p := .}}{{if $i}}; {{end}}{{$p}}{{end}} (<a href="#cpuutil">CPU use</a>).</p>{{end}}
<h3>Files</h3>
{{range .Files}}
<details class="file" open><summary><b>{{.File}}</b>: {{bytes .Size}}, {{thousands .Events}} events, {{.LoggerName}}</summary>
<table class="kv">
<tr><th>Logger name</th><td>{{.LoggerName}}</td></tr>
<tr><th>Log file name</th><td>{{.LogFileName}}</td></tr>
<tr><th>Log file mode</th><td>{{.LogFileMode}}</td></tr>
<tr><th>Windows</th><td>{{.OSVersion}} build {{.Build}} (log layout {{.LogVersion}})</td></tr>
<tr><th>Pointer size</th><td>{{.PointerSize}}</td></tr>
<tr><th>CPUs</th><td>{{.CPUs}} ({{.CPUSpeedMHz}} MHz)</td></tr>
<tr><th>Clock</th><td>{{.ClockType}} ({{thousands .PerfFreq}} Hz), timer resolution {{.TimerResolution}}</td></tr>
<tr><th>Buffers</th><td>{{thousands .Buffers}} of {{.BufferSize}} bytes{{if .CompressedBuffers}}, {{thousands .CompressedBuffers}} compressed ({{.Compression}}){{end}}; header says {{thousands .BuffersWritten}}</td></tr>
<tr><th>Events</th><td>{{thousands .Events}}:{{range $k, $v := .HeaderTypes}}{{if $v}} <span class="ht">{{$k}} {{thousands $v}}</span>{{end}}{{end}}</td></tr>
<tr><th>Lost</th><td>{{thousands .EventsLost}} events, {{thousands .BuffersLost}} buffers</td></tr>
<tr><th>Session</th><td>{{.StartTime}} to {{if .EndTime}}{{.EndTime}}{{else}}(not closed){{end}}, maximum file size {{.MaximumFileSize}} MB</td></tr>
<tr><th>Events from</th><td>{{if .FirstEventTime}}{{.FirstEventTime}} to {{.LastEventTime}}{{else}}(none){{end}}</td></tr>
<tr><th>Boot time</th><td>{{.BootTime}}</td></tr>
<tr><th>Time zone</th><td>{{.TimeZoneName}} (bias {{.TimeZoneBias}} min)</td></tr>
</table>
</details>
{{end}}
{{if .Damaged}}
<h3>Damaged buffers and records</h3>
<table class="sortable">
<thead><tr><th>File</th><th>Offset</th><th>Record</th><th>When</th><th>Problem</th></tr></thead>
<tbody>{{range .Damaged}}<tr><td>{{.File}}</td><td class="num" data-v="{{.Offset}}">{{hex .Offset}}</td><td class="num">{{with .RecordOffset}}+{{hex .}}{{end}}</td><td class="num">{{reltime .T "unknown"}}</td><td>{{.Message}}</td></tr>{{end}}</tbody>
</table>
{{end}}
</section>
{{end}}`
