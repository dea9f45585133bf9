package analysis

import (
	"cmp"
	"slices"
	"strings"

	"github.com/etwkit/etw/catalog"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
)

// DotNetStats aggregates the .NET runtime's allocation ticks (GCAllocationTick:
// an event per ~100 KB allocated, by type and by process) and JIT
// compilations (MethodLoad and MethodLoadVerbose of jitted methods, by
// namespace and by process). Feed it every event, decoded, in time order
// ([DotNetStats.Observe]); its memory grows with the types, namespaces and
// processes, not with the events.
type DotNetStats struct {
	m         *Model
	axis      TimeAxis
	series    []DotNetBucket
	noSeries  DotNetBucket // counts nowhere: without an axis
	jitProc   map[procKey]int
	jitNS     map[string]int
	alloc     map[string]*Allocation
	allocProc map[procKey]*Allocation
	procs     map[procKey]bool
	// the series of the types, namespaces and processes
	cells        *seriesSet[DotNetBucket]
	typeSr, nsSr map[string]*[]cell[DotNetBucket]
	procSr       map[procKey]*[]cell[DotNetBucket]
}

// Allocation counts the allocation ticks of one type.
type Allocation struct {
	Type  string `json:"type"`
	Ticks int    `json:"ticks"`
	Bytes uint64 `json:"bytes"`
}

// JITCount is the number of methods compiled in one namespace.
type JITCount struct {
	Namespace string `json:"namespace"`
	Methods   int    `json:"methods"`
}

// DotNetBucket is what the runtime logged in one bucket of time.
type DotNetBucket struct {
	AllocTicks int
	AllocBytes uint64
	Jitted     int
}

// NewDotNetStats returns an empty aggregate whose events m attributes to
// processes. The totals are also kept per bucket of axis (see
// [DotNetStats.Series]); the zero axis keeps none.
func NewDotNetStats(m *Model, axis TimeAxis) *DotNetStats {
	s := &DotNetStats{m: m, axis: axis, jitProc: map[procKey]int{}, jitNS: map[string]int{},
		alloc: map[string]*Allocation{}, allocProc: map[procKey]*Allocation{}, procs: map[procKey]bool{},
		typeSr: map[string]*[]cell[DotNetBucket]{}, nsSr: map[string]*[]cell[DotNetBucket]{}, procSr: map[procKey]*[]cell[DotNetBucket]{}}
	s.cells = newSeriesSet(axis, (*DotNetBucket).merge)
	if axis.Bucket(axis.Start) >= 0 {
		s.series = make([]DotNetBucket, axis.Buckets)
	}
	return s
}

// Series returns the allocation ticks and JIT compilations per bucket of
// the time axis, nil without an axis. The slice is the aggregate's own.
func (s *DotNetStats) Series() []DotNetBucket { return s.series }

func (s *DotNetStats) bucket(ft int64) *DotNetBucket {
	if s.series == nil {
		return &s.noSeries
	}
	return &s.series[s.axis.Bucket(ft)]
}

// Observe counts ev, if it is an allocation tick or a method load of the
// .NET runtime provider that decoded.
func (s *DotNetStats) Observe(ev *etl.Event, res *decode.Result) {
	if ev.Flags&etl.FlagClassicHeader != 0 || ev.ProviderID != catalog.DotNETRuntimeGUID {
		return
	}
	id := ev.Descriptor.ID
	if id != catalog.DotNETAllocTick && id != catalog.DotNETMethodLoad && id != catalog.DotNETMethodLoadVerbose {
		return
	}
	d := decoded(res)
	if d == nil {
		return
	}
	pid, _, p := s.m.EventProcess(ev, res)
	pk := procKey{p, pid}
	s.procs[pk] = true
	switch id {
	case catalog.DotNETAllocTick:
		amount, ok := d.Uint("AllocationAmount64")
		if !ok {
			amount, _ = d.Uint("AllocationAmount")
		}
		typ, _ := d.String("TypeName")
		if typ == "" {
			typ = "(type not logged)"
		}
		a := s.alloc[typ]
		if a == nil {
			a = &Allocation{Type: typ}
			s.alloc[typ] = a
		}
		a.Ticks++
		a.Bytes += amount
		ap := s.allocProc[pk]
		if ap == nil {
			ap = &Allocation{}
			s.allocProc[pk] = ap
		}
		ap.Ticks++
		ap.Bytes += amount
		tick := func(b *DotNetBucket) {
			if b != nil {
				b.AllocTicks++
				b.AllocBytes += amount
			}
		}
		// one at a time: a cell's pointer lasts until the next cellOf
		tick(s.bucket(ev.Time))
		tick(cellOf(s.cells, s.typeSr, typ, ev.Time))
		tick(cellOf(s.cells, s.procSr, pk, ev.Time))
	default:
		flags, _ := d.Uint("MethodFlags")
		if flags&catalog.DotNETMethodFlagJitted == 0 {
			return
		}
		s.jitProc[pk]++
		s.bucket(ev.Time).Jitted++
		ns, _ := d.String("MethodNamespace")
		if ns == "" {
			ns = "(no namespace)"
		}
		s.jitNS[ns]++
		if b := cellOf(s.cells, s.nsSr, ns, ev.Time); b != nil {
			b.Jitted++
		}
		if b := cellOf(s.cells, s.procSr, pk, ev.Time); b != nil {
			b.Jitted++
		}
	}
}

// Seen reports whether any allocation tick or method load was observed.
func (s *DotNetStats) Seen() bool { return len(s.procs) > 0 }

// Process returns the JIT compilations and the allocation ticks of
// process record p.
func (s *DotNetStats) Process(p *Process) (jitted int, alloc Allocation) {
	pk := procKey{p, p.PID}
	if a := s.allocProc[pk]; a != nil {
		alloc = *a
	}
	return s.jitProc[pk], alloc
}

// Allocations returns the maxRows types with the most bytes allocated
// (then ticks, then name).
func (s *DotNetStats) Allocations(maxRows int) []Allocation {
	out := []Allocation{}
	for _, a := range s.alloc {
		out = append(out, *a)
	}
	slices.SortFunc(out, func(a, b Allocation) int {
		return cmp.Or(cmp.Compare(b.Bytes, a.Bytes), cmp.Compare(b.Ticks, a.Ticks), strings.Compare(a.Type, b.Type))
	})
	return out[:min(len(out), maxRows)]
}

// JIT returns the maxRows namespaces with the most methods compiled.
func (s *DotNetStats) JIT(maxRows int) []JITCount {
	out := []JITCount{}
	for ns, n := range s.jitNS {
		out = append(out, JITCount{ns, n})
	}
	slices.SortFunc(out, func(a, b JITCount) int {
		return cmp.Or(cmp.Compare(b.Methods, a.Methods), strings.Compare(a.Namespace, b.Namespace))
	})
	return out[:min(len(out), maxRows)]
}

// cellOf returns the cell of key k's series (in series) at time ft, nil
// without an axis; valid until the next call.
func cellOf[K comparable](set *seriesSet[DotNetBucket], series map[K]*[]cell[DotNetBucket], k K, ft int64) *DotNetBucket {
	sr, ok := series[k]
	if !ok {
		sr = set.series()
		series[k] = sr
	}
	return set.at(sr, ft)
}

// DotNetOverTime is what the runtime logged over time: the allocation
// ticks of the top types, the methods compiled in the top namespaces, and
// both of each process, per bucket (Factor buckets of the aggregate's
// time axis each).
type DotNetOverTime struct {
	Factor      int
	Allocations []RowSeries[DotNetBucket] // the types of Allocations(maxRows), in that order
	JIT         []RowSeries[DotNetBucket] // the namespaces of JIT(maxRows)
}

// OverTime returns the allocation ticks of the types that
// [DotNetStats.Allocations](maxRows) lists and the JIT compilations of
// the namespaces [DotNetStats.JIT](maxRows) lists per bucket of the time
// axis; nil without an axis.
func (s *DotNetStats) OverTime(maxRows int) *DotNetOverTime {
	if s.series == nil {
		return nil
	}
	ot := &DotNetOverTime{Factor: int(s.cells.factor)}
	for _, a := range s.Allocations(maxRows) {
		ot.Allocations = append(ot.Allocations, RowSeries[DotNetBucket]{a.Type, s.cells.cellsOf(s.typeSr[a.Type])})
	}
	for _, j := range s.JIT(maxRows) {
		ot.JIT = append(ot.JIT, RowSeries[DotNetBucket]{j.Namespace, s.cells.cellsOf(s.nsSr[j.Namespace])})
	}
	return ot
}

// ProcessOverTime returns the allocation ticks and JIT compilations of
// process record p per bucket (of [DotNetOverTime.Factor] axis buckets);
// nil without an axis or when p has none.
func (s *DotNetStats) ProcessOverTime(p *Process) []Cell[DotNetBucket] {
	sr := s.procSr[procKey{p, p.PID}]
	if sr == nil {
		return nil
	}
	return s.cells.cellsOf(sr)
}
