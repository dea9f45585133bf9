package analysis

import (
	"bufio"
	"cmp"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
)

// Comparing two traces (a baseline, "before", and "after"): processes
// are matched by image name, since pids differ between traces, and so are
// the roots of the stacks.

// ImageName is the name that matches a process across traces: the
// process frame of its stacks ([ProcessName]) without the pid: Name,
// "Process" for a process the trace does not name, "Unknown" when pid
// is NoID.
func ImageName(p *Process, pid uint32) string {
	switch {
	case p != nil && p.Name != "":
		return p.Name
	case p != nil || pid != NoID:
		return "Process"
	}
	return "Unknown"
}

// imageOfRoot is the root frame of a [Profile]'s stack ("Name (pid)", as
// ProcessName writes it) without its pid.
func imageOfRoot(root string) string {
	i := strings.LastIndex(root, " (")
	if i < 0 || !strings.HasSuffix(root, ")") {
		return root
	}
	if _, err := strconv.ParseUint(root[i+2:len(root)-1], 10, 32); err != nil {
		return root
	}
	return root[:i]
}

// ProcessTotals is what the processes of one image name did in one
// trace; as a delta ([ProcessTotals.Sub]) its counts are signed.
type ProcessTotals struct {
	// Processes counts the process records of the name (pids, and a pid
	// reused).
	Processes int `json:"processes"`
	// CPUSamples counts their PerfInfo SampleProf CPU samples, as
	// [Process.CPUSamples] (and tracerpt-go stats) do.
	CPUSamples int64 `json:"cpu_samples"`
	// GCs and GCPauseMS are their .NET garbage collections and the sum of
	// the GCs' pauses.
	GCs       int64   `json:"gcs"`
	GCPauseMS float64 `json:"gc_pause_ms"`
	// Disk and file I/O: operations (reads and writes) and bytes, as
	// [IOStats] counts them by process.
	DiskOps   int64 `json:"disk_ops"`
	DiskBytes int64 `json:"disk_bytes"`
	FileOps   int64 `json:"file_ops"`
	FileBytes int64 `json:"file_bytes"`
}

// Sub returns t − u, field by field.
func (t ProcessTotals) Sub(u ProcessTotals) ProcessTotals {
	return ProcessTotals{
		Processes:  t.Processes - u.Processes,
		CPUSamples: t.CPUSamples - u.CPUSamples,
		GCs:        t.GCs - u.GCs,
		GCPauseMS:  roundTick(t.GCPauseMS - u.GCPauseMS),
		DiskOps:    t.DiskOps - u.DiskOps,
		DiskBytes:  t.DiskBytes - u.DiskBytes,
		FileOps:    t.FileOps - u.FileOps,
		FileBytes:  t.FileBytes - u.FileBytes,
	}
}

// TotalsByImage adds up m's processes by image name ([ImageName]): their
// records, CPU samples and GCs from m, their disk and file I/O from io
// (nil: none). Placeholders that no event ended up in are left out, as
// tracerpt-go stats leaves them out.
func TotalsByImage(m *Model, io *IOStats) map[string]ProcessTotals {
	out := map[string]ProcessTotals{}
	for _, p := range m.Processes() {
		if p.Events == 0 && p.ImageFileName == "" {
			continue
		}
		name := ImageName(p, p.PID)
		t := out[name]
		t.Processes++
		t.CPUSamples += int64(p.CPUSamples)
		if p.GC != nil {
			t.GCs += int64(p.GC.Count)
			t.GCPauseMS += float64(p.GC.PauseTotal) / float64(time.Millisecond)
		}
		out[name] = t
	}
	if io != nil {
		for pk, r := range io.disk.byProc {
			t := out[ImageName(pk.p, pk.pid)]
			t.DiskOps, t.DiskBytes = t.DiskOps+int64(r.Reads+r.Writes), t.DiskBytes+int64(r.ReadBytes+r.WriteBytes)
			out[ImageName(pk.p, pk.pid)] = t
		}
		for pk, r := range io.file.byProc {
			t := out[ImageName(pk.p, pk.pid)]
			t.FileOps, t.FileBytes = t.FileOps+int64(r.Reads+r.Writes), t.FileBytes+int64(r.ReadBytes+r.WriteBytes)
			out[ImageName(pk.p, pk.pid)] = t
		}
	}
	for name, t := range out {
		t.GCPauseMS = roundTick(t.GCPauseMS)
		out[name] = t
	}
	return out
}

// ProcessDelta is one image name in two traces.
type ProcessDelta struct {
	Name   string        `json:"name"`
	Before ProcessTotals `json:"before"`
	After  ProcessTotals `json:"after"`
	// Delta is After − Before.
	Delta ProcessTotals `json:"delta"`
}

// DiffProcesses pairs the totals of two traces ([TotalsByImage]) by image
// name: every name of either trace, a name missing in one with zero
// totals there. The largest change of CPU samples comes first, then of
// I/O bytes and of GC pauses, then by name.
func DiffProcesses(before, after map[string]ProcessTotals) []ProcessDelta {
	var out []ProcessDelta
	for name, b := range before {
		a := after[name]
		out = append(out, ProcessDelta{Name: name, Before: b, After: a, Delta: a.Sub(b)})
	}
	for name, a := range after {
		if _, ok := before[name]; !ok {
			out = append(out, ProcessDelta{Name: name, After: a, Delta: a.Sub(ProcessTotals{})})
		}
	}
	abs := func(v int64) int64 { return max(v, -v) }
	slices.SortFunc(out, func(x, y ProcessDelta) int {
		return cmp.Or(cmp.Compare(abs(y.Delta.CPUSamples), abs(x.Delta.CPUSamples)),
			cmp.Compare(abs(y.Delta.DiskBytes+y.Delta.FileBytes), abs(x.Delta.DiskBytes+x.Delta.FileBytes)),
			cmp.Compare(max(y.Delta.GCPauseMS, -y.Delta.GCPauseMS), max(x.Delta.GCPauseMS, -x.Delta.GCPauseMS)),
			strings.Compare(x.Name, y.Name))
	})
	return out
}

// ProfileDiff pairs the stacks of two profiles, as FlameGraph's
// difffolded.pl does: each distinct stack with its weight before and
// after. Stack roots are image names ([ImageName]), not "Name (pid)",
// so that the processes of one program match across traces; the stacks
// of processes of one name add up.
type ProfileDiff struct {
	stacks []DiffStack
	// Before and After are the profiles' totals.
	Before, After int64
}

// DiffStack is one stack of a [ProfileDiff]: its frames from the process
// (image name) down to the innermost, and its weights.
type DiffStack struct {
	Frames        []string
	Before, After int64
}

// DiffProfiles pairs the stacks of before and after.
func DiffProfiles(before, after *Profile) *ProfileDiff {
	d := &ProfileDiff{Before: before.Total, After: after.Total}
	index := map[string]int{}
	add := func(p *Profile, isAfter bool) {
		p.EachStack(func(frames []string, w int64) {
			frames[0] = imageOfRoot(frames[0])
			key := strings.Join(frames, ";")
			i, ok := index[key]
			if !ok {
				i = len(d.stacks)
				index[key] = i
				d.stacks = append(d.stacks, DiffStack{Frames: slices.Clone(frames)})
			}
			if isAfter {
				d.stacks[i].After += w
			} else {
				d.stacks[i].Before += w
			}
		})
	}
	add(before, false)
	add(after, true)
	slices.SortFunc(d.stacks, func(a, b DiffStack) int { return slices.Compare(a.Frames, b.Frames) })
	return d
}

// Stacks returns the stacks, sorted by their frames (the order of the
// folded lines). The slice is the diff's own.
func (d *ProfileDiff) Stacks() []DiffStack { return d.stacks }

// WriteFolded writes one line per stack, "frame;...;frame before after",
// the input of FlameGraph's flamegraph.pl for a differential flame graph
// (what difffolded.pl writes). appendWeight formats the weights (nil:
// integers; [AppendMS] for weights in 100 ns units).
func (d *ProfileDiff) WriteFolded(w io.Writer, appendWeight func(b []byte, v int64) []byte) error {
	if appendWeight == nil {
		appendWeight = appendCount
	}
	bw := bufio.NewWriter(w)
	var b []byte
	for _, s := range d.stacks {
		b = append(b[:0], strings.Join(s.Frames, ";")...)
		b = append(b, ' ')
		b = appendWeight(b, s.Before)
		b = append(b, ' ')
		b = appendWeight(b, s.After)
		b = append(b, '\n')
		if _, err := bw.Write(b); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// AppendMS appends a weight in 100 ns units as milliseconds, exactly (up
// to 4 decimals, trailing zeros left out).
func AppendMS(b []byte, ticks int64) []byte {
	if ticks < 0 {
		b = append(b, '-')
		ticks = -ticks
	}
	b = strconv.AppendInt(b, ticks/10000, 10)
	if frac := ticks % 10000; frac != 0 {
		s := strconv.FormatInt(frac+10000, 10)[1:]
		b = append(b, '.')
		b = append(b, strings.TrimRight(s, "0")...)
	}
	return b
}

// DiffNode is a frame of a differential flame graph: the weights of the
// stacks through it before and after, and the frames it calls.
type DiffNode struct {
	Name     string      `json:"n"`
	Before   int64       `json:"b"`
	After    int64       `json:"a"`
	Children []*DiffNode `json:"c,omitempty"`
}

// Tree returns the stacks as a tree: the root ("all") holds the totals
// and has the processes (image names) as children, frames in the order
// of the stacks (by name).
func (d *ProfileDiff) Tree() *DiffNode {
	root := &DiffNode{Name: "all"}
	for _, s := range d.stacks {
		n := root
		n.Before, n.After = n.Before+s.Before, n.After+s.After
		for _, f := range s.Frames {
			// Stacks are sorted: the stacks through one frame follow
			// one another, so its node is its parent's last child.
			if k := len(n.Children); k > 0 && n.Children[k-1].Name == f {
				n = n.Children[k-1]
			} else {
				c := &DiffNode{Name: f}
				n.Children = append(n.Children, c)
				n = c
			}
			n.Before, n.After = n.Before+s.Before, n.After+s.After
		}
	}
	return root
}

// CollectWeighted is [Model.Collect] with each selected event weighed
// by weight (nil: 1 each), e.g. CPU samples by the sampling interval in
// effect at their time, in 100 ns units, read beforehand with a
// [SampleIntervals] ([Annotation.Time]): the profile's weights are then
// CPU time.
//
// With more than one processor (GOMAXPROCS) the stacks of the selected
// events are resolved and added on a goroutine of their own while the
// events that follow are read: weight is then called there, in time
// order and one call at a time, and opts' Select and Observe on the
// calling goroutine.
func (m *Model) CollectWeighted(files []*etl.File, dec *decode.Decoder, opts *CollectOptions, weight func(a *Annotation) int64) (*Profile, CollectStats, error) {
	prof := NewProfile()
	var st CollectStats
	add := func(a *Annotation) {
		st.count(a)
		w := int64(1)
		if weight != nil {
			w = weight(a)
		}
		prof.Add(a.Process, a.PID, a.Stack, w)
	}
	var err error
	if splitCollect() {
		st.Enrich, err = m.eachSelectedAsync(files, dec, opts, add)
	} else {
		st.Enrich, err = m.EachSelected(files, dec, opts, func(a *Annotation) error { add(a); return nil })
	}
	return prof, st, err
}

// FrameDelta is one frame name's weight in the stacks of a
// [ProfileDiff], before and after: inclusive (the stacks through it,
// each counted once however often the frame recurs in it) and
// exclusive (the stacks it ends).
type FrameDelta struct {
	Name       string `json:"name"`
	Before     int64  `json:"before"`
	After      int64  `json:"after"`
	SelfBefore int64  `json:"self_before"`
	SelfAfter  int64  `json:"self_after"`
}

// ByFrame returns the frames of the stacks (processes left out) by name
// with their weights before and after, the largest change of inclusive
// weight first (then of exclusive weight, then by name): the functions
// (or modules) that grew or shrank most, as go tool pprof -diff_base
// lists them.
func (d *ProfileDiff) ByFrame() []FrameDelta {
	idx := map[string]int{}
	var out []FrameDelta
	seen := map[string]bool{}
	for _, s := range d.stacks {
		clear(seen)
		for j, f := range s.Frames {
			if j == 0 {
				continue
			}
			i, ok := idx[f]
			if !ok {
				i = len(out)
				idx[f] = i
				out = append(out, FrameDelta{Name: f})
			}
			if j == len(s.Frames)-1 {
				out[i].SelfBefore += s.Before
				out[i].SelfAfter += s.After
			}
			if !seen[f] {
				seen[f] = true
				out[i].Before += s.Before
				out[i].After += s.After
			}
		}
	}
	abs := func(v int64) int64 { return max(v, -v) }
	slices.SortFunc(out, func(x, y FrameDelta) int {
		return cmp.Or(cmp.Compare(abs(y.After-y.Before), abs(x.After-x.Before)),
			cmp.Compare(abs(y.SelfAfter-y.SelfBefore), abs(x.SelfAfter-x.SelfBefore)), strings.Compare(x.Name, y.Name))
	})
	return out
}
