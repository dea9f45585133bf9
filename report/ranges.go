package report

import (
	"math"
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

// coarsenRows merges the cells of rows into buckets 2, 4, 8… times
// wider until they number at most maxPageCells; it returns the factor.
// merge adds a cell's values (not its bucket) into another's.
func coarsenRows(merge func(dst, src []float64), rows ...[]SeriesRow) int {
	count := func() int {
		n := 0
		for _, rs := range rows {
			for _, r := range rs {
				n += len(r.Cells)
			}
		}
		return n
	}
	f := 1
	for count() > maxPageCells {
		f *= 2
		for _, rs := range rows {
			for i := range rs {
				out := rs[i].Cells[:0]
				for _, c := range rs[i].Cells {
					c[0] = math.Floor(c[0] / 2)
					if n := len(out); n > 0 && out[n-1][0] == c[0] {
						merge(out[n-1][1:], c[1:])
						continue
					}
					out = append(out, c)
				}
				rs[i].Cells = out
			}
		}
	}
	return f
}

// addCells adds src's values to dst's.
func addCells(dst, src []float64) {
	for k := range dst {
		dst[k] += src[k]
	}
}

// addIOCells adds an I/O cell's values to another's: the longest latency
// (the sixth value) is their larger.
func addIOCells(dst, src []float64) {
	m := max(dst[5], src[5])
	addCells(dst, src)
	dst[4], dst[5] = round4(dst[4]), m
}

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

// boundIO keeps the I/O rows over time of both kinds under maxPageCells.
func boundIO(io *IO) {
	var rows [][]SeriesRow
	for _, ot := range []*IOOverTime{io.DiskOverTime, io.FileOverTime} {
		if ot != nil {
			rows = append(rows, ot.ByProcess, ot.ByFile)
		}
	}
	f := coarsenRows(addIOCells, rows...)
	for _, ot := range []*IOOverTime{io.DiskOverTime, io.FileOverTime} {
		if ot != nil {
			ot.BucketSec *= float64(f)
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
	d := &DotNetOverTime{BucketSec: bucketSec * float64(ot.Factor), Allocations: []SeriesRow{}, JIT: []SeriesRow{}, Processes: []SeriesRow{}}
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
	for _, p := range procs {
		d.Processes = append(d.Processes, SeriesRow{Name: strconv.FormatUint(uint64(p.PID), 10), PID: p.PID,
			Cells: dotnetCells(s.ProcessOverTime(p), func(b *analysis.DotNetBucket) []float64 {
				return []float64{float64(b.Jitted), float64(b.AllocTicks), float64(b.AllocBytes)}
			})})
	}
	d.BucketSec *= float64(coarsenRows(addCells, d.Allocations, d.JIT, d.Processes))
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
