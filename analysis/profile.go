package analysis

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"encoding/json"
	"io"
	"slices"
	"strconv"
	"strings"
)

// Profile aggregates stacks into counts per distinct stack, for flame
// graphs: [Profile.WriteFolded] writes the folded format of FlameGraph,
// inferno and speedscope's importer, [Profile.WriteSpeedscope] speedscope's
// own file format.
//
// Frames are named by [Frame.Name]: "module!function" for managed code
// and symbolized code, the module's file name for other code
// (consecutive such frames of one module fold into one), "?" for
// addresses no module or method covers. The root of every stack is its process,
// "Name (pid)".
type Profile struct {
	names  []string
	nameID map[string]int32
	frame  map[frameKey]int32
	stacks map[string]*profileStack
	// Total is the sum of the weights added.
	Total int64
	ids   []int32
	key   []byte
}

type frameKey struct {
	im  *Image
	m   *Method
	sym *Symbol // frames of one function may hold several: their names intern to one id
}

type profileStack struct {
	id      int32   // the order the stack was first added in
	process int32   // name id of the process frame
	frames  []int32 // root first, process excluded
	weight  int64
}

// NewProfile returns an empty profile.
func NewProfile() *Profile {
	return &Profile{nameID: map[string]int32{}, frame: map[frameKey]int32{}, stacks: map[string]*profileStack{}}
}

func (p *Profile) intern(s string) int32 {
	if id, ok := p.nameID[s]; ok {
		return id
	}
	id := int32(len(p.names))
	p.names = append(p.names, s)
	p.nameID[s] = id
	return id
}

func (p *Profile) frameID(f *Frame) int32 {
	k := frameKey{f.Image, f.Method, f.Symbol}
	if id, ok := p.frame[k]; ok {
		return id
	}
	id := p.intern(cleanName(f.Name()))
	p.frame[k] = id
	return id
}

// cleanName keeps a frame name usable in the folded format: ';' separates
// frames and a line holds one stack.
func cleanName(s string) string {
	if !strings.ContainsAny(s, ";\r\n") {
		return s
	}
	return strings.NewReplacer(";", ":", "\r", " ", "\n", " ").Replace(s)
}

// ProcessName is the root frame of a stack of process p (pid when p is
// nil): "Name (pid)", "Process (pid)" for a process the trace does not
// name, "Unknown" when pid is NoID.
func ProcessName(p *Process, pid uint32) string {
	if p != nil {
		return p.String()
	}
	if pid == NoID {
		return "Unknown"
	}
	return "Process (" + strconv.FormatUint(uint64(pid), 10) + ")"
}

// Add counts one occurrence of stack (innermost frame first, as in
// [Annotation]) in process p with weight w. A nil stack counts under the
// process alone.
func (p *Profile) Add(proc *Process, pid uint32, stack []Frame, w int64) {
	p.add(proc, pid, stack, w)
}

// add is Add, returning the stack the weight went to.
func (p *Profile) add(proc *Process, pid uint32, stack []Frame, w int64) *profileStack {
	ids := p.ids[:0]
	for i := len(stack) - 1; i >= 0; i-- {
		f := &stack[i]
		id := p.frameID(f)
		if !f.HasFunction() && len(ids) > 0 && ids[len(ids)-1] == id {
			continue // module-only frames of one module fold
		}
		ids = append(ids, id)
	}
	p.ids = ids
	root := p.intern(cleanName(ProcessName(proc, pid)))
	key := binary.LittleEndian.AppendUint32(p.key[:0], uint32(root))
	for _, id := range ids {
		key = binary.LittleEndian.AppendUint32(key, uint32(id))
	}
	p.key = key
	s := p.stacks[string(key)]
	if s == nil {
		s = &profileStack{id: int32(len(p.stacks)), process: root, frames: slices.Clone(ids)}
		p.stacks[string(key)] = s
	}
	s.weight += w
	p.Total += w
	return s
}

// Len returns the number of distinct stacks.
func (p *Profile) Len() int { return len(p.stacks) }

// sorted returns the stacks in the order of their folded lines.
func (p *Profile) sorted() []*profileStack {
	type entry struct {
		s    *profileStack
		line []string // the line's frames, made once per stack
	}
	es := make([]entry, 0, len(p.stacks))
	for _, s := range p.stacks {
		l := make([]string, 1, 1+len(s.frames))
		l[0] = p.names[s.process]
		for _, id := range s.frames {
			l = append(l, p.names[id])
		}
		es = append(es, entry{s, l})
	}
	slices.SortFunc(es, func(a, b entry) int { return slices.Compare(a.line, b.line) })
	out := make([]*profileStack, len(es))
	for i, e := range es {
		out[i] = e.s
	}
	return out
}

// EachStack calls fn with every distinct stack, in the order of the
// lines WriteFolded writes: its frames from the process down to the
// innermost, named as in those lines, and its weight. frames is valid
// until fn returns.
func (p *Profile) EachStack(fn func(frames []string, weight int64)) {
	var l []string
	for _, s := range p.sorted() {
		l = append(l[:0], p.names[s.process])
		for _, id := range s.frames {
			l = append(l, p.names[id])
		}
		fn(l, s.weight)
	}
}

// WriteFolded writes one line per distinct stack: the frames from the
// process down to the innermost, separated by ';', a space and the
// count. Lines are sorted, so the output is deterministic.
func (p *Profile) WriteFolded(w io.Writer) error { return p.WriteFoldedWith(w, nil) }

// WriteFoldedWith is [Profile.WriteFolded] with each line's weight
// written by appendWeight (nil: the integer), e.g. [AppendMS] for a
// profile of 100 ns ticks ([Model.CollectWeighted]).
func (p *Profile) WriteFoldedWith(w io.Writer, appendWeight func([]byte, int64) []byte) error {
	if appendWeight == nil {
		appendWeight = appendCount
	}
	bw := bufio.NewWriter(w)
	var b []byte
	for _, s := range p.sorted() {
		b = append(b[:0], p.names[s.process]...)
		for _, id := range s.frames {
			b = append(b, ';')
			b = append(b, p.names[id]...)
		}
		b = append(b, ' ')
		b = appendWeight(b, s.weight)
		b = append(b, '\n')
		if _, err := bw.Write(b); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// appendCount is the default weight format of the folded writers: the
// integer.
func appendCount(b []byte, v int64) []byte { return strconv.AppendInt(b, v, 10) }

// SpeedscopeSchema is the "$schema" of speedscope's file format, which
// its importer uses to recognise the file.
const SpeedscopeSchema = "https://www.speedscope.app/file-format-schema.json"

type speedscopeFile struct {
	Schema             string              `json:"$schema"`
	Shared             speedscopeShared    `json:"shared"`
	Profiles           []speedscopeProfile `json:"profiles"`
	Name               string              `json:"name,omitempty"`
	ActiveProfileIndex int                 `json:"activeProfileIndex"`
	Exporter           string              `json:"exporter"`
}

type speedscopeShared struct {
	Frames []speedscopeFrame `json:"frames"`
}

type speedscopeFrame struct {
	Name string `json:"name"`
}

type speedscopeProfile struct {
	Type       string    `json:"type"`
	Name       string    `json:"name"`
	Unit       string    `json:"unit"`
	StartValue int64     `json:"startValue"`
	EndValue   int64     `json:"endValue"`
	Samples    [][]int32 `json:"samples"`
	Weights    []int64   `json:"weights"`
}

// WriteSpeedscope writes the profile in speedscope's file format
// (https://www.speedscope.app/file-format-schema.json): one "sampled"
// profile per process, heaviest first, whose samples are the distinct
// stacks (frame indices, outermost first) weighted by their counts; unit
// "none". name names the file in speedscope's title.
func (p *Profile) WriteSpeedscope(w io.Writer, name string) error {
	return p.writeSpeedscope(w, name, "none", 1)
}

// WriteSpeedscopeTicks is [Profile.WriteSpeedscope] of a profile whose
// weights are CPU time in 100 ns ticks ([Model.CollectWeighted]): unit
// "nanoseconds", so speedscope shows times.
func (p *Profile) WriteSpeedscopeTicks(w io.Writer, name string) error {
	return p.writeSpeedscope(w, name, "nanoseconds", 100)
}

// writeSpeedscope writes the profile with its weights times scale, in unit.
func (p *Profile) writeSpeedscope(w io.Writer, name, unit string, scale int64) error {
	f := speedscopeFile{Schema: SpeedscopeSchema, Name: name, Exporter: "etwkit tracerpt-go"}
	// Frames: every name but the process roots, renumbered.
	index := make([]int32, len(p.names))
	for i := range index {
		index[i] = -1
	}
	byProc := map[int32]*speedscopeProfile{}
	var order []int32
	for _, s := range p.sorted() {
		pr := byProc[s.process]
		if pr == nil {
			pr = &speedscopeProfile{Type: "sampled", Name: p.names[s.process], Unit: unit, Samples: [][]int32{}, Weights: []int64{}}
			byProc[s.process] = pr
			order = append(order, s.process)
		}
		sample := make([]int32, len(s.frames))
		for i, id := range s.frames {
			if index[id] < 0 {
				index[id] = int32(len(f.Shared.Frames))
				f.Shared.Frames = append(f.Shared.Frames, speedscopeFrame{p.names[id]})
			}
			sample[i] = index[id]
		}
		pr.Samples = append(pr.Samples, sample)
		pr.Weights = append(pr.Weights, s.weight*scale)
		pr.EndValue += s.weight * scale
	}
	slices.SortStableFunc(order, func(a, b int32) int { return cmp.Compare(byProc[b].EndValue, byProc[a].EndValue) })
	for _, id := range order {
		f.Profiles = append(f.Profiles, *byProc[id])
	}
	if f.Shared.Frames == nil {
		f.Shared.Frames = []speedscopeFrame{}
	}
	if f.Profiles == nil {
		f.Profiles = []speedscopeProfile{}
	}
	enc := json.NewEncoder(w)
	return enc.Encode(&f)
}
