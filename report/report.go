// Package report builds a trace report that a person reads in a browser:
// one self-contained HTML file (no network access, works from file://)
// with the trace's facts, an events-per-second timeline by provider, the
// processes and their lifetimes, a flame graph of the sampled CPU stacks,
// .NET garbage collections, allocations and JIT activity, disk and file
// I/O, and the providers table; and the same data as JSON for programs.
//
//	d, err := report.Build(files, decode.New(), nil) // err: damaged buffers, if any
//	d.WriteHTML(w)                                   // or json.NewEncoder(w).Encode(d)
//
// Everything is aggregated in Go while the trace is read (two passes: the
// [analysis.Model], then every event decoded once with its process and
// stack), so the report's size depends on what the trace says, not on its
// number of events: the timeline has at most [Options.Buckets] buckets per
// series, the flame graph keeps the frames that hold at least
// [Options.FlameMinFraction] of their process's samples, the tables keep
// their top rows. Sections without data are left out.
//
// Charts are SVG drawn in Go (they show without scripts); a small
// hand-written script adds zooming, the interactive flame graph, search
// and sortable tables (docs/dependencies.md says why no charting library).
package report

import (
	"fmt"
	"strconv"

	"github.com/etwkit/etw/analysis"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
)

// Options configures [Build]. The zero value is ready to use.
type Options struct {
	// Title heads the report; default: the base names of the files.
	Title string
	// Names are the files' names as the report shows them (default: each
	// file's Name, the path given to etl.Open).
	Names []string
	// TopProviders is how many providers the timeline shows on their own
	// (default 8); the others are stacked as one series.
	TopProviders int
	// Buckets is the largest number of timeline buckets (default 1000).
	Buckets int
	// FlameMinFraction drops flame-graph frames holding less than this
	// fraction of their process's samples (default 0.001: 0.1 %).
	FlameMinFraction float64
	// MaxRows bounds the rows of the I/O and allocation tables (default 25).
	MaxRows int
	// MaxGCs bounds the garbage collections listed one by one (default
	// 20,000); the summaries count them all.
	MaxGCs int
	// Symbolizer, if set, names native code (the flame graph's frames)
	// through PDBs: see analysis.Model.SetSymbolizer.
	Symbolizer analysis.Symbolizer
}

func (o *Options) withDefaults() Options {
	var r Options
	if o != nil {
		r = *o
	}
	if r.TopProviders <= 0 {
		r.TopProviders = 8
	}
	if r.Buckets <= 0 {
		r.Buckets = 1000
	}
	if r.FlameMinFraction <= 0 {
		r.FlameMinFraction = 0.001
	}
	if r.MaxRows <= 0 {
		r.MaxRows = 25
	}
	if r.MaxGCs <= 0 {
		r.MaxGCs = 20000
	}
	return r
}

// Data is what the report shows; its JSON form is the report for
// programs (keys in the order of the fields). Optional sections are nil
// when the trace holds nothing for them.
type Data struct {
	Title    string   `json:"title"`
	Overview Overview `json:"overview"`
	// CPUUtilization is the sampled CPU use over time by process.
	CPUUtilization *CPUUtilization `json:"cpu_utilization,omitempty"`
	Timeline       *Timeline       `json:"timeline,omitempty"`
	Processes      *Processes      `json:"processes,omitempty"`
	CPU            *CPU            `json:"cpu,omitempty"`
	DotNet         *DotNet         `json:"dotnet,omitempty"`
	IO             *IO             `json:"io,omitempty"`
	Threads        *Threads        `json:"threads,omitempty"`
	// Network is the packet captures' traffic (PktMon, NDIS).
	Network   *Network   `json:"network,omitempty"`
	Providers []Provider `json:"providers,omitempty"`
	// Diff compares the trace with a baseline ([BuildDiff]); nil in the
	// report of one trace.
	Diff *Diff `json:"diff,omitempty"`
	// Events counts the events by provider, event name, process and time
	// and keeps a bounded sample of them (the events table).
	Events *Events `json:"events,omitempty"`

	maxRows int // Options.MaxRows, for the page's tables of a time range
}

// Overview holds the files' header facts and what reading them gave.
type Overview struct {
	Files []FileFacts `json:"files"`
	// Start and End are the times of the first and last events (UTC,
	// RFC 3339 with 7 fractional digits); empty without events.
	Start       string  `json:"start"`
	End         string  `json:"end"`
	DurationSec float64 `json:"duration_sec"`
	Buffers     int     `json:"buffers"`
	Compressed  int     `json:"compressed_buffers"`
	Events      int     `json:"events"`
	// EventsLost and BuffersLost add up the files' headers.
	EventsLost  uint64 `json:"events_lost"`
	BuffersLost uint64 `json:"buffers_lost"`
	// Processes counts the processes the trace names or that events
	// belong to.
	Processes int `json:"processes"`
	// Coverage counts the events by the source of the schema that decoded
	// them: "trace", "eventsource", "tracelogging", "built-in", "import",
	// then "error" (a schema that did not fit) and "none" (no schema).
	Coverage []Coverage `json:"coverage"`
	// Damaged lists the damaged buffers and records.
	Damaged []Damage `json:"damaged"`
}

// FileFacts are one file's header facts, as "tracerpt-go info --json"
// names them.
type FileFacts struct {
	File              string         `json:"file"`
	Size              int64          `json:"size"`
	Buffers           int            `json:"buffers"`
	CompressedBuffers int            `json:"compressed_buffers"`
	Compression       string         `json:"compression,omitempty"`
	Events            int            `json:"events"`
	HeaderTypes       map[string]int `json:"header_types"`
	PointerSize       uint32         `json:"pointer_size"`
	OSVersion         string         `json:"os_version"`
	Build             uint32         `json:"build"`
	LogVersion        string         `json:"log_version"`
	CPUs              uint32         `json:"cpus"`
	CPUSpeedMHz       uint32         `json:"cpu_speed_mhz"`
	BufferSize        uint32         `json:"buffer_size"`
	ClockType         string         `json:"clock_type"`
	PerfFreq          int64          `json:"perf_freq"`
	TimerResolution   uint32         `json:"timer_resolution"`
	LoggerName        string         `json:"logger_name"`
	LogFileName       string         `json:"log_file_name"`
	LogFileMode       string         `json:"log_file_mode"`
	MaximumFileSize   uint32         `json:"maximum_file_size"`
	BuffersWritten    uint32         `json:"buffers_written"`
	EventsLost        uint32         `json:"events_lost"`
	BuffersLost       uint32         `json:"buffers_lost"`
	BootTime          string         `json:"boot_time"`
	StartTime         string         `json:"start_time"`
	EndTime           string         `json:"end_time"`
	FirstEventTime    string         `json:"first_event_time,omitempty"`
	LastEventTime     string         `json:"last_event_time,omitempty"`
	TimeZoneBias      int32          `json:"time_zone_bias"`
	TimeZoneName      string         `json:"time_zone_name"`
}

// NewFileFacts gives the facts of file f, shown under name, from its
// header and the counts in st (st.Errors is not used).
func NewFileFacts(name string, f *etl.File, st *etl.Stats) FileFacts {
	h := &f.Header
	ff := FileFacts{
		File:              name,
		Size:              f.Size(),
		Buffers:           st.Buffers,
		CompressedBuffers: st.CompressedBuffers,
		Events:            st.Events,
		HeaderTypes:       map[string]int{},
		PointerSize:       h.PointerSize,
		OSVersion:         fmt.Sprintf("%d.%d", h.MajorVersion, h.MinorVersion),
		Build:             h.ProviderVersion,
		LogVersion:        fmt.Sprintf("%d.%d", h.SubVersion, h.SubMinorVersion),
		CPUs:              h.NumberOfProcessors,
		CPUSpeedMHz:       h.CPUSpeedMHz,
		BufferSize:        h.BufferSize,
		ClockType:         h.Clock().String(),
		PerfFreq:          h.PerfFreq,
		TimerResolution:   h.TimerResolution,
		LoggerName:        h.LoggerName,
		LogFileName:       h.LogFileName,
		LogFileMode:       "0x" + strconv.FormatUint(uint64(h.LogFileMode), 16),
		MaximumFileSize:   h.MaximumFileSize,
		BuffersWritten:    h.BuffersWritten,
		EventsLost:        h.EventsLost,
		BuffersLost:       h.BuffersLost,
		BootTime:          rfc3339(h.BootTime),
		StartTime:         rfc3339(h.StartTime),
		EndTime:           rfc3339(h.EndTime),
		TimeZoneBias:      h.TimeZone.Bias,
		TimeZoneName:      timeZoneName(h.TimeZone),
	}
	if st.CompressedBuffers > 0 {
		ff.Compression = f.Format.String()
	}
	if h.EndTime == 0 {
		ff.EndTime = ""
	}
	if st.Events > 0 {
		ff.FirstEventTime, ff.LastEventTime = rfc3339(st.FirstTime), rfc3339(st.LastTime)
	}
	for _, t := range etl.HeaderTypes {
		ff.HeaderTypes[t.String()] = st.HeaderTypes[t]
	}
	return ff
}

// Coverage is the number of events decoded with schemas of one source.
type Coverage struct {
	Source string `json:"source"`
	Events int    `json:"events"`
}

// Damage is one damaged buffer or record.
type Damage struct {
	File         string `json:"file"`
	Offset       int64  `json:"offset"`
	RecordOffset *int64 `json:"record_offset,omitempty"`
	// T is when it happened, in seconds from the first event: the flush
	// time of the buffer (or, for a damaged buffer header, of the buffer
	// before it in the file); absent when unknown.
	T       *float64 `json:"t,omitempty"`
	Message string   `json:"message"`
}

// Timeline counts events per bucket of time, by provider.
type Timeline struct {
	// BucketSec is the width of a bucket; bucket i covers
	// [i·BucketSec, (i+1)·BucketSec) seconds from the first event.
	BucketSec float64 `json:"bucket_sec"`
	Buckets   int     `json:"buckets"`
	// Series are the top providers, most events first, then "other".
	Series []Series `json:"series"`
	// Detail holds finer buckets for zoomed views: levels 10, 100, …
	// times finer than BucketSec, as far as they stay small (see
	// [Detail]).
	Detail []Detail `json:"detail"`
	// Lost marks the moments events were lost: buffers flagged as having
	// lost events or buffers, and real-time lost-event records.
	Lost    []Marker `json:"lost"`
	Damaged []Marker `json:"damaged"`
}

// Detail is one finer level of the timeline: only the buckets that hold
// events, each as [bucket index, series, events, series, events, …]
// (series index into [Timeline.Series], only those with events). A level
// is kept only while its buckets stay few, so a dense trace has fewer
// levels than a sparse one.
type Detail struct {
	BucketSec float64 `json:"bucket_sec"`
	Buckets   [][]int `json:"buckets"`
}

// Series is one provider's events per bucket.
type Series struct {
	Name   string `json:"name"`
	GUID   string `json:"guid,omitempty"`
	Events int    `json:"events"`
	Counts []int  `json:"counts"`
}

// Marker is a moment on the timeline, in seconds from the first event.
type Marker struct {
	T      float64 `json:"t"`
	Kind   string  `json:"kind"`
	Detail string  `json:"detail"`
}

// Processes lists the processes the trace names or that events belong to.
type Processes struct {
	List []Process `json:"list"`
	// Omitted counts processes left out of List (the ones with fewest
	// events, beyond 500).
	Omitted int `json:"omitted"`
}

// Process is one process record.
type Process struct {
	PID         uint32 `json:"pid"`
	Name        string `json:"name"`
	CommandLine string `json:"command_line"`
	// Start and End are seconds from the first event; absent when the
	// process started before the trace or was still running at its end.
	Start      *float64 `json:"start"`
	End        *float64 `json:"end"`
	Events     int      `json:"events"`
	CPUSamples int      `json:"cpu_samples"`
	Threads    int      `json:"threads"`
	DotNet     bool     `json:"dotnet"`
	// Root is the process's root frame in the profile, "Name (pid)".
	Root string `json:"-"`

	rec *analysis.Process
	evp int // 1 + the index of the process in Events.Processes; 0: none
}

// CPU is the flame graph of the sampled stacks (what "tracerpt-go
// stacks" writes, as a tree): the root's children are the processes.
type CPU struct {
	// Samples is the number of CPU samples (the root's value);
	// WithStack of them had a stack.
	Samples   int64 `json:"samples"`
	WithStack int   `json:"with_stack"`
	// MinFraction is the pruning threshold: frames holding less than
	// this fraction of their process's samples are left out (their
	// samples stay in their parent's value).
	MinFraction float64 `json:"min_fraction"`
	// Frames counts the distinct frames before and after pruning.
	Frames int        `json:"frames"`
	Kept   int        `json:"kept"`
	Root   *FlameNode `json:"root"`
	// Profile is the same samples unpruned, by time: the frames, the
	// prefix tree of the stacks and each node's samples per timeline
	// bucket (see [analysis.StackTree]), from which the page draws the
	// flame graph, the call tree and the callers and callees of any time
	// range.
	Profile *analysis.StackTree `json:"profile"`
}

// FlameNode is one frame of the flame graph: Value counts the samples in
// it and below it.
type FlameNode struct {
	Name     string       `json:"name"`
	Value    int64        `json:"value"`
	Children []*FlameNode `json:"children,omitempty"`
}

// DotNet summarises the .NET runtime events.
type DotNet struct {
	Processes []DotNetProcess `json:"processes"`
	// GCs lists the garbage collections (at most Options.MaxGCs, in time
	// order); GCsOmitted counts those left out.
	GCs         []GC         `json:"gcs"`
	GCsOmitted  int          `json:"gcs_omitted"`
	Generations []Generation `json:"generations"`
	// Allocations are the allocation ticks (an event per ~100 KB
	// allocated) by type, most bytes first.
	Allocations []Allocation `json:"allocations"`
	// JIT counts the methods the JIT compiled, by namespace (type), most
	// first.
	JIT []JITCount `json:"jit"`
	// OverTime is the allocations, JIT compilations and processes' over
	// time, for a time range (the top 2·Options.MaxRows types and
	// namespaces).
	OverTime *DotNetOverTime `json:"over_time,omitempty"`
}

// DotNetProcess is one process that logged .NET runtime events.
type DotNetProcess struct {
	PID          uint32  `json:"pid"`
	Name         string  `json:"name"`
	GCs          int     `json:"gcs"`
	PauseMSTotal float64 `json:"pause_ms_total"`
	PauseMSMax   float64 `json:"pause_ms_max"`
	Jitted       int     `json:"jitted"`
	AllocTicks   int     `json:"alloc_ticks"`
	AllocBytes   uint64  `json:"alloc_bytes"`

	rec *analysis.Process
}

// GC is one garbage collection.
type GC struct {
	PID        uint32  `json:"pid"`
	Process    string  `json:"process"`
	Number     uint32  `json:"number"`
	Generation uint32  `json:"generation"`
	Reason     string  `json:"reason"`
	Type       string  `json:"type"`
	T          float64 `json:"t"` // seconds from the first event
	PauseMS    float64 `json:"pause_ms"`
	DurationMS float64 `json:"duration_ms"`
}

// Generation sums the GCs of one generation.
type Generation struct {
	Generation   uint32  `json:"generation"`
	Count        int     `json:"count"`
	PauseMSTotal float64 `json:"pause_ms_total"`
	PauseMSMax   float64 `json:"pause_ms_max"`
}

// Allocation counts the allocation ticks of one type.
type Allocation = analysis.Allocation

// JITCount is the number of methods compiled in one namespace.
type JITCount = analysis.JITCount

// IO is disk and file I/O, when the trace holds the kernel's DiskIo or
// FileIo events.
type IO struct {
	Disk *IOSummary `json:"disk,omitempty"`
	File *IOSummary `json:"file,omitempty"`
	// BucketSec is the width of the buckets of DiskBuckets and
	// FileBuckets, the timeline's: the I/O totals over time, for a time
	// range.
	BucketSec   float64    `json:"bucket_sec"`
	DiskBuckets []IOBucket `json:"disk_buckets,omitempty"`
	FileBuckets []IOBucket `json:"file_buckets,omitempty"`
	// DiskOverTime and FileOverTime are the top 2·Options.MaxRows
	// processes and files over time, for a time range.
	DiskOverTime *IOOverTime `json:"disk_over_time,omitempty"`
	FileOverTime *IOOverTime `json:"file_over_time,omitempty"`
}

// Network is the traffic of a trace's packet captures: its packets are
// the ones "tracerpt-go pcapng" writes (package netcap reads them for
// both).
type Network = analysis.NetSummary

// IOBucket is the I/O of one time bucket that holds any, as [bucket,
// reads, writes, bytes read, bytes written]: bucket b covers
// [b·BucketSec, (b+1)·BucketSec) seconds from the first event.
type IOBucket [5]uint64

// IOSummary totals one kind of I/O and breaks it down by process and by
// file (top rows by bytes).
type IOSummary = analysis.IOSummary

// IORow is the I/O of one process or file.
type IORow = analysis.IORow

// Provider is one line of the providers table ("tracerpt-go providers").
type Provider struct {
	GUID    string `json:"provider_guid"`
	Name    string `json:"provider_name"`
	Class   string `json:"class,omitempty"`
	Events  int    `json:"events"`
	Decoded int    `json:"decoded"`
	Source  string `json:"source"`
}

// NewProvider returns the line of provider p: what "tracerpt-go
// providers --json" writes, one object per line.
func NewProvider(p *decode.ProviderStat) Provider {
	return Provider{GUID: "{" + p.GUID.String() + "}", Name: p.Name, Class: p.Class,
		Events: p.Events, Decoded: p.Decoded, Source: p.Source()}
}

// Build reads files (in time order, twice: the analysis model, then every
// event decoded with dec) and aggregates what the report shows. dec
// should hold the schemas to decode with (decode.New() and any imports);
// the first pass also registers in dec the schemas the files carry (see
// [decode.Prescanner]). The error, if not nil, joins the damaged buffers
// and records met (each an *etl.FormatError), which the report lists too
// (it holds what the rest of the files said), and the schemas the files
// carry that could not be used.
func Build(files []*etl.File, dec *decode.Decoder, opts *Options) (*Data, error) {
	o := opts.withDefaults()
	return build(files, dec, &o)
}

// timeZoneName is the header's zone name with a tzres.dll reference
// resolved where it is a well-known zone (else the reference as stored).
func timeZoneName(tz etl.TimeZone) string {
	name, _ := tz.Name()
	return name
}
