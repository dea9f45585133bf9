package report

import (
	"encoding/json"
	"fmt"
	"html/template"

	"github.com/etwkit/etw/analysis"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
)

// ioCollector aggregates the DiskIo and FileIo events.
type ioCollector struct {
	c     *collector
	stats *analysis.IOStats
}

func (v *ioCollector) observe(ev *etl.Event, res *decode.Result) { v.stats.Observe(ev, res) }

func (v *ioCollector) finish(d *Data) {
	disk, file := v.stats.Disk(v.c.o.MaxRows), v.stats.File(v.c.o.MaxRows)
	if disk == nil && file == nil {
		return
	}
	d.IO = &IO{Disk: disk, File: file, BucketSec: float64(v.c.axis.Width) / 1e7}
	var diskOT, fileOT *analysis.IOOverTime
	if disk != nil {
		d.IO.DiskBuckets = ioBuckets(v.stats.DiskSeries())
		diskOT = v.stats.DiskOverTime(seriesRows * v.c.o.MaxRows)
	}
	if file != nil {
		d.IO.FileBuckets = ioBuckets(v.stats.FileSeries())
		fileOT = v.stats.FileOverTime(seriesRows * v.c.o.MaxRows)
	}
	boundIO(diskOT, fileOT)
	d.IO.DiskOverTime, d.IO.FileOverTime = ioOverTime(diskOT, d.IO.BucketSec), ioOverTime(fileOT, d.IO.BucketSec)
}

// ioBuckets lists the buckets of series that hold I/O.
func ioBuckets(series []IORow) []IOBucket {
	var out []IOBucket
	for b, r := range series {
		if r.Reads > 0 || r.Writes > 0 {
			out = append(out, IOBucket{uint64(b), uint64(r.Reads), uint64(r.Writes), r.ReadBytes, r.WriteBytes})
		}
	}
	return out
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

// ioView: disk and file I/O by process and by file.
var ioView = &view{id: "io", title: "I/O", tmpl: ioTmpl,
	present: func(d *Data) bool { return d.IO != nil },
	collect: func(c *collector) finisher { return &ioCollector{c, analysis.NewIOStats(c.m, c.files, c.axis)} },
	page: func(d *Data) (any, error) {
		io := d.IO
		p := &struct {
			D       *Data
			Kinds   []ioKind
			Buckets template.JS // the totals over time, for the script
		}{D: d}
		disk := ioKind{ID: "disk", Heading: "Disk I/O", Source: "Kernel DiskIo completions",
			LatencyLead: "disk response time averages ", LatencyTail: " ms",
			End: ". Processes are the ones that issued the I/O.", S: io.Disk}
		file := ioKind{ID: "file", Heading: "File I/O", Source: "Kernel FileIo reads and writes",
			LatencyLead: "from request to completion (OpEnd) ", LatencyTail: " ms on average",
			End: ".", S: io.File}
		disk.Proc, disk.File = ioBars(disk.ID, io.Disk)
		file.Proc, file.File = ioBars(file.ID, io.File)
		p.Kinds = []ioKind{disk, file}
		b, err := json.Marshal(struct {
			BucketSec  float64    `json:"bucket_sec"`
			Disk, File []IOBucket `json:",omitempty"`
			// the tables by process and by file over time
			DiskRows *IOOverTime `json:"disk_rows,omitempty"`
			FileRows *IOOverTime `json:"file_rows,omitempty"`
			MaxRows  int         `json:"max_rows"`
		}{io.BucketSec, io.DiskBuckets, io.FileBuckets, io.DiskOverTime, io.FileOverTime, d.maxRows})
		p.Buckets = template.JS(b)
		return p, err
	},
}

// ioKind is one kind of I/O (disk, file) as its block of the section
// shows it: nothing when S is nil.
type ioKind struct {
	ID, Heading string // "disk", "Disk I/O"
	Source      string // the events counted
	// The words around the average latency, and the note's end.
	LatencyLead, LatencyTail, End string
	S                             *IOSummary
	Proc, File                    template.HTML // the bars by process and by file
}

// ioTmpl is the section's template.
const ioTmpl = `{{with .D.IO}}
<section id="io" class="sect">
<h2>Disk and file I/O</h2>
{{range $.Kinds}}{{template "iokind" .}}
{{end}}<script type="application/json" id="io-data">{{$.Buckets}}</script>
</section>
{{end}}{{define "iokind"}}{{with .S}}
<h3>{{$.Heading}}</h3>
<p class="note">{{$.Source}}: {{thousands .Total.Reads}} reads ({{bytes .Total.ReadBytes}}), {{thousands .Total.Writes}} writes ({{bytes .Total.WriteBytes}}){{if .LatencyKnown}}; {{$.LatencyLead}}{{ms (avg .Total.LatencyMS .Total.Timed)}}{{$.LatencyTail}}, longest {{ms .Total.MaxMS}} ms{{end}}{{$.End}}</p>{{if .LatencyDropped}}
<p class="warnline">{{thousands .LatencyDropped}} operations have no latency: their OpEnd is not in the trace, came after another operation took their IRP, or came when 65,536 operations already awaited theirs.</p>{{end}}
<p class="note io-range" data-kind="{{$.ID}}"></p>
<div class="io-kind" data-kind="{{$.ID}}">
<h4>By process</h4>{{$.Proc}}
<h4>By file</h4>{{$.File}}
{{template "iotable" .ByFile}}
</div>
{{end}}{{end}}{{define "iotable"}}
<table class="sortable">
<thead><tr><th>File</th><th>Reads</th><th>Read</th><th>Writes</th><th>Written</th><th>Average latency ms</th><th>Longest ms</th></tr></thead>
<tbody>{{range .}}<tr><td class="path">{{.Name}}</td><td class="num">{{thousands .Reads}}</td><td class="num" data-v="{{.ReadBytes}}">{{bytes .ReadBytes}}</td><td class="num">{{thousands .Writes}}</td><td class="num" data-v="{{.WriteBytes}}">{{bytes .WriteBytes}}</td><td class="num">{{if .Timed}}{{ms (avg .LatencyMS .Timed)}}{{end}}</td><td class="num">{{if .Timed}}{{ms .MaxMS}}{{end}}</td></tr>{{end}}</tbody>
</table>
{{end}}`
