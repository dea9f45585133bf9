package report

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/etwkit/etw/analysis"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/pipeline"
)

// Event classes and providers the report reads. Kernel events are told
// apart by their class GUID and opcode, .NET runtime events by provider
// GUID and event id (as package analysis does).
var (
	guidDiskIo     = uuid.MustParse("3d6fa8d4-fe05-11d0-9dda-00c04fd7ba7c")
	guidFileIo     = uuid.MustParse("90cbdc39-4a3e-11d1-84f4-0000f80464e3")
	guidRTLost     = uuid.MustParse("6a399ae0-4bc6-4de9-870b-3657f8947e7e") // RT_LostEvent
	guidClrRuntime = uuid.MustParse("e13c0d23-ccbc-4e12-931b-d9cc2eee27e4")
)

// Opcodes of DiskIo and FileIo, event ids of the .NET runtime.
const (
	opDiskRead    = 10
	opDiskWrite   = 11
	opFileName    = 0
	opFileCreate  = 32
	opFileDelete  = 35
	opFileRundown = 36
	opFileOpen    = 64 // FileIo Create: OpenPath
	opFileRead    = 67
	opFileWrite   = 68
	opFileOpEnd   = 76

	clrAllocTick         = 10
	clrMethodLoad        = 141
	clrMethodLoadVerbose = 143
	clrMethodJitted      = 0x8 // MethodFlags: Jitted
)

// maxProcesses bounds the process list (the ones with most events stay).
const maxProcesses = 500

// maxPending bounds the FileIo operations waiting for their OpEnd.
const maxPending = 1 << 16

type procKey struct {
	p   *analysis.Process
	pid uint32
}

type fileKey struct {
	key, alt uint64 // FileKey (or FileObject), FileObject
}

type pendingOp struct {
	ft   int64
	proc procKey
	file fileKey
}

// ioAgg aggregates one kind of I/O.
type ioAgg struct {
	seen   bool
	timed  bool
	total  IORow
	byProc map[procKey]*IORow
	byFile map[fileKey]*IORow
}

func (a *ioAgg) add(pk procKey, fk fileKey, write bool, size uint64, ms float64, timed bool) {
	if a.byProc == nil {
		a.byProc, a.byFile = map[procKey]*IORow{}, map[fileKey]*IORow{}
	}
	a.seen = true
	rows := [3]*IORow{&a.total, a.byProc[pk], a.byFile[fk]}
	if rows[1] == nil {
		rows[1] = &IORow{}
		a.byProc[pk] = rows[1]
	}
	if rows[2] == nil {
		rows[2] = &IORow{}
		a.byFile[fk] = rows[2]
	}
	for _, r := range rows {
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

func (r *IORow) addLatency(ms float64) {
	r.LatencyMS += ms
	r.MaxMS = max(r.MaxMS, ms)
	r.Timed++
}

// collector is the second pass: every event decoded, with its process and
// stack.
type collector struct {
	o     *Options
	m     *analysis.Model
	files []*etl.File
	t0    int64 // FILETIME of the first event
	width int64 // bucket width, 100 ns
	nb    int

	perProv  map[uuid.UUID][]int32
	lastProv uuid.UUID
	lastCnt  []int32
	lastIdx  int32
	provIdx  map[uuid.UUID]int32
	provs    []uuid.UUID
	levels   []*level
	pc       decode.ProviderCounter
	cov      [numCoverage]int

	fileEvents []int
	fileTypes  [][256]int // per file, records by header type
	fileFirst  []int64
	fileLast   []int64
	lost       []Marker

	prof      *analysis.Profile
	withStack int

	jitProc   map[procKey]int
	jitNS     map[string]int
	alloc     map[string]*Allocation
	allocProc map[procKey]*Allocation
	clrProcs  map[procKey]bool

	disk, file ioAgg
	names      map[uint64]string
	pending    map[uint64]pendingOp
}

func build(files []*etl.File, dec *decode.Decoder, o *Options) (*Data, error) {
	var warnings []error
	// One pass builds the model and registers the schemas the trace
	// carries (a prescan). The model's own reader meets the same damaged
	// buffers as the pass below, which reports them.
	m, _, prescanErr := pipeline.Prepare(files, dec)
	if prescanErr != nil {
		warnings = append(warnings, prescanErr)
	}
	d := &Data{Title: o.Title}
	if d.Title == "" {
		var names []string
		for i := range files {
			names = append(names, filepath.Base(fileName(files, o, i)))
		}
		d.Title = strings.Join(names, ", ")
	}
	c := &collector{o: o, m: m, files: files}
	c.prepare()
	readErrs := c.pass(dec)
	c.overview(d, readErrs)
	c.timeline(d)
	c.processes(d)
	c.cpu(d)
	c.dotnet(d)
	c.io(d)
	for _, p := range c.pc.Providers() {
		d.Providers = append(d.Providers, Provider{GUID: "{" + p.GUID.String() + "}", Name: p.Name, Class: p.Class,
			Events: p.Events, Decoded: p.Decoded, Source: p.Source()})
	}
	return d, errors.Join(append(readErrs, warnings...)...)
}

func fileName(files []*etl.File, o *Options, i int) string {
	if i < len(o.Names) && o.Names[i] != "" {
		return o.Names[i]
	}
	if files[i].Name != "" {
		return files[i].Name
	}
	return "file " + strconv.Itoa(i+1)
}

// niceWidth returns the timeline's bucket width, in 100 ns: the
// smallest 1, 2 or 5 × 10^k (at least 1 µs) that covers span in at most
// maxBuckets buckets.
func niceWidth(span int64, maxBuckets int) int64 {
	least := span/int64(maxBuckets) + 1
	for w := int64(1); ; w *= 10 {
		for _, f := range []int64{1, 2, 5} {
			if w*f >= least && w*f >= 10 {
				return w * f
			}
		}
	}
}

func (c *collector) prepare() {
	n := len(c.files)
	c.fileEvents = make([]int, n)
	c.fileTypes = make([][256]int, n)
	c.fileFirst = make([]int64, n)
	c.fileLast = make([]int64, n)
	c.perProv = map[uuid.UUID][]int32{}
	c.jitProc, c.jitNS = map[procKey]int{}, map[string]int{}
	c.alloc, c.allocProc = map[string]*Allocation{}, map[procKey]*Allocation{}
	c.clrProcs = map[procKey]bool{}
	c.names, c.pending = map[uint64]string{}, map[uint64]pendingOp{}
	if c.m.Events == 0 {
		return
	}
	c.t0 = etl.TimeToFiletime(c.m.Start())
	span := etl.TimeToFiletime(c.m.End()) - c.t0
	c.width = niceWidth(span, c.o.Buckets)
	c.nb = int(span/c.width) + 1
	c.provIdx = map[uuid.UUID]int32{}
	for w, i := c.width/10, 0; w >= 10 && i < maxLevels; w, i = w/10, i+1 {
		c.levels = append(c.levels, &level{width: w, counts: map[lkey]int32{}})
	}
}

// Detail levels of the timeline: at most maxLevels, each dropped (with
// the finer ones) once it holds more than maxLevelEntries (bucket,
// provider) counts; at most maxDetailRows buckets are written in all.
const (
	maxLevels       = 6
	maxLevelEntries = 40000
	maxDetailNums   = 80000 // numbers in all the levels' rows
)

type lkey struct {
	b int64
	p int32
}

// level counts events per (bucket, provider) at one finer resolution.
type level struct {
	width  int64
	counts map[lkey]int32
	last   lkey
	pend   int32
}

func (l *level) flush() {
	if l.pend > 0 {
		l.counts[l.last] += l.pend
		l.pend = 0
	}
}

// sec returns a FILETIME as seconds from the first event.
func (c *collector) sec(t int64) float64 { return float64(t-c.t0) / 1e7 }

func (c *collector) pass(dec *decode.Decoder) []error {
	opts := &analysis.CollectOptions{NeedsSchema: true, Observe: c.observe} // CPU samples
	prof, st, err := c.m.Collect(c.files, dec, opts)
	c.prof, c.withStack = prof, st.WithStack
	// err joins the damaged buffers and records.
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	if err != nil {
		return []error{err}
	}
	return nil
}

// observe takes every event, decoded, in time order.
func (c *collector) observe(ev *etl.Event, res *decode.Result) {
	c.count(ev, res)
	c.event(ev, res)
}

// count does what every event needs: files, providers, coverage,
// timeline.
func (c *collector) count(ev *etl.Event, res *decode.Result) {
	i := ev.File
	c.fileEvents[i]++
	c.fileTypes[i][ev.Header]++
	if c.fileFirst[i] == 0 || ev.Time < c.fileFirst[i] {
		c.fileFirst[i] = ev.Time
	}
	c.fileLast[i] = max(c.fileLast[i], ev.Time)
	c.pc.Add(ev, res)
	switch {
	case res == nil || res.Schema == nil:
		if res != nil && res.Err != nil {
			c.cov[covError]++
		} else {
			c.cov[covNone]++
		}
	case res.Err != nil:
		c.cov[covError]++
	default:
		c.cov[coverageOf(res.Origin.Kind)]++
	}
	if c.nb == 0 {
		return
	}
	counts := c.lastCnt
	if counts == nil || ev.ProviderID != c.lastProv {
		counts = c.perProv[ev.ProviderID]
		if counts == nil {
			counts = make([]int32, c.nb)
			c.perProv[ev.ProviderID] = counts
			c.provIdx[ev.ProviderID] = int32(len(c.provs))
			c.provs = append(c.provs, ev.ProviderID)
		}
		c.lastProv, c.lastCnt, c.lastIdx = ev.ProviderID, counts, c.provIdx[ev.ProviderID]
	}
	rel := max(ev.Time-c.t0, 0)
	counts[min(int(rel/c.width), c.nb-1)]++
	for i, l := range c.levels {
		k := lkey{rel / l.width, c.lastIdx}
		if k == l.last {
			l.pend++
			continue
		}
		l.flush()
		l.last, l.pend = k, 1
		if len(l.counts) > maxLevelEntries {
			c.levels = c.levels[:i] // this level and the finer ones
			break
		}
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

// event reads the events the .NET and I/O sections use.
func (c *collector) event(ev *etl.Event, res *decode.Result) {
	classic := ev.Flags&etl.FlagClassicHeader != 0
	switch {
	case classic && ev.ProviderID == guidRTLost:
		kind := "lost"
		switch ev.Descriptor.Opcode {
		case 32:
			kind = "events lost"
		case 33:
			kind = "buffer lost"
		case 34:
			kind = "file lost"
		}
		c.lost = append(c.lost, Marker{T: c.sec(ev.Time), Kind: kind, Detail: "real-time lost-event record"})
	case classic && ev.ProviderID == guidDiskIo:
		c.diskEvent(ev, res)
	case classic && ev.ProviderID == guidFileIo:
		c.fileEvent(ev, res)
	case !classic && ev.ProviderID == guidClrRuntime:
		c.clrEvent(ev, res)
	}
}

func decoded(res *decode.Result) bool {
	return res != nil && res.Schema != nil && res.Decoded != nil
}

func (c *collector) procOf(ev *etl.Event, res *decode.Result) procKey {
	pid, _, p := c.m.EventProcess(ev, res)
	return procKey{p, pid}
}

func (c *collector) diskEvent(ev *etl.Event, res *decode.Result) {
	op := ev.Descriptor.Opcode
	if (op != opDiskRead && op != opDiskWrite) || !decoded(res) {
		return
	}
	d := res.Decoded
	size, _ := d.Uint("TransferSize")
	fo, _ := d.Uint("FileObject")
	var ms float64
	rt, timed := d.Uint("HighResResponseTime")
	if f := c.files[ev.File].Header.PerfFreq; timed && f > 0 {
		ms = float64(rt) * 1000 / float64(f)
	} else {
		timed = false
	}
	c.disk.add(c.procOf(ev, res), fileKey{fo, fo}, op == opDiskWrite, size, ms, timed)
}

func (c *collector) fileEvent(ev *etl.Event, res *decode.Result) {
	if !decoded(res) {
		return
	}
	d := res.Decoded
	switch ev.Descriptor.Opcode {
	case opFileName, opFileCreate, opFileDelete, opFileRundown:
		fo, ok := d.Uint("FileObject")
		if name, _ := d.String("FileName"); ok && name != "" {
			c.names[fo] = name
		}
	case opFileOpen:
		fo, ok := d.Uint("FileObject")
		if name, _ := d.String("OpenPath"); ok && name != "" {
			if _, known := c.names[fo]; !known {
				c.names[fo] = name
			}
		}
	case opFileRead, opFileWrite:
		fo, _ := d.Uint("FileObject")
		fk := fileKey{fo, fo}
		if k, ok := d.Uint("FileKey"); ok && k != 0 {
			fk.key = k
		}
		size, _ := d.Uint("IoSize")
		pk := c.procOf(ev, res)
		c.file.add(pk, fk, ev.Descriptor.Opcode == opFileWrite, size, 0, false)
		if irp, ok := d.Uint("IrpPtr"); ok && len(c.pending) < maxPending {
			c.pending[irp] = pendingOp{ev.Time, pk, fk}
		}
	case opFileOpEnd:
		irp, ok := d.Uint("IrpPtr")
		if !ok {
			return
		}
		p, ok := c.pending[irp]
		if !ok {
			return
		}
		delete(c.pending, irp)
		ms := float64(ev.Time-p.ft) / 1e4
		c.file.timed = true
		c.file.total.addLatency(ms)
		if r := c.file.byProc[p.proc]; r != nil {
			r.addLatency(ms)
		}
		if r := c.file.byFile[p.file]; r != nil {
			r.addLatency(ms)
		}
	}
}

func (c *collector) clrEvent(ev *etl.Event, res *decode.Result) {
	id := ev.Descriptor.ID
	if id != clrAllocTick && id != clrMethodLoad && id != clrMethodLoadVerbose {
		return
	}
	if !decoded(res) {
		return
	}
	d := res.Decoded
	pk := c.procOf(ev, res)
	c.clrProcs[pk] = true
	switch id {
	case clrAllocTick:
		amount, ok := d.Uint("AllocationAmount64")
		if !ok {
			amount, _ = d.Uint("AllocationAmount")
		}
		typ, _ := d.String("TypeName")
		if typ == "" {
			typ = "(type not logged)"
		}
		a := c.alloc[typ]
		if a == nil {
			a = &Allocation{Type: typ}
			c.alloc[typ] = a
		}
		a.Ticks++
		a.Bytes += amount
		ap := c.allocProc[pk]
		if ap == nil {
			ap = &Allocation{}
			c.allocProc[pk] = ap
		}
		ap.Ticks++
		ap.Bytes += amount
	default:
		flags, _ := d.Uint("MethodFlags")
		if flags&clrMethodJitted == 0 {
			return
		}
		c.jitProc[pk]++
		ns, _ := d.String("MethodNamespace")
		if ns == "" {
			ns = "(no namespace)"
		}
		c.jitNS[ns]++
	}
}

func rfc3339(t int64) string {
	return etl.FiletimeToTime(t).Format("2006-01-02T15:04:05.0000000Z")
}

func (c *collector) overview(d *Data, readErrs []error) {
	ov := &d.Overview
	ov.Files = []FileFacts{}
	for i, f := range c.files {
		h := &f.Header
		st := etl.Stats{Events: c.fileEvents[i], HeaderTypes: map[etl.HeaderType]int{}, FirstTime: c.fileFirst[i], LastTime: c.fileLast[i]}
		for t, n := range c.fileTypes[i] {
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
		ov.Start, ov.End = rfc3339(c.t0), rfc3339(etl.TimeToFiletime(c.m.End()))
		ov.DurationSec = c.m.End().Sub(c.m.Start()).Seconds()
	}
	for _, p := range c.m.Processes() {
		if listed(p) {
			ov.Processes++
		}
	}
	ov.Coverage = []Coverage{}
	for k, name := range coverageNames {
		if n := c.cov[k]; n > 0 {
			ov.Coverage = append(ov.Coverage, Coverage{name, n})
		}
	}
	ov.Damaged = []Damage{}
	for _, err := range readErrs {
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
		end := etl.TimeToFiletime(c.m.End())
		if t < c.t0-1e7 || t > end+1e7 { // a flush time outside the trace: not credible
			return 0, false
		}
		return c.sec(min(max(t, c.t0), end)), true
	}
	return 0, false
}

func (c *collector) timeline(d *Data) {
	if c.nb == 0 {
		return
	}
	tl := &Timeline{BucketSec: float64(c.width) / 1e7, Buckets: c.nb, Lost: []Marker{}, Damaged: []Marker{}}
	other := Series{Counts: make([]int, c.nb)}
	others := 0
	for i, p := range c.pc.Providers() {
		counts := c.perProv[p.GUID]
		if i < c.o.TopProviders {
			s := Series{Name: providerLabel(&p), GUID: "{" + p.GUID.String() + "}", Events: p.Events, Counts: make([]int, c.nb)}
			for b, n := range counts {
				s.Counts[b] = int(n)
			}
			tl.Series = append(tl.Series, s)
			continue
		}
		others++
		other.Events += p.Events
		for b, n := range counts {
			other.Counts[b] += int(n)
		}
	}
	if others > 0 {
		other.Name = fmt.Sprintf("%d other providers", others)
		if others == 1 {
			other.Name = "1 other provider"
		}
		tl.Series = append(tl.Series, other)
	}
	tl.Detail = c.details(len(tl.Series))
	end := etl.TimeToFiletime(c.m.End())
	for i, f := range c.files {
		for _, b := range f.Buffers() {
			fl := b.Header.Flags
			if fl&(etl.BufferFlagEventsLost|etl.BufferFlagBufferLost) == 0 {
				continue
			}
			t := f.Clock.FileTime(b.Header.TimeStamp)
			if t < c.t0 || t > end {
				continue
			}
			kind := "events lost"
			if fl&etl.BufferFlagBufferLost != 0 {
				kind = "buffer lost"
			}
			tl.Lost = append(tl.Lost, Marker{T: c.sec(t), Kind: kind,
				Detail: fmt.Sprintf("%s: buffer at offset %#x flagged", fileName(c.files, c.o, i), b.FileOffset)})
		}
	}
	tl.Lost = append(tl.Lost, c.lost...)
	slices.SortStableFunc(tl.Lost, func(a, b Marker) int { return cmp.Compare(a.T, b.T) })
	for _, dm := range d.Overview.Damaged {
		if dm.T != nil {
			tl.Damaged = append(tl.Damaged, Marker{T: *dm.T, Kind: "damaged",
				Detail: fmt.Sprintf("%s: offset %#x: %s", dm.File, dm.Offset, dm.Message)})
		}
	}
	slices.SortStableFunc(tl.Damaged, func(a, b Marker) int { return cmp.Compare(a.T, b.T) })
	d.Timeline = tl
}

// details turns the detail levels into rows of counts per series, from
// the coarsest level to the finest that fits in maxDetailNums numbers.
func (c *collector) details(nseries int) []Detail {
	series := make([]int, len(c.provs)) // provider index → series
	top := map[uuid.UUID]int{}
	for i, p := range c.pc.Providers() {
		top[p.GUID] = min(i, nseries-1)
	}
	for i, g := range c.provs {
		series[i] = top[g]
	}
	out := []Detail{}
	nums := 0
	for _, l := range c.levels {
		l.flush()
		byBucket := map[int64][]int{}
		for k, n := range l.counts {
			r := byBucket[k.b]
			if r == nil {
				r = make([]int, nseries)
				byBucket[k.b] = r
			}
			r[series[k.p]] += int(n)
		}
		d := Detail{BucketSec: float64(l.width) / 1e7, Buckets: make([][]int, 0, len(byBucket))}
		n := 0
		for b, counts := range byBucket {
			row := []int{int(b)}
			for s, v := range counts {
				if v > 0 {
					row = append(row, s, v)
				}
			}
			n += len(row)
			d.Buckets = append(d.Buckets, row)
		}
		if nums+n > maxDetailNums {
			break
		}
		nums += n
		slices.SortFunc(d.Buckets, func(a, b []int) int { return cmp.Compare(a[0], b[0]) })
		out = append(out, d)
	}
	return out
}

// providerLabel names a provider as the providers table does.
func providerLabel(p *decode.ProviderStat) string {
	name := p.Name
	if p.Class != "" {
		name += "/" + p.Class
	}
	if name == "" {
		name = "{" + p.GUID.String() + "}"
	}
	return name
}

// listed reports whether a process record goes into the report: not a
// placeholder no event ended up in.
func listed(p *analysis.Process) bool { return p.Events > 0 || p.ImageFileName != "" }

func (c *collector) relTime(t time.Time) *float64 {
	if t.IsZero() {
		return nil
	}
	s := t.Sub(c.m.Start()).Seconds()
	return &s
}

func (c *collector) processes(d *Data) {
	var list []*analysis.Process
	for _, p := range c.m.Processes() {
		if listed(p) {
			list = append(list, p)
		}
	}
	if len(list) == 0 {
		return
	}
	ps := &Processes{}
	if len(list) > maxProcesses {
		slices.SortStableFunc(list, func(a, b *analysis.Process) int { return cmp.Compare(b.Events, a.Events) })
		ps.Omitted = len(list) - maxProcesses
		list = list[:maxProcesses]
	}
	for _, p := range list {
		name := p.ImageFileName
		if name == "" {
			name = analysis.ProcessName(p, p.PID)
		}
		ps.List = append(ps.List, Process{PID: p.PID, Name: name, CommandLine: p.CommandLine,
			Start: c.relTime(p.Start()), End: c.relTime(p.End()), Events: p.Events, CPUSamples: p.CPUSamples,
			Threads: len(p.Threads()), DotNet: p.CLR})
	}
	// By start (those running when the trace began first), then pid.
	slices.SortStableFunc(ps.List, func(a, b Process) int {
		as, bs := -1.0, -1.0
		if a.Start != nil {
			as = *a.Start
		}
		if b.Start != nil {
			bs = *b.Start
		}
		if c := cmp.Compare(as, bs); c != 0 {
			return c
		}
		return cmp.Compare(a.PID, b.PID)
	})
	d.Processes = ps
}

func (c *collector) cpu(d *Data) {
	if c.prof.Total == 0 {
		return
	}
	root, frames := flameTree(c.prof)
	kept := prune(root, c.o.FlameMinFraction)
	d.CPU = &CPU{Samples: root.Value, WithStack: c.withStack, MinFraction: c.o.FlameMinFraction,
		Frames: frames, Kept: kept, Root: root}
}

var gcReasons = []string{"AllocSmall", "Induced", "LowMemory", "Empty", "AllocLarge", "OutOfSpaceSOH", "OutOfSpaceLOH",
	"InducedNotForced", "Internal", "InducedLowMemory", "InducedCompacting", "LowMemoryHost", "PMFullGC", "LowMemoryHostBlocking"}

var gcTypes = []string{"Blocking", "Background", "Foreground"}

func nameOf(names []string, v uint32) string {
	if int(v) < len(names) {
		return names[v]
	}
	return strconv.FormatUint(uint64(v), 10)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// round4 rounds sums of milliseconds to 0.1 µs, the clock's resolution,
// so that float noise stays out of the JSON.
func round4(v float64) float64 { return math.Round(v*1e4) / 1e4 }

func (c *collector) dotnet(d *Data) {
	var procs []*analysis.Process
	for _, p := range c.m.Processes() {
		if p.CLR {
			procs = append(procs, p)
		}
	}
	if len(procs) == 0 && len(c.clrProcs) == 0 {
		return
	}
	dn := &DotNet{Processes: []DotNetProcess{}, GCs: []GC{}, Generations: []Generation{}, Allocations: []Allocation{}, JIT: []JITCount{}}
	gens := map[uint32]*Generation{}
	seen := map[*analysis.Process]bool{}
	for _, p := range procs {
		seen[p] = true
		dp := DotNetProcess{PID: p.PID, Name: p.ImageFileName}
		if dp.Name == "" {
			dp.Name = analysis.ProcessName(p, p.PID)
		}
		if g := p.GC; g != nil {
			dp.GCs, dp.PauseMSTotal, dp.PauseMSMax = g.Count, ms(g.PauseTotal), ms(g.PauseMax)
			for _, gc := range g.GCs {
				dn.GCs = append(dn.GCs, GC{PID: p.PID, Process: p.String(), Number: gc.Number, Generation: gc.Generation,
					Reason: nameOf(gcReasons, gc.Reason), Type: nameOf(gcTypes, gc.Type), T: gc.Start.Sub(c.m.Start()).Seconds(),
					PauseMS: ms(gc.Pause), DurationMS: ms(gc.Duration)})
				gs := gens[gc.Generation]
				if gs == nil {
					gs = &Generation{Generation: gc.Generation}
					gens[gc.Generation] = gs
				}
				gs.Count++
				gs.PauseMSTotal += ms(gc.Pause)
				gs.PauseMSMax = max(gs.PauseMSMax, ms(gc.Pause))
			}
		}
		pk := procKey{p, p.PID}
		dp.Jitted = c.jitProc[pk]
		if a := c.allocProc[pk]; a != nil {
			dp.AllocTicks, dp.AllocBytes = a.Ticks, a.Bytes
		}
		dn.Processes = append(dn.Processes, dp)
	}
	slices.SortStableFunc(dn.GCs, func(a, b GC) int { return cmp.Compare(a.T, b.T) })
	if len(dn.GCs) > c.o.MaxGCs {
		dn.GCsOmitted = len(dn.GCs) - c.o.MaxGCs
		dn.GCs = dn.GCs[:c.o.MaxGCs]
	}
	for _, g := range gens {
		g.PauseMSTotal = round4(g.PauseMSTotal)
		dn.Generations = append(dn.Generations, *g)
	}
	slices.SortFunc(dn.Generations, func(a, b Generation) int { return cmp.Compare(a.Generation, b.Generation) })
	for _, a := range c.alloc {
		dn.Allocations = append(dn.Allocations, *a)
	}
	slices.SortFunc(dn.Allocations, func(a, b Allocation) int {
		return cmp.Or(cmp.Compare(b.Bytes, a.Bytes), cmp.Compare(b.Ticks, a.Ticks), strings.Compare(a.Type, b.Type))
	})
	dn.Allocations = dn.Allocations[:min(len(dn.Allocations), c.o.MaxRows)]
	for ns, n := range c.jitNS {
		dn.JIT = append(dn.JIT, JITCount{ns, n})
	}
	slices.SortFunc(dn.JIT, func(a, b JITCount) int {
		return cmp.Or(cmp.Compare(b.Methods, a.Methods), strings.Compare(a.Namespace, b.Namespace))
	})
	dn.JIT = dn.JIT[:min(len(dn.JIT), c.o.MaxRows)]
	slices.SortStableFunc(dn.Processes, func(a, b DotNetProcess) int {
		return cmp.Or(cmp.Compare(b.GCs, a.GCs), cmp.Compare(b.Jitted, a.Jitted), cmp.Compare(a.PID, b.PID))
	})
	d.DotNet = dn
}

func (c *collector) io(d *Data) {
	disk, file := c.summary(&c.disk), c.summary(&c.file)
	if disk == nil && file == nil {
		return
	}
	d.IO = &IO{Disk: disk, File: file}
}

// summary turns an aggregate into the report's tables: rows by process
// and by file name (file objects of one path merge), most bytes first.
func (c *collector) summary(a *ioAgg) *IOSummary {
	if !a.seen {
		return nil
	}
	s := &IOSummary{Total: a.total, LatencyKnown: a.timed}
	s.Total.Name = "all"
	for pk, r := range a.byProc {
		row := *r
		row.Name = analysis.ProcessName(pk.p, pk.pid)
		s.ByProcess = append(s.ByProcess, row)
	}
	byName := map[string]*IORow{}
	for fk, r := range a.byFile {
		name := c.names[fk.key]
		if name == "" {
			name = c.names[fk.alt]
		}
		if name == "" {
			name = fmt.Sprintf("(file object %#x)", fk.key)
		}
		m := byName[name]
		if m == nil {
			m = &IORow{Name: name}
			byName[name] = m
		}
		m.Reads += r.Reads
		m.Writes += r.Writes
		m.ReadBytes += r.ReadBytes
		m.WriteBytes += r.WriteBytes
		m.LatencyMS += r.LatencyMS
		m.MaxMS = max(m.MaxMS, r.MaxMS)
		m.Timed += r.Timed
	}
	for _, r := range byName {
		s.ByFile = append(s.ByFile, *r)
	}
	for _, rows := range [][]IORow{s.ByProcess, s.ByFile, {s.Total}} {
		for i := range rows {
			rows[i].LatencyMS = round4(rows[i].LatencyMS)
		}
	}
	s.Total.LatencyMS = round4(s.Total.LatencyMS)
	order := func(a, b IORow) int {
		return cmp.Or(cmp.Compare(b.ReadBytes+b.WriteBytes, a.ReadBytes+a.WriteBytes),
			cmp.Compare(b.Reads+b.Writes, a.Reads+a.Writes), strings.Compare(a.Name, b.Name))
	}
	slices.SortFunc(s.ByProcess, order)
	slices.SortFunc(s.ByFile, order)
	s.ByProcess = s.ByProcess[:min(len(s.ByProcess), c.o.MaxRows)]
	s.ByFile = s.ByFile[:min(len(s.ByFile), c.o.MaxRows)]
	return s
}
