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
// and files, not with the events: the series of each process and file
// over the time axis (for [IOStats.DiskOverTime]) hold at most 2^17
// cells (a key's I/O in one bucket) per kind of I/O, past which they
// merge into buckets twice as wide.
type IOStats struct {
	m          *Model
	files      []*etl.File
	axis       TimeAxis
	disk, file ioAgg
	names      map[uint64]string
	pending    map[uint64]pendingIO
}

// maxPendingIO bounds the FileIo operations waiting for their OpEnd: the
// operations past it are counted (IOSummary.LatencyDropped), not timed.
const maxPendingIO = 1 << 16

// procKey is a process record, or a pid without one.
type procKey struct {
	p   *Process
	pid uint32
}

// compare orders process keys by their records' creation (a pid without
// a record first), then by pid: what tells apart the records of one
// name and pid (a pid reused by the same program, a trace written over
// again) where the rows they key tie on everything else, so that their
// order does not follow a map's.
func (k procKey) compare(o procKey) int {
	return cmp.Or(cmp.Compare(k.index(), o.index()), cmp.Compare(k.pid, o.pid))
}

// index is the key's record's Index, or -1 without one.
func (k procKey) index() int {
	if k.p == nil {
		return -1
	}
	return k.p.Index
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
	byProc map[procKey]*ioKey
	byFile map[fileKey]*ioKey
	cells  *seriesSet[IORow] // the keys' series
	// dropped counts the operations left untimed because maxPendingIO
	// operations already awaited their OpEnd; reused those whose IrpPtr
	// a later operation took before their OpEnd came.
	dropped, reused int
	// keyed holds the rows of the tables (IOStats.rows), built for the
	// summary or the series, whichever is asked first; nil until then and
	// after each DiskIo or FileIo event observed (file names included).
	keyed *keyedRows
}

// ioKey is the I/O of one process or file object: in all, and per bucket.
type ioKey struct {
	IORow
	sr *[]cell[IORow]
}

// newKey returns the record of a new key.
func (a *ioAgg) newKey() *ioKey { return &ioKey{sr: a.cells.series()} }

// IOSummary totals one kind of I/O and breaks it down by process and by
// file (top rows by bytes).
type IOSummary struct {
	Total     IORow   `json:"total"`
	ByProcess []IORow `json:"by_process"`
	ByFile    []IORow `json:"by_file"`
	// LatencyKnown says whether latencies were measured (DiskIo's
	// response time; FileIo operations matched with their OpEnd).
	LatencyKnown bool `json:"latency_known"`
	// LatencyDropped counts the FileIo operations left untimed: those
	// past 65,536 awaiting their OpEnd (the bound of the pairing's
	// memory) and, when the trace times operations at all (LatencyKnown),
	// those whose OpEnd never came (lost, or past the trace's end: still
	// awaited when the summary is made) or came after a later operation
	// took their IrpPtr. Their latency is missing from the figures.
	LatencyDropped int `json:"latency_dropped,omitempty"`
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
	s.disk.cells, s.file.cells = newSeriesSet(axis, (*IORow).merge), newSeriesSet(axis, (*IORow).merge)
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
func (a *ioAgg) bucket(ft int64) *IORow {
	if a.series == nil {
		return nil
	}
	return &a.series[a.cells.axis.Bucket(ft)]
}

// Observe counts ev, if it is a DiskIo or FileIo event that decoded.
func (s *IOStats) Observe(ev *etl.Event, res *decode.Result) {
	if ev.Flags&etl.FlagClassicHeader == 0 {
		return
	}
	switch ev.ProviderID {
	case catalog.DiskIoGUID:
		s.disk.keyed, s.file.keyed = nil, nil
		s.diskEvent(ev, res)
	case catalog.FileIoGUID:
		s.disk.keyed, s.file.keyed = nil, nil
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
	ms, timed := DiskResponseMS(ev, d, s.files)
	s.disk.add(ev.Time, s.procOf(ev, res), fileKey{fo, fo}, op == catalog.DiskIoWrite, size, ms, timed)
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
		s.file.add(ev.Time, pk, fk, ev.Descriptor.Opcode == catalog.FileIoWrite, size, 0, false)
		if irp, ok := d.Uint("IrpPtr"); ok {
			if _, waiting := s.pending[irp]; waiting {
				s.file.reused++ // the OpEnd will time the later operation
				s.pending[irp] = pendingIO{ev.Time, pk, fk}
			} else if len(s.pending) < maxPendingIO {
				s.pending[irp] = pendingIO{ev.Time, pk, fk}
			} else {
				s.file.dropped++
			}
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
		if r := s.file.bucket(ev.Time); r != nil {
			r.addLatency(ms)
		}
		for _, k := range [2]*ioKey{s.file.byProc[p.proc], s.file.byFile[p.file]} {
			if k != nil {
				k.addLatency(ms)
				if r := s.file.cells.at(k.sr, ev.Time); r != nil {
					r.addLatency(ms)
				}
			}
		}
	}
}

// add counts one operation, at time ft, in the totals, its bucket, its
// process and its file (in all and in their series).
func (a *ioAgg) add(ft int64, pk procKey, fk fileKey, write bool, size uint64, ms float64, timed bool) {
	if a.byProc == nil {
		a.byProc, a.byFile = map[procKey]*ioKey{}, map[fileKey]*ioKey{}
	}
	a.seen = true
	kp, kf := a.byProc[pk], a.byFile[fk]
	if kp == nil {
		kp = a.newKey()
		a.byProc[pk] = kp
	}
	if kf == nil {
		kf = a.newKey()
		a.byFile[fk] = kf
	}
	count := func(r *IORow) {
		if r == nil {
			return
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
	count(&a.total)
	count(&kp.IORow)
	count(&kf.IORow)
	count(a.bucket(ft))
	// one at a time: a cell's pointer lasts until the next at
	count(a.cells.at(kp.sr, ft))
	count(a.cells.at(kf.sr, ft))
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
	sum := &IOSummary{Total: a.total, LatencyKnown: a.timed, LatencyDropped: a.dropped}
	if a.timed {
		// Without OpEnd events every operation awaits and IRPs are
		// reused: nothing is timed, and nothing is said dropped.
		sum.LatencyDropped += a.reused
		if a == &s.file {
			sum.LatencyDropped += len(s.pending)
		}
	}
	sum.Total.Name = "all"
	sum.Total.LatencyMS = roundTick(sum.Total.LatencyMS)
	procs, files := s.rows(a)
	for _, r := range procs[:min(len(procs), maxRows)] {
		sum.ByProcess = append(sum.ByProcess, r.IORow)
	}
	for _, r := range files[:min(len(files), maxRows)] {
		sum.ByFile = append(sum.ByFile, r.IORow)
	}
	return sum
}

// keyedRow is a row of a table and the series of the keys it adds up;
// pk is the process of a row by process.
type keyedRow struct {
	IORow
	srs []*[]cell[IORow]
	pk  procKey
}

// keyedRows are the rows by process and by file name of an aggregate,
// most bytes first.
type keyedRows struct{ procs, files []keyedRow }

// rows returns the rows by process and by file name of an aggregate,
// most bytes first, built once for the summary and the series (the
// callers only read them).
func (s *IOStats) rows(a *ioAgg) (procs, files []keyedRow) {
	if a.keyed == nil {
		procs, files := s.buildRows(a)
		a.keyed = &keyedRows{procs, files}
	}
	return a.keyed.procs, a.keyed.files
}

// buildRows builds and sorts the rows of [IOStats.rows].
func (s *IOStats) buildRows(a *ioAgg) (procs, files []keyedRow) {
	for pk, k := range a.byProc {
		row := keyedRow{k.IORow, []*[]cell[IORow]{k.sr}, pk}
		row.Name = ProcessName(pk.p, pk.pid)
		procs = append(procs, row)
	}
	byName := map[string]*keyedRow{}
	for fk, k := range a.byFile {
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
			m = &keyedRow{IORow: IORow{Name: name}}
			byName[name] = m
		}
		m.merge(&k.IORow)
		m.srs = append(m.srs, k.sr)
	}
	for _, r := range byName {
		files = append(files, *r)
	}
	for _, rows := range [][]keyedRow{procs, files} {
		for i := range rows {
			rows[i].LatencyMS = roundTick(rows[i].LatencyMS)
		}
	}
	order := func(a, b keyedRow) int {
		return cmp.Or(cmp.Compare(b.ReadBytes+b.WriteBytes, a.ReadBytes+a.WriteBytes),
			cmp.Compare(b.Reads+b.Writes, a.Reads+a.Writes), strings.Compare(a.Name, b.Name), a.pk.compare(b.pk))
	}
	slices.SortFunc(procs, order)
	slices.SortFunc(files, order)
	return procs, files
}

// IOOverTime is the I/O of the top rows of the tables by process and by
// file over time: for each row, its I/O per bucket (Factor buckets of the
// aggregate's time axis each; 1 unless the series were too many cells,
// see the aggregate).
type IOOverTime struct {
	Factor    int
	ByProcess []RowSeries[IORow]
	ByFile    []RowSeries[IORow]
}

// DiskOverTime returns the disk I/O of the maxRows processes and files
// with the most bytes over the whole trace, per bucket of the time axis
// (an operation counts in the bucket of its completion, as in
// [IOStats.DiskSeries]); nil without disk I/O or without an axis. The
// cells' latencies are not rounded.
func (s *IOStats) DiskOverTime(maxRows int) *IOOverTime { return s.overTime(&s.disk, maxRows) }

// FileOverTime returns the file I/O as DiskOverTime does the disk's
// (reads and writes count in the bucket of their request, latencies in
// that of their OpEnd, as in [IOStats.FileSeries]).
func (s *IOStats) FileOverTime(maxRows int) *IOOverTime { return s.overTime(&s.file, maxRows) }

func (s *IOStats) overTime(a *ioAgg, maxRows int) *IOOverTime {
	if !a.seen || a.series == nil {
		return nil
	}
	procs, files := s.rows(a)
	ot := &IOOverTime{Factor: int(a.cells.factor)}
	for _, r := range procs[:min(len(procs), maxRows)] {
		ot.ByProcess = append(ot.ByProcess, RowSeries[IORow]{r.Name, a.cells.cellsOf(r.srs...)})
	}
	for _, r := range files[:min(len(files), maxRows)] {
		ot.ByFile = append(ot.ByFile, RowSeries[IORow]{r.Name, a.cells.cellsOf(r.srs...)})
	}
	return ot
}

// roundTick rounds sums of milliseconds to 0.1 µs, the clock's
// resolution, so that float noise stays out of the outputs.
func roundTick(ms float64) float64 { return math.Round(ms*1e4) / 1e4 }
