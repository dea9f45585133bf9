package tables

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/google/uuid"
	"github.com/parquet-go/parquet-go"

	"github.com/etwkit/etw/analysis"
	"github.com/etwkit/etw/catalog"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/eventjson"
	"github.com/etwkit/etw/parquetout"
	"github.com/etwkit/etw/tdh"
)

// Aggregates are the per-trace figures a fleet of traces is compared by
// (package fleet writes them as Parquet beside the tables,
// docs/fleet.md). Add computes them, with Options.Aggregates, in the
// passes that write the tables, with the code the stats and stacks
// commands use: the events the pipeline writes and their schemas, the
// CPU samples of the analysis package's enricher (idle thread excluded,
// as stacks counts them), the model's GC statistics.
type Aggregates struct {
	// Computer is the computer name of the trace's SystemConfig CPU
	// event, "" when the trace has none.
	Computer       string
	ProviderEvents []ProviderEventRow
	CPU            []CPUSampleRow
	GC             []GCStatsRow
	File           FileStatsRow
}

// ProviderEventRow counts the events of one provider and event name
// (aggregate provider_events).
type ProviderEventRow struct {
	Trace        int32  `parquet:"trace"`
	ProviderGUID string `parquet:"provider_guid"`
	Provider     string `parquet:"provider,optional"`
	EventName    string `parquet:"event_name,optional"`
	Events       int64  `parquet:"events"`
}

// CPUSampleRow counts the CPU samples of one process whose innermost
// frame is one code location (aggregate cpu_samples): the frame's name
// as the folded stacks give it ("module!function" with symbols or .NET
// methods, "module", "?"; NULL for samples without a stack) and its
// module.
type CPUSampleRow struct {
	Trace    int32   `parquet:"trace"`
	PID      uint32  `parquet:"pid"`
	Process  string  `parquet:"process"`
	Module   string  `parquet:"module,optional"`
	Frame    string  `parquet:"frame,optional"`
	Samples  int64   `parquet:"samples"`
	WeightMS float64 `parquet:"weight_ms"`
}

// GCStatsRow is the garbage collections of one .NET process, as stats
// gives them (aggregate gc_stats).
type GCStatsRow struct {
	Trace        int32   `parquet:"trace"`
	PID          uint32  `parquet:"pid"`
	Process      string  `parquet:"process"`
	GCs          int64   `parquet:"gcs"`
	PauseMSTotal float64 `parquet:"pause_ms_total"`
	PauseMSMax   float64 `parquet:"pause_ms_max"`
}

// FileStatsRow is what a trace lost and what of it was damaged
// (aggregate file_stats): the events read, the events and buffers its
// files' headers say were lost, the damaged buffers and records the
// reader met.
type FileStatsRow struct {
	Trace       int32  `parquet:"trace"`
	Name        string `parquet:"name"`
	Files       int32  `parquet:"files"`
	Events      int64  `parquet:"events"`
	EventsLost  int64  `parquet:"events_lost"`
	BuffersLost int64  `parquet:"buffers_lost"`
	Damaged     int64  `parquet:"damaged"`
}

// aggState gathers the aggregates of one trace while Add reads it.
type aggState struct {
	computer string
	bySchema map[schemaKey]int64 // by provider and schema (nil: none)
	cpu      map[cpuKey]*cpuCount
	damaged  int64
}

type schemaKey struct {
	guid uuid.UUID
	s    *tdh.Event
}

type cpuKey struct {
	p     *analysis.Process
	pid   uint32
	frame frameKey
	none  bool // no stack
}

type cpuCount struct {
	leaf     analysis.Frame
	samples  int64
	weightMS float64
}

func newAggState() *aggState {
	return &aggState{bySchema: map[schemaKey]int64{}, cpu: map[cpuKey]*cpuCount{}}
}

// isComputer reports whether ev is SystemConfig's CPU event, which names
// the computer.
func isComputer(ev *etl.Event) bool {
	return ev.ProviderID == catalog.EventTraceConfigGUID && ev.Descriptor.Opcode == 10 && ev.Flags&etl.FlagClassicHeader != 0
}

// observeComputer keeps the computer name of a SystemConfig CPU event.
func (g *aggState) observeComputer(res *decode.Result) {
	if g.computer != "" || res == nil || res.Decoded == nil {
		return
	}
	// A fixed array of characters (wchar[256]): its text, as TDH
	// renders it.
	if s, ok := res.Decoded.Text("ComputerName"); ok {
		g.computer = strings.TrimSpace(strings.TrimRight(s, "\x00"))
	}
}

// Count counts an event written (pipeline.Counter).
func (g *aggState) Count(ev *etl.Event, s *tdh.Event) { g.bySchema[schemaKey{ev.ProviderID, s}]++ }

// Damaged counts a damaged buffer or record (pipeline.Counter).
func (g *aggState) Damaged(error) { g.damaged++ }

// sample counts a CPU sample of weight ms.
func (g *aggState) sample(a *analysis.Annotation, ms float64) {
	k := cpuKey{p: a.Process, pid: a.PID, none: len(a.Stack) == 0}
	if !k.none {
		f := &a.Stack[0]
		k.frame = frameKey{f.Image, f.Method, f.Address}
		if f.Symbol == nil {
			k.frame.addr = 0 // the method or the module names the frame
		}
	}
	c := g.cpu[k]
	if c == nil {
		c = &cpuCount{}
		if !k.none {
			c.leaf = a.Stack[0]
		}
		g.cpu[k] = c
	}
	c.samples++
	c.weightMS += ms
}

// finish returns the aggregates of trace t.
func (g *aggState) finish(t *traceState, name string, events int64) *Aggregates {
	ag := &Aggregates{Computer: g.computer}
	type pe struct{ guid, provider, event string }
	counts := map[pe]int64{}
	for k, n := range g.bySchema {
		e := pe{guid: guidString(k.guid)}
		if k.s != nil {
			e.provider, e.event = k.s.ProviderName, k.s.EventName
		}
		counts[e] += n
	}
	for k, n := range counts {
		ag.ProviderEvents = append(ag.ProviderEvents, ProviderEventRow{Trace: t.id, ProviderGUID: k.guid, Provider: k.provider, EventName: k.event, Events: n})
	}
	slices.SortFunc(ag.ProviderEvents, func(a, b ProviderEventRow) int {
		return cmp.Or(cmp.Compare(b.Events, a.Events), cmp.Compare(a.ProviderGUID, b.ProviderGUID), cmp.Compare(a.EventName, b.EventName), cmp.Compare(a.Provider, b.Provider))
	})
	cpu := map[CPUSampleRow]*CPUSampleRow{}
	for k, c := range g.cpu {
		r := CPUSampleRow{Trace: t.id, PID: k.pid, Process: "Process"}
		if k.p != nil && k.p.Name != "" {
			r.Process = k.p.Name
		}
		if !k.none {
			r.Frame, r.Module = c.leaf.Name(), c.leaf.Module()
		}
		// Frames of one name (a method's addresses, a module's) are one row.
		row := cpu[r]
		if row == nil {
			row = &CPUSampleRow{}
			*row = r
			cpu[r] = row
		}
		row.Samples += c.samples
		row.WeightMS += c.weightMS
	}
	for _, r := range cpu {
		ag.CPU = append(ag.CPU, *r)
	}
	slices.SortFunc(ag.CPU, func(a, b CPUSampleRow) int {
		return cmp.Or(cmp.Compare(b.Samples, a.Samples), cmp.Compare(a.PID, b.PID), cmp.Compare(a.Frame, b.Frame))
	})
	for _, p := range t.m.Processes() {
		if !p.CLR {
			continue
		}
		r := GCStatsRow{Trace: t.id, PID: p.PID, Process: p.ImageFileName}
		if gc := p.GC; gc != nil {
			r.GCs, r.PauseMSTotal, r.PauseMSMax = int64(gc.Count), ms(gc.PauseTotal.Nanoseconds()), ms(gc.PauseMax.Nanoseconds())
		}
		ag.GC = append(ag.GC, r)
	}
	ag.File = FileStatsRow{Trace: t.id, Name: name, Files: int32(len(t.files)), Events: events, Damaged: g.damaged}
	for _, f := range t.files {
		ag.File.EventsLost += int64(f.Header.EventsLost)
		ag.File.BuffersLost += int64(f.Header.BuffersLost)
	}
	return ag
}

// guidString returns g braced and lower-case, as the events table's
// provider_guid.
func guidString(g uuid.UUID) string { return string(eventjson.AppendGUID(nil, g)) }

// WriteParquet writes rows as one Parquet file to out, compressed as the
// tables are (the fleet's aggregates).
func WriteParquet[T any](out io.Writer, rows []T) error {
	w := parquet.NewGenericWriter[T](out, parquet.Compression(parquetout.Snappy.Codec()),
		parquet.CreatedBy("etwkit tracerpt-go", "", ""))
	if _, err := w.Write(rows); err != nil {
		return fmt.Errorf("parquet: %w", err)
	}
	return w.Close()
}
