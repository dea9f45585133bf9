package analysis

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/etwkit/etw/catalog"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
)

// IOStats aggregates the kernel's disk and file I/O (DiskIo Read and
// Write, FileIo Read, Write and OpEnd) by process and by file: operations,
// bytes and latencies (DiskIo's HighResResponseTime; a FileIo operation
// matched with its OpEnd by IrpPtr). Files are named by the FileIo name
// events (Name, FileCreate, FileDelete, FileRundown, and an open's
// OpenPath). Feed it every event, decoded, in time order ([IOStats.Observe],
// as a [CollectOptions.Observe] does); its memory grows with the processes
// and files, not with the events.
type IOStats struct {
	m          *Model
	files      []*etl.File
	axis       TimeAxis
	disk, file ioAgg
	names      map[uint64]string
	pending    map[uint64]pendingIO
}

// maxPendingIO bounds the FileIo operations waiting for their OpEnd.
const maxPendingIO = 1 << 16

// procKey is a process record, or a pid without one.
type procKey struct {
	p   *Process
	pid uint32
}

type fileKey struct {
	key, alt uint64 // FileKey (or FileObject), FileObject
}

type pendingIO struct {
	ft   int64
	proc procKey
	file fileKey
}

// ioAgg aggregates one kind of I/O.
type ioAgg struct {
	seen   bool
	timed  bool
	total  IORow
	series []IORow // totals per bucket of the time axis
	byProc map[procKey]*IORow
	byFile map[fileKey]*IORow
}

// IOSummary totals one kind of I/O and breaks it down by process and by
// file (top rows by bytes).
type IOSummary struct {
	Total     IORow   `json:"total"`
	ByProcess []IORow `json:"by_process"`
	ByFile    []IORow `json:"by_file"`
	// LatencyKnown says whether latencies were measured (DiskIo's
	// response time; FileIo operations matched with their OpEnd).
	LatencyKnown bool `json:"latency_known"`
}

// IORow is the I/O of one process or file.
type IORow struct {
	Name       string  `json:"name"`
	Reads      int     `json:"reads"`
	Writes     int     `json:"writes"`
	ReadBytes  uint64  `json:"read_bytes"`
	WriteBytes uint64  `json:"write_bytes"`
	LatencyMS  float64 `json:"latency_ms_total"` // sum over the timed operations
	MaxMS      float64 `json:"latency_ms_max"`
	Timed      int     `json:"timed"` // operations with a latency
}

// NewIOStats returns an empty aggregate of the I/O of files (the files
// whose events it will observe: DiskIo's latencies use their clock
// frequency), whose events m attributes to processes. The totals are
// also kept per bucket of axis (see [IOStats.DiskSeries]); the zero axis
// keeps none.
func NewIOStats(m *Model, files []*etl.File, axis TimeAxis) *IOStats {
	s := &IOStats{m: m, files: files, axis: axis, names: map[uint64]string{}, pending: map[uint64]pendingIO{}}
	if axis.Bucket(axis.Start) >= 0 {
		s.disk.series, s.file.series = make([]IORow, axis.Buckets), make([]IORow, axis.Buckets)
	}
	return s
}

// DiskSeries returns the disk I/O totals per bucket of the time axis (an
// operation counts in the bucket of its completion event), nil without
// an axis. The slice is the aggregate's own.
func (s *IOStats) DiskSeries() []IORow { return s.disk.series }

// FileSeries returns the file I/O totals per bucket of the time axis
// (reads and writes in the bucket of their request, latencies in that of
// their OpEnd), nil without an axis.
func (s *IOStats) FileSeries() []IORow { return s.file.series }

// bucket returns the series row of time ft, nil without an axis.
func (a *ioAgg) bucket(axis TimeAxis, ft int64) *IORow {
	if a.series == nil {
		return nil
	}
	return &a.series[axis.Bucket(ft)]
}

// Observe counts ev, if it is a DiskIo or FileIo event that decoded.
func (s *IOStats) Observe(ev *etl.Event, res *decode.Result) {
	if ev.Flags&etl.FlagClassicHeader == 0 {
		return
	}
	switch ev.ProviderID {
	case catalog.DiskIoGUID:
		s.diskEvent(ev, res)
	case catalog.FileIoGUID:
		s.fileEvent(ev, res)
	}
}

func (s *IOStats) procOf(ev *etl.Event, res *decode.Result) procKey {
	pid, _, p := s.m.EventProcess(ev, res)
	return procKey{p, pid}
}

func (s *IOStats) diskEvent(ev *etl.Event, res *decode.Result) {
	op := ev.Descriptor.Opcode
	d := decoded(res)
	if (op != catalog.DiskIoRead && op != catalog.DiskIoWrite) || d == nil {
		return
	}
	size, _ := d.Uint("TransferSize")
	fo, _ := d.Uint("FileObject")
	var ms float64
	rt, timed := d.Uint("HighResResponseTime")
	if f := s.perfFreq(ev); timed && f > 0 {
		ms = float64(rt) * 1000 / float64(f)
	} else {
		timed = false
	}
	s.disk.add(s.disk.bucket(s.axis, ev.Time), s.procOf(ev, res), fileKey{fo, fo}, op == catalog.DiskIoWrite, size, ms, timed)
}

func (s *IOStats) perfFreq(ev *etl.Event) int64 {
	if ev.File < 0 || ev.File >= len(s.files) {
		return 0
	}
	return s.files[ev.File].Header.PerfFreq
}

func (s *IOStats) fileEvent(ev *etl.Event, res *decode.Result) {
	d := decoded(res)
	if d == nil {
		return
	}
	switch op := ev.Descriptor.Opcode; {
	case catalog.IsFileIoName(op):
		fo, ok := d.Uint("FileObject")
		if name, _ := d.String("FileName"); ok && name != "" {
			s.names[fo] = name
		}
	case op == catalog.FileIoOpen:
		fo, ok := d.Uint("FileObject")
		if name, _ := d.String("OpenPath"); ok && name != "" {
			if _, known := s.names[fo]; !known {
				s.names[fo] = name
			}
		}
	case op == catalog.FileIoRead, op == catalog.FileIoWrite:
		fo, _ := d.Uint("FileObject")
		fk := fileKey{fo, fo}
		if k, ok := d.Uint("FileKey"); ok && k != 0 {
			fk.key = k
		}
		size, _ := d.Uint("IoSize")
		pk := s.procOf(ev, res)
		s.file.add(s.file.bucket(s.axis, ev.Time), pk, fk, ev.Descriptor.Opcode == catalog.FileIoWrite, size, 0, false)
		if irp, ok := d.Uint("IrpPtr"); ok && len(s.pending) < maxPendingIO {
			s.pending[irp] = pendingIO{ev.Time, pk, fk}
		}
	case op == catalog.FileIoOpEnd:
		irp, ok := d.Uint("IrpPtr")
		if !ok {
			return
		}
		p, ok := s.pending[irp]
		if !ok {
			return
		}
		delete(s.pending, irp)
		ms := float64(etl.SubTime(ev.Time, p.ft)) / 1e4
		s.file.timed = true
		s.file.total.addLatency(ms)
		if r := s.file.bucket(s.axis, ev.Time); r != nil {
			r.addLatency(ms)
		}
		if r := s.file.byProc[p.proc]; r != nil {
			r.addLatency(ms)
		}
		if r := s.file.byFile[p.file]; r != nil {
			r.addLatency(ms)
		}
	}
}

// add counts one operation in the totals, its bucket (nil: none), its
// process and its file.
func (a *ioAgg) add(bucket *IORow, pk procKey, fk fileKey, write bool, size uint64, ms float64, timed bool) {
	if a.byProc == nil {
		a.byProc, a.byFile = map[procKey]*IORow{}, map[fileKey]*IORow{}
	}
	a.seen = true
	rows := [4]*IORow{&a.total, a.byProc[pk], a.byFile[fk], bucket}
	if rows[1] == nil {
		rows[1] = &IORow{}
		a.byProc[pk] = rows[1]
	}
	if rows[2] == nil {
		rows[2] = &IORow{}
		a.byFile[fk] = rows[2]
	}
	for _, r := range rows {
		if r == nil {
			continue
		}
		if write {
			r.Writes++
			r.WriteBytes += size
		} else {
			r.Reads++
			r.ReadBytes += size
		}
		if timed {
			r.addLatency(ms)
		}
	}
	if timed {
		a.timed = true
	}
}

// merge adds the counts of o to r.
func (r *IORow) merge(o *IORow) {
	r.Reads, r.Writes = r.Reads+o.Reads, r.Writes+o.Writes
	r.ReadBytes, r.WriteBytes = r.ReadBytes+o.ReadBytes, r.WriteBytes+o.WriteBytes
	r.LatencyMS, r.MaxMS, r.Timed = r.LatencyMS+o.LatencyMS, max(r.MaxMS, o.MaxMS), r.Timed+o.Timed
}

func (r *IORow) addLatency(ms float64) {
	r.LatencyMS += ms
	r.MaxMS = max(r.MaxMS, ms)
	r.Timed++
}

// Disk returns the disk I/O: the total, and the maxRows processes and
// files with the most bytes; nil when the trace has no DiskIo events.
func (s *IOStats) Disk(maxRows int) *IOSummary { return s.summary(&s.disk, maxRows) }

// File returns the file I/O as Disk does the disk's; nil when the trace
// has no FileIo Read or Write events.
func (s *IOStats) File(maxRows int) *IOSummary { return s.summary(&s.file, maxRows) }

// summary turns an aggregate into tables: rows by process and by file
// name (file objects of one path merge), most bytes first.
func (s *IOStats) summary(a *ioAgg, maxRows int) *IOSummary {
	if !a.seen {
		return nil
	}
	sum := &IOSummary{Total: a.total, LatencyKnown: a.timed}
	sum.Total.Name = "all"
	for pk, r := range a.byProc {
		row := *r
		row.Name = ProcessName(pk.p, pk.pid)
		sum.ByProcess = append(sum.ByProcess, row)
	}
	byName := map[string]*IORow{}
	for fk, r := range a.byFile {
		name := s.names[fk.key]
		if name == "" {
			name = s.names[fk.alt]
		}
		if name == "" {
			name = fmt.Sprintf("(file object %#x)", fk.key)
		} else {
			name = s.m.DOSPath(name)
		}
		m := byName[name]
		if m == nil {
			m = &IORow{Name: name}
			byName[name] = m
		}
		m.merge(r)
	}
	for _, r := range byName {
		sum.ByFile = append(sum.ByFile, *r)
	}
	for _, rows := range [][]IORow{sum.ByProcess, sum.ByFile} {
		for i := range rows {
			rows[i].LatencyMS = roundTick(rows[i].LatencyMS)
		}
	}
	sum.Total.LatencyMS = roundTick(sum.Total.LatencyMS)
	order := func(a, b IORow) int {
		return cmp.Or(cmp.Compare(b.ReadBytes+b.WriteBytes, a.ReadBytes+a.WriteBytes),
			cmp.Compare(b.Reads+b.Writes, a.Reads+a.Writes), strings.Compare(a.Name, b.Name))
	}
	slices.SortFunc(sum.ByProcess, order)
	slices.SortFunc(sum.ByFile, order)
	sum.ByProcess = sum.ByProcess[:min(len(sum.ByProcess), maxRows)]
	sum.ByFile = sum.ByFile[:min(len(sum.ByFile), maxRows)]
	return sum
}

// roundTick rounds sums of milliseconds to 0.1 µs, the clock's
// resolution, so that float noise stays out of the outputs.
func roundTick(ms float64) float64 { return math.Round(ms*1e4) / 1e4 }
