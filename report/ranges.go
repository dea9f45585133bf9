package report

import (
	"strconv"

	"github.com/etwkit/etw/analysis"
)

// The tables that follow a time range (range.js recomputes them for the
// buckets a range overlaps) ship their rows over time: for the top rows
// of the whole trace, each row's values per bucket.

// seriesRows is how many rows of a table (times Options.MaxRows) keep
// their values over time: a range shows the top Options.MaxRows of
// these, so a row outside the whole trace's top 2·MaxRows does not show
// in a range where it would rank.
const seriesRows = 2

// maxPageCells bounds the cells of the I/O section's rows over time (both
// kinds together) and of the .NET section's: past it their buckets are
// made 2, 4, 8… times wider, so that a long, busy trace's page stays
// small (a cell is 4 to 8 numbers).
const maxPageCells = 16384

// SeriesRow is one row of a table over time: Cells holds, for each
// bucket in which the row has something, [bucket, values…] (the values
// each table names).
type SeriesRow struct {
	Name  string      `json:"name"`
	PID   uint32      `json:"pid,omitempty"`
	Cells [][]float64 `json:"cells"`
}

// IOOverTime is the I/O by process and by file over time, each cell
// [bucket, reads, writes, read bytes, write bytes, latency ms total,
// longest ms, operations timed].
type IOOverTime struct {
	// BucketSec is the width of the buckets (a multiple of the
	// timeline's): bucket i covers [i·BucketSec, (i+1)·BucketSec)
	// seconds from the first event.
	BucketSec float64     `json:"bucket_sec"`
	ByProcess []SeriesRow `json:"by_process"`
	ByFile    []SeriesRow `json:"by_file"`
}

// DotNetOverTime is the allocation ticks by type (cells [bucket, ticks,
// bytes]), the JIT compilations by namespace ([bucket, methods]) and
// both by process ([bucket, methods, ticks, bytes], in the order of
// DotNet.Processes) over time.
type DotNetOverTime struct {
	BucketSec   float64     `json:"bucket_sec"`
	Allocations []SeriesRow `json:"allocations"`
	JIT         []SeriesRow `json:"jit"`
	Processes   []SeriesRow `json:"processes"`
}

func ioOverTime(ot *analysis.IOOverTime, bucketSec float64) *IOOverTime {
	if ot == nil {
		return nil
	}
	rows := func(in []analysis.RowSeries[IORow]) []SeriesRow {
		out := make([]SeriesRow, 0, len(in))
		for _, r := range in {
			sr := SeriesRow{Name: r.Name, Cells: make([][]float64, len(r.Cells))}
			for i, c := range r.Cells {
				v := &c.Value
				sr.Cells[i] = []float64{float64(c.Bucket), float64(v.Reads), float64(v.Writes), float64(v.ReadBytes), float64(v.WriteBytes),
					round4(v.LatencyMS), round4(v.MaxMS), float64(v.Timed)}
			}
			out = append(out, sr)
		}
		return out
	}
	return &IOOverTime{BucketSec: bucketSec * float64(ot.Factor), ByProcess: rows(ot.ByProcess), ByFile: rows(ot.ByFile)}
}

// boundIO keeps the I/O rows over time of both kinds (nil when the
// trace has none) under maxPageCells.
func boundIO(ots ...*analysis.IOOverTime) {
	var rows [][]analysis.RowSeries[IORow]
	for _, ot := range ots {
		if ot != nil {
			rows = append(rows, ot.ByProcess, ot.ByFile)
		}
	}
	f := analysis.CoarsenRows(maxPageCells, rows...)
	for _, ot := range ots {
		if ot != nil {
			ot.Factor *= f
		}
	}
}

// dotnetCells turns a .NET series into cells of the values pick gives.
func dotnetCells(in []analysis.Cell[analysis.DotNetBucket], pick func(*analysis.DotNetBucket) []float64) [][]float64 {
	out := make([][]float64, len(in))
	for i, c := range in {
		out[i] = append([]float64{float64(c.Bucket)}, pick(&c.Value)...)
	}
	return out
}

func dotnetOverTime(s *analysis.DotNetStats, maxRows int, procs []*analysis.Process, bucketSec float64) *DotNetOverTime {
	ot := s.OverTime(maxRows)
	if ot == nil {
		return nil
	}
	procRows := make([]analysis.RowSeries[analysis.DotNetBucket], len(procs))
	for i, p := range procs {
		procRows[i].Cells = s.ProcessOverTime(p)
	}
	f := analysis.CoarsenRows(maxPageCells, ot.Allocations, ot.JIT, procRows)
	d := &DotNetOverTime{BucketSec: bucketSec * float64(ot.Factor) * float64(f), Allocations: []SeriesRow{}, JIT: []SeriesRow{}, Processes: []SeriesRow{}}
	for _, r := range ot.Allocations {
		d.Allocations = append(d.Allocations, SeriesRow{Name: r.Name, Cells: dotnetCells(r.Cells, func(b *analysis.DotNetBucket) []float64 {
			return []float64{float64(b.AllocTicks), float64(b.AllocBytes)}
		})})
	}
	for _, r := range ot.JIT {
		d.JIT = append(d.JIT, SeriesRow{Name: r.Name, Cells: dotnetCells(r.Cells, func(b *analysis.DotNetBucket) []float64 {
			return []float64{float64(b.Jitted)}
		})})
	}
	for i, p := range procs {
		d.Processes = append(d.Processes, SeriesRow{Name: strconv.FormatUint(uint64(p.PID), 10), PID: p.PID,
			Cells: dotnetCells(procRows[i].Cells, func(b *analysis.DotNetBucket) []float64 {
				return []float64{float64(b.Jitted), float64(b.AllocTicks), float64(b.AllocBytes)}
			})})
	}
	return d
}

// linkProcesses tells each row of the processes table its process in
// the events table, whose counts by bucket give the row's events in a
// time range.
func (v *eventsCollector) linkProcesses(d *Data) {
	if d.Processes == nil {
		return
	}
	for i := range d.Processes.List {
		pr := &d.Processes.List[i]
		if pi, ok := v.procIdx[procKey{p: pr.rec}]; ok && pr.rec != nil {
			pr.evp = int(pi) + 1
		}
	}
}
