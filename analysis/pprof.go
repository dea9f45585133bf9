package analysis

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/etwkit/etw/catalog"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/pprof"
)

// DefaultSampleInterval is the interval of CPU samples when the trace
// logs none: Windows' default profile interval, 1 ms (10,000 × 100 ns).
const DefaultSampleInterval = time.Millisecond

// PerfInfo opcodes of the profile-interval events (SampledProfileInterval:
// Source, NewInterval, OldInterval in 100 ns units).
const (
	opSetInterval     = 72
	opCollectionStart = 73
	opCollectionEnd   = 74
)

// PprofOptions configures [Model.CollectPprof].
type PprofOptions struct {
	// CollectOptions selects the events, as for [Model.Collect]: CPU
	// samples by default.
	CollectOptions
	// Interval, when not zero, is the sampling interval of the CPU
	// samples, whatever the trace says.
	Interval time.Duration
}

// PprofStats says what [Model.CollectPprof] wrote.
type PprofStats struct {
	// CollectStats counts the events selected, as [Model.Collect] does.
	CollectStats
	// CPU is set when the samples are CPU samples (the default selection,
	// or a selection of PerfInfo SampleProf events only): their values
	// are samples/count and cpu/nanoseconds. Other events have
	// events/count only.
	CPU bool
	// Interval is the profile's period: the sampling interval of most
	// CPU samples.
	Interval time.Duration
	// IntervalFrom says where the interval came from: "option",
	// "PerfInfo/CollectionStart", "PerfInfo/CollectionEnd" or
	// "PerfInfo/SetInterval" (the first such event of the timer
	// source), or "default" (DefaultSampleInterval: the trace logs no
	// interval).
	IntervalFrom string
	// Mappings, Locations and Functions are the sizes of the profile's
	// tables.
	Mappings, Locations, Functions int
}

// CollectPprof reads files again in time order, as [Model.Collect] does,
// and returns the selected events as a pprof profile (write it with its
// Write method: gzip-compressed profile.proto, which `go tool pprof`
// and github.com/google/pprof/profile read):
//
//   - one sample per event selected, its stack as locations (innermost
//     first); an event without a stack is a sample without locations,
//     which counts in the totals only;
//   - values samples/count and cpu/nanoseconds for CPU samples, the cpu
//     value being the sampling interval in effect at the sample's time
//     (the timer source's PerfInfo CollectionStart, CollectionEnd and
//     SetInterval events; DefaultSampleInterval when the trace has none;
//     opts.Interval overrides); events/count for other events;
//   - one location per distinct code address (and module or method),
//     with the mapping of its image (File the image's path, Start and
//     Limit its address range, BuildID its PDB GUID and age as the
//     symbol server writes them, "GUIDage" in upper-case hex, when the
//     trace carries them) and one function named by [FunctionName]: the
//     .NET method's full name ("Namespace.Type.Method") or the
//     symbolizer's function (with its file and line), "module!0xOFFSET"
//     for other code in an image (offset from the image base),
//     "?!0xADDRESS" for addresses no image or method covers;
//   - string labels process ("Name (pid)", the root frame of the folded
//     format; `go tool pprof -tagroot=process` puts it back at the root)
//     and thread (its name, else its id), numeric labels pid and tid
//     (except 0, which pprof's decoder would drop: the idle process and
//     thread);
//   - TimeNanos and DurationNanos the time of the first event and the
//     time to the last, Period the sampling interval.
//
// A mapping says it has functions (HasFunctions) only when every
// location in it has a real function name (a method or a symbol), so
// that pprof can symbolize the others from the binaries and PDBs.
func (m *Model) CollectPprof(files []*etl.File, dec *decode.Decoder, opts *PprofOptions) (*pprof.Profile, PprofStats, error) {
	var o PprofOptions
	if opts != nil {
		o = *opts
	}
	sel := o.Select
	if sel == nil {
		sel = IsCPUSample
	}
	pb := newPprofBuilder(m)
	var st PprofStats
	var iv intervalTimeline
	// The interval events are decoded and observed whatever the
	// selection; allSamples says whether every event selected (of the
	// processes kept: EachSelected filters them before Select) is a CPU
	// sample.
	allSamples := true
	co := o.CollectOptions
	co.Select = func(ev *etl.Event, res *decode.Result) bool {
		if !sel(ev, res) {
			return false
		}
		allSamples = allSamples && classify(ev) == kSample
		return true
	}
	userDecode, userObserve := o.Decode, o.Observe
	co.Decode = func(ev *etl.Event) bool {
		return isIntervalEvent(ev) || (userDecode != nil && userDecode(ev))
	}
	co.Observe = func(ev *etl.Event, res *decode.Result) {
		if userObserve != nil {
			userObserve(ev, res)
		}
		if isIntervalEvent(ev) {
			iv.observe(ev, res)
		}
	}
	var err error
	st.Enrich, err = m.EachSelected(files, dec, &co, func(a *Annotation) error {
		st.count(a)
		pb.add(a)
		return nil
	})
	st.CPU = o.Select == nil || (allSamples && st.Selected > 0)
	switch {
	case o.Interval > 0:
		iv = intervalTimeline{fixed: int64(o.Interval), from: "option"}
	case len(iv.changes) == 0:
		iv = intervalTimeline{fixed: int64(DefaultSampleInterval), from: "default"}
	}
	p := pb.finish(&iv, st.CPU)
	st.Interval = time.Duration(p.Period)
	if !st.CPU {
		st.Interval = 0
	}
	st.IntervalFrom = iv.from
	st.Mappings, st.Locations, st.Functions = len(p.Mapping), len(p.Location), len(p.Function)
	return p, st, err
}

// maxInterval is the largest profile interval read (100 ns units: an
// hour); a larger one is damage, and its nanoseconds could overflow.
const maxInterval = 36e9

// isIntervalEvent reports whether ev is a PerfInfo SetInterval,
// CollectionStart or CollectionEnd event (see [intervalTimeline.observe]).
func isIntervalEvent(ev *etl.Event) bool {
	if ev.ProviderID != catalog.PerfInfoGUID || ev.Flags&etl.FlagClassicHeader == 0 {
		return false
	}
	op := ev.Descriptor.Opcode
	return (op == opSetInterval || op == opCollectionStart || op == opCollectionEnd) && classify(ev) == kOther
}

// intervalTimeline holds the sampling interval of the timer profile
// source over the trace.
type intervalTimeline struct {
	changes []intervalChange // in time order
	fixed   int64            // ns, when there are no changes
	from    string
}

type intervalChange struct {
	ft            int64
	before, after int64 // ns
}

// observe records a PerfInfo SetInterval, CollectionStart or
// CollectionEnd event of profile source 0 (the timer). CollectionStart
// and CollectionEnd tell the interval in effect (NewInterval);
// SetInterval changes it from OldInterval to NewInterval.
func (iv *intervalTimeline) observe(ev *etl.Event, res *decode.Result) {
	d := decoded(res)
	src, ok := getU(d, "Source")
	if !ok || src != 0 {
		return
	}
	nv, ok := getU(d, "NewInterval")
	if !ok || nv == 0 || nv > maxInterval {
		return
	}
	c := intervalChange{ft: ev.Time, before: int64(nv) * 100, after: int64(nv) * 100}
	name := "PerfInfo/CollectionStart"
	switch ev.Descriptor.Opcode {
	case opSetInterval:
		name = "PerfInfo/SetInterval"
		if ov, ok := getU(d, "OldInterval"); ok && ov != 0 && ov <= maxInterval {
			c.before = int64(ov) * 100
		}
	case opCollectionEnd:
		name = "PerfInfo/CollectionEnd"
	}
	if iv.from == "" {
		iv.from = name
	}
	iv.changes = append(iv.changes, c)
}

// at returns the interval in effect at ft, in nanoseconds: that of the
// last change at or before ft, or the one before the first change.
func (iv *intervalTimeline) at(ft int64) int64 {
	if len(iv.changes) == 0 {
		return iv.fixed
	}
	i, _ := slices.BinarySearchFunc(iv.changes, ft, func(c intervalChange, t int64) int {
		if c.ft <= t {
			return -1
		}
		return 1
	})
	if i == 0 {
		return iv.changes[0].before
	}
	return iv.changes[i-1].after
}

// pprofBuilder builds a pprof.Profile from annotations.
type pprofBuilder struct {
	m        *Model
	p        *pprof.Profile
	mappings map[mappingKey]*pprof.Mapping
	byImage  map[*Image]*pprof.Mapping
	funcs    map[string]*pprof.Function
	locs     map[locationKey]*pprof.Location
	stacks   map[string][]*pprof.Location // identical stacks share a slice
	labels   map[labelKey]*pprofLabels
	weight   map[*Process]int         // samples per process, for the main mapping
	named    map[*pprof.Mapping]uint8 // hasNamed | hasSynthetic
	samples  []pprofSample
	key      []byte
	locBuf   []*pprof.Location
	name     []byte
}

type mappingKey struct {
	path        string
	base, limit uint64
	buildID     string
}

type locationKey struct {
	addr uint64
	m    *pprof.Mapping
	f    *pprof.Function
}

type labelKey struct {
	proc *Process
	pid  uint32
	tid  uint32
	name string
}

type pprofLabels struct {
	str map[string][]string
	num map[string][]int64
}

type pprofSample struct {
	locs   []*pprof.Location
	labels *pprofLabels
	ft     int64
}

func newPprofBuilder(m *Model) *pprofBuilder {
	return &pprofBuilder{
		m:        m,
		p:        &pprof.Profile{},
		mappings: map[mappingKey]*pprof.Mapping{},
		byImage:  map[*Image]*pprof.Mapping{},
		funcs:    map[string]*pprof.Function{},
		locs:     map[locationKey]*pprof.Location{},
		stacks:   map[string][]*pprof.Location{},
		labels:   map[labelKey]*pprofLabels{},
		weight:   map[*Process]int{},
		named:    map[*pprof.Mapping]uint8{},
	}
}

// add adds the sample of one selected event.
func (b *pprofBuilder) add(a *Annotation) {
	locs := b.locBuf[:0]
	key := b.key[:0]
	for i := range a.Stack {
		l := b.location(&a.Stack[i])
		locs = append(locs, l)
		key = binary.LittleEndian.AppendUint64(key, l.ID)
	}
	b.locBuf, b.key = locs, key
	shared := b.stacks[string(key)]
	if shared == nil && len(locs) > 0 {
		shared = slices.Clone(locs)
		b.stacks[string(key)] = shared
	}
	b.samples = append(b.samples, pprofSample{locs: shared, labels: b.labelsOf(a), ft: a.ft})
	b.weight[a.Process]++
}

// ImageBuildID returns the symbol server's key of an image's PDB: its
// GUID as 32 upper-case hex digits followed by its age in hex
// ("EC83D8DF555946E0B1A40123456789AB2"), or "" when the trace does not
// carry the image's PDB identity.
func ImageBuildID(im *Image) string {
	pdb := im.PDB()
	if pdb.GUID == [16]byte{} && pdb.Age == 0 {
		return ""
	}
	g := strings.ToUpper(strings.ReplaceAll(pdb.GUID.String(), "-", ""))
	return g + strconv.FormatUint(uint64(pdb.Age), 16)
}

func (b *pprofBuilder) mapping(im *Image) *pprof.Mapping {
	if im == nil {
		return nil
	}
	if pm, ok := b.byImage[im]; ok {
		return pm
	}
	path := im.Path
	if path == "" {
		path = im.FileName()
	}
	k := mappingKey{path: path, base: im.Base, limit: im.Base + im.Size, buildID: ImageBuildID(im)}
	pm := b.mappings[k]
	if pm == nil {
		pm = &pprof.Mapping{
			ID:      uint64(len(b.p.Mapping) + 1),
			Start:   k.base,
			Limit:   k.limit,
			File:    path,
			BuildID: k.buildID,
		}
		b.p.Mapping = append(b.p.Mapping, pm)
		b.mappings[k] = pm
	}
	b.byImage[im] = pm
	return pm
}

func (b *pprofBuilder) function(f *Frame) *pprof.Function {
	b.name = appendFunctionName(b.name[:0], f)
	if fn, ok := b.funcs[string(b.name)]; ok {
		return fn
	}
	name := string(b.name)
	fn := &pprof.Function{ID: uint64(len(b.p.Function) + 1), Name: name, SystemName: name}
	if f.Symbol != nil {
		fn.Filename = f.Symbol.File
	}
	b.p.Function = append(b.p.Function, fn)
	b.funcs[name] = fn
	return fn
}

func (b *pprofBuilder) location(f *Frame) *pprof.Location {
	pm := b.mapping(f.Image)
	fn := b.function(f)
	k := locationKey{addr: f.Address, m: pm, f: fn}
	if l, ok := b.locs[k]; ok {
		return l
	}
	l := &pprof.Location{ID: uint64(len(b.p.Location) + 1), Mapping: pm, Address: f.Address, Line: []pprof.Line{{Function: fn}}}
	if f.Symbol != nil {
		l.Line[0].Line = int64(f.Symbol.Line)
	}
	if pm != nil {
		if f.HasFunction() {
			b.named[pm] |= hasNamed
		} else {
			b.named[pm] |= hasSynthetic
		}
	}
	b.p.Location = append(b.p.Location, l)
	b.locs[k] = l
	return l
}

// Kinds of function names in a mapping (pprofBuilder.named).
const (
	hasNamed     = 1 << iota // a method or a symbol
	hasSynthetic             // "module!0xOFFSET"
)

// labelsOf returns the labels of an event's sample; samples of one
// thread share them.
func (b *pprofBuilder) labelsOf(a *Annotation) *pprofLabels {
	var thread string
	if a.TID != NoID {
		if th := b.m.threadAt(a.TID, a.ft); th != nil && th.Name != "" {
			thread = th.Name
		}
	}
	k := labelKey{proc: a.Process, pid: a.PID, tid: a.TID, name: thread}
	if l, ok := b.labels[k]; ok {
		return l
	}
	l := &pprofLabels{str: map[string][]string{"process": {ProcessName(a.Process, a.PID)}}, num: map[string][]int64{}}
	// pprof's decoder reads a numeric label of 0 without a unit as no
	// label: the idle process and thread have their string labels only.
	if a.PID != NoID && a.PID != 0 {
		l.num["pid"] = []int64{int64(a.PID)}
	}
	if a.TID != NoID {
		if a.TID != 0 {
			l.num["tid"] = []int64{int64(a.TID)}
		}
		if thread == "" {
			thread = strconv.FormatUint(uint64(a.TID), 10)
		}
		l.str["thread"] = []string{thread}
	}
	b.labels[k] = l
	return l
}

// finish completes the profile: sample types and values, period, time
// range, and the main mapping first.
func (b *pprofBuilder) finish(iv *intervalTimeline, cpu bool) *pprof.Profile {
	p := b.p
	if cpu {
		p.SampleType = []*pprof.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}}
		p.DefaultSampleType = "cpu"
		p.PeriodType = &pprof.ValueType{Type: "cpu", Unit: "nanoseconds"}
		// The period: the interval of most samples (the shortest of
		// equals), or the one at the start of the trace.
		count := map[int64]int{}
		for i := range b.samples {
			count[iv.at(b.samples[i].ft)]++
		}
		p.Period = iv.at(b.m.start)
		best := 0
		for v, n := range count {
			if n > best || n == best && v < p.Period {
				p.Period, best = v, n
			}
		}
		p.Comments = append(p.Comments, fmt.Sprintf("sampling interval %v (%s)", time.Duration(p.Period), intervalNote(iv.from)))
	} else {
		p.SampleType = []*pprof.ValueType{{Type: "events", Unit: "count"}}
		p.PeriodType = &pprof.ValueType{Type: "events", Unit: "count"}
		p.Period = 1
	}
	p.Sample = make([]*pprof.Sample, len(b.samples))
	values := make([]int64, len(b.samples)*len(p.SampleType))
	for i := range b.samples {
		s := &b.samples[i]
		v := values[i*len(p.SampleType) : (i+1)*len(p.SampleType) : (i+1)*len(p.SampleType)]
		v[0] = 1
		if cpu {
			v[1] = iv.at(s.ft)
		}
		p.Sample[i] = &pprof.Sample{Location: s.locs, Value: v, Label: s.labels.str, NumLabel: s.labels.num}
	}
	if b.m.start <= b.m.end {
		p.TimeNanos = etl.FiletimeUnixNano(b.m.start)
		p.DurationNanos = int64(etl.FiletimeDuration(b.m.start, b.m.end))
	}
	for _, pm := range p.Mapping {
		pm.HasFunctions = b.named[pm] == hasNamed
	}
	b.mainMappingFirst()
	return p
}

func intervalNote(from string) string {
	switch from {
	case "option":
		return "given"
	case "default":
		return "Windows' default: the trace logs no profile interval"
	}
	return "from the trace's " + from + " event"
}

// mainMappingFirst puts the image of the process with the most samples
// first, where pprof looks for the main binary ("File:" in its reports).
func (b *pprofBuilder) mainMappingFirst() {
	var procs []*Process
	for p := range b.weight {
		if p != nil {
			procs = append(procs, p)
		}
	}
	slices.SortFunc(procs, func(x, y *Process) int {
		if c := cmp.Compare(b.weight[y], b.weight[x]); c != 0 {
			return c
		}
		return cmp.Compare(x.Index, y.Index)
	})
	for _, proc := range procs {
		if proc.ImageFileName == "" {
			continue
		}
		for _, im := range proc.Images() {
			if !strings.EqualFold(im.FileName(), baseName(proc.ImageFileName)) {
				continue
			}
			pm := b.mapping(im)
			maps := b.p.Mapping
			i := slices.Index(maps, pm)
			copy(maps[1:i+1], maps[:i])
			maps[0] = pm
			for j, mm := range maps {
				mm.ID = uint64(j + 1)
			}
			return
		}
	}
}
