package parquetout

import (
	"encoding/binary"
	"math"
	"sync"

	"github.com/google/uuid"

	"github.com/etwkit/etw/analysis"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/eventjson"
	"github.com/etwkit/etw/internal/memo"
	"github.com/etwkit/etw/pipeline"
	"github.com/etwkit/etw/tdh"
)

// Encoder is the pipeline.Encoder half of a Parquet dump: it renders each
// event (decoded, with its analysis annotation) into a record that a
// [Writer] or [SplitWriter] turns into a table row. It runs on the
// pipeline's workers, so the rendering (properties JSON, typed values,
// stacks) is done in parallel; the writer only copies values into
// columns. Give pipeline.Run the Encoder and, as Config.Output, the writer
// made with the same Encoder.
type Encoder struct {
	multiFile bool
	raw       bool
	split     bool
	start     int64
	schemas   *schemaSet
	scratch   []byte

	// What the encoder needs of each schema, computed once per schema;
	// each clone has its own (no locks on the hot path).
	infos    map[*tdh.Event]*schemaInfo
	last     *tdh.Event // the schema of the last lookup
	lastInfo *schemaInfo
	// The rendering plans of the schemas met (properties, maps and
	// message columns).
	plans tdh.PlanCache

	// The text of the last provider GUIDs written: runs of events come
	// from one provider, and a few providers take turns.
	providers providerTexts

	// The frames of recent stacks, as records hold them, by their
	// analysis.Annotation.StackID: the stacks of a trace repeat.
	stacks memo.Bytes
}

// providerTexts holds the text of the last providers met (the oldest
// replaced): a trace's events alternate among a few providers (kernel,
// runtime, rundown), and a GUID's text took about 400 instructions to
// make, for one event in four in net.4.5.2.
type providerTexts struct {
	ids   [8]uuid.UUID
	texts [8][38]byte
	n     int // entries in use
	last  int // the entry found last
	next  int // the entry to replace
}

// text returns the text of provider g, made when g is not among the
// last met.
func (p *providerTexts) text(g uuid.UUID) *[38]byte {
	if p.n > 0 && p.ids[p.last] == g {
		return &p.texts[p.last]
	}
	for i := range p.n {
		if p.ids[i] == g {
			p.last = i
			return &p.texts[i]
		}
	}
	i := p.next
	p.next = (i + 1) % len(p.ids)
	p.n = max(p.n, i+1)
	p.ids[i], p.last = g, i
	eventjson.AppendGUID(p.texts[i][:0], g)
	return &p.texts[i]
}

// stackFramesBits and stackFramesBytes size an Encoder's memo of stacks
// (about 280 KB; 1.4 KB a stack on average on net.4.5.2.x64.etl).
const (
	stackFramesBits  = 10
	stackFramesBytes = 256 << 10
)

// schemaInfo is what rendering an event needs of its schema alone.
type schemaInfo struct {
	id    uint32     // split dumps: the schema's number in the schema set, 0 until known
	props []propInfo // the top-level printable properties, in order
}

// propInfo is how a top-level property's values are written.
type propInfo struct {
	index int          // in the schema's Properties
	t     tdh.DataType // the property's column type
	named bool         // the property has a "<Name>_name" column
}

// maxSchemaInfos bounds an encoder's cache of schema infos (a trace may
// carry any number of TraceLogging schemas); past it the cache starts
// again empty.
const maxSchemaInfos = 4096

// info returns what the encoder needs of schema s, from its cache.
func (e *Encoder) info(s *tdh.Event) *schemaInfo {
	if s == e.last && e.lastInfo != nil {
		return e.lastInfo
	}
	in := e.infos[s]
	if in == nil {
		if e.infos == nil || len(e.infos) >= maxSchemaInfos {
			e.infos = make(map[*tdh.Event]*schemaInfo)
		}
		in = e.newInfo(s)
		e.infos[s] = in
	}
	e.last, e.lastInfo = s, in
	return in
}

// newInfo computes the schema info of s.
func (e *Encoder) newInfo(s *tdh.Event) *schemaInfo {
	in := &schemaInfo{}
	for i := range s.Properties {
		p := &s.Properties[i]
		if tdh.Printable(p) {
			in.props = append(in.props, propInfo{index: i, t: p.DataType(), named: hasNameColumn(p)})
		}
	}
	return in
}

// schemaSet numbers the schemas of the events a split dump sees, for all
// clones of an Encoder and its SplitWriter.
type schemaSet struct {
	ids  sync.Map // *tdh.Event → uint32
	mu   sync.Mutex
	list []*tdh.Event
}

func (s *schemaSet) id(e *tdh.Event) uint32 {
	if v, ok := s.ids.Load(e); ok {
		return v.(uint32)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if v, ok := s.ids.Load(e); ok {
		return v.(uint32)
	}
	s.list = append(s.list, e)
	id := uint32(len(s.list))
	s.ids.Store(e, id)
	return id
}

func (s *schemaSet) get(id uint32) *tdh.Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	if id == 0 || int(id) > len(s.list) {
		return nil
	}
	return s.list[id-1]
}

// NewEncoder returns an Encoder for the events of files. raw keeps
// "user_data" for decoded events too (the JSON dump's raw option).
func NewEncoder(files []*etl.File, raw bool) *Encoder {
	return &Encoder{multiFile: len(files) > 1, raw: raw, start: eventjson.TraceStart(files), schemas: &schemaSet{}}
}

// Clone returns an encoder with the same settings for another goroutine.
func (e *Encoder) Clone() pipeline.Encoder[byte] {
	c := *e
	c.scratch = nil
	c.infos, c.last, c.lastInfo = nil, nil, nil
	c.plans = tdh.PlanCache{}
	c.stacks = memo.Bytes{}
	return &c
}

// Begin appends nothing.
func (e *Encoder) Begin(b []byte) []byte { return b }

// End appends nothing.
func (e *Encoder) End(b []byte) []byte { return b }

// AppendEvent appends the record of one event with what the analysis
// model says of it (process, thread, stack); a may be nil.
func (e *Encoder) AppendEvent(b []byte, ev *etl.Event, res *decode.Result, a *analysis.Annotation) []byte {
	start := len(b)
	b = append(b, make([]byte, fixedSize)...)
	f := b[start:]
	putU64(f, offTime, uint64(ev.Time))
	putU64(f, offRaw, uint64(ev.Timestamp))
	putU32(f, offFile, uint32(ev.File))
	putU16(f, offCPU, ev.Processor)
	putU16(f, offFlags, ev.Flags)
	pid, tid := a.IDs(ev.ProcessID, ev.ThreadID)
	putU32(f, offPID, pid)
	putU32(f, offTID, tid)
	d := &ev.Descriptor
	putU16(f, offEventID, d.ID)
	f[offVersion], f[offChannel], f[offLevel], f[offOpcode] = d.Version, d.Channel, d.Level, d.Opcode
	putU16(f, offTask, d.Task)
	putU64(f, offKeywords, d.Keyword)
	var present uint32
	switch {
	case ev.Header.Kernel():
		present |= hasHook
		putU16(f, offHook, ev.HookID)
	case ev.Header == etl.HeaderInstance32, ev.Header == etl.HeaderInstance64:
		present |= hasInstance
		putU32(f, offInstance, ev.InstanceID)
		putU32(f, offParentInst, ev.ParentInstanceID)
	case ev.Header == etl.HeaderMessage:
		present |= hasWPP
		putU16(f, offMsgFlags, ev.MessageFlags)
		putU32(f, offSequence, ev.SequenceNumber)
		putU32(f, offComponent, ev.ComponentID)
	}
	if ev.Flags&etl.FlagNoCPUTime == 0 {
		if ev.Flags&etl.FlagPrivateSession != 0 {
			present |= hasProcTime
			putU64(f, offProcTime, ev.ProcessorTime)
		} else {
			present |= hasCPUTimes
			putU32(f, offKernelTime, ev.KernelTime)
			putU32(f, offUserTime, ev.UserTime)
		}
	}
	if e.start != 0 {
		present |= hasRelMS
	}
	f[offHeader] = byte(ev.Header)
	var s *tdh.Event
	if res != nil {
		s = res.Schema
	}
	if s != nil && !res.Exact {
		present |= hasSchemaVer
		f[offSchemaVer] = s.Version
	}
	decoded := s != nil && res.Err == nil
	// A split dump writes the events that decode to their table, which
	// has no columns for the provider's GUID, the names, the properties
	// and maps as JSON or the payload: they are left out of the record.
	splitRow := decoded && e.split
	var info *schemaInfo
	if splitRow {
		if info = e.info(s); info.id == 0 {
			info.id = e.schemas.id(s)
		}
		putU32(f, offSchemaID, info.id)
	}
	if a != nil && len(a.Stack) > 0 {
		present |= hasStack
	}
	putU32(f, offPresent, present)

	// Strings, in the order of the s* constants.
	if p := processOf(a, pid); p != "" {
		b = appendStr(b, p)
	} else {
		b = appendAbsent(b)
	}
	if splitRow {
		b = appendAbsent(appendAbsent(b))
		b = e.appendGUIDStr(b, ev.ActivityID, ev.ActivityID != uuid.Nil)
		for range sMessage - sActivityID - 1 {
			b = appendAbsent(b)
		}
		return e.appendSplitTail(b, start, info, res, a)
	}
	b = e.appendProvider(b, ev.ProviderID)
	b = e.appendGUIDStr(b, ev.ParentGUID, present&hasInstance != 0)
	b = e.appendGUIDStr(b, ev.ActivityID, ev.ActivityID != uuid.Nil)
	rel, ok := ev.RelatedActivityID()
	b = e.appendGUIDStr(b, rel, ok)
	if len(ev.Extended) > 0 {
		var at int
		b, at = beginStr(b)
		b = endStr(eventjson.AppendExtended(b, ev.Extended), at)
	} else {
		b = appendAbsent(b)
	}
	name := func(b []byte, v string) []byte {
		if v == "" {
			return appendAbsent(b)
		}
		return appendStr(b, v)
	}
	if s != nil {
		b = name(b, s.ProviderName)
		b = name(b, s.EventName)
		b = name(b, s.TaskName)
		b = name(b, s.OpcodeName)
		b = name(b, eventjson.LevelName(d.Level, s.LevelName))
		if res.Fallback {
			b = appendStr(b, res.Origin.String())
		} else {
			b = appendAbsent(b)
		}
	} else {
		for range 4 {
			b = appendAbsent(b)
		}
		b = name(b, eventjson.LevelName(d.Level, ""))
		b = appendAbsent(b)
	}
	if decoded {
		// The plan (nil: none) gives what tdh's functions give.
		pl := e.plans.Plan(res.Decoded.Schema)
		var at int
		b, at = beginStr(b)
		b, _ = pl.AppendDataJSONErr(b, res.Decoded)
		b = endStr(b, at)
		b, at = beginStr(b)
		var named bool
		if b, named = pl.AppendMapsJSON(b, res.Decoded); named {
			b = endStr(b, at)
		} else {
			b = appendAbsent(b[:at])
		}
		b = e.appendMessage(b, s, res.Decoded, pl, true)
	} else {
		b = appendAbsent(appendAbsent(appendAbsent(b)))
	}
	if !decoded || e.raw {
		b = appendStr(b, ev.UserData)
	} else {
		b = appendAbsent(b)
	}
	if res != nil && res.Err != nil {
		b = appendStr(b, res.Err.Error())
	} else {
		b = appendAbsent(b)
	}
	b = e.appendFrames(b, a)
	putU32(b[start:], 0, uint32(len(b)-start))
	return b
}

// appendSplitTail appends the rest of the record of an event that a split
// dump writes to its table (the strings from "message" on, the frames and
// the typed values).
func (e *Encoder) appendSplitTail(b []byte, start int, in *schemaInfo, res *decode.Result, a *analysis.Annotation) []byte {
	d := res.Decoded
	b = e.appendMessage(b, res.Schema, d, nil, false)
	b = appendAbsent(appendAbsent(b)) // user data, decode error
	b = e.appendFrames(b, a)
	if d.Schema != res.Schema {
		in = e.info(d.Schema)
	}
	b = e.appendTyped(b, in, d)
	putU32(b[start:], 0, uint32(len(b)-start))
	return b
}

// appendMessage appends the message of schema s with the values of d,
// absent if s has none. asked says that pl is what the plan cache gave for
// d's schema for this event (nil: none yet); it is used if d's schema is
// s. Otherwise the cache is asked for s's plan: asking twice for one
// schema in one event would plan it on its first event, which the cache
// leaves for its second.
func (e *Encoder) appendMessage(b []byte, s *tdh.Event, d *tdh.Decoded, pl *tdh.JSONPlan, asked bool) []byte {
	if s.Message == "" {
		return appendAbsent(b)
	}
	if !asked || d.Schema != s {
		pl = e.plans.Plan(s)
	}
	b, at := beginStr(b)
	return endStr(pl.AppendMessage(b, s.Message, d), at)
}

// appendFrames appends the frames of a's stack (none if a is nil),
// through the encoder's memo when the stack has an identity.
func (e *Encoder) appendFrames(b []byte, a *analysis.Annotation) []byte {
	if a == nil || len(a.Stack) == 0 {
		return appendFrames(b, nil, 0)
	}
	id := a.StackID()
	if id == 0 {
		return appendFrames(b, a.Stack, 0)
	}
	if e.stacks.Cap() == 0 {
		e.stacks = memo.NewBytes(stackFramesBits, stackFramesBytes)
	}
	return e.stacks.Append(b, id, func(b []byte) []byte { return appendFrames(b, a.Stack, id) })
}

// appendFrames appends the frames of stack, whose identity is id (0:
// none; see the record's layout).
func appendFrames(b []byte, stack []analysis.Frame, id uint64) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(len(stack)))
	if len(stack) == 0 {
		return b
	}
	b = binary.LittleEndian.AppendUint64(b, id)
	b = binary.LittleEndian.AppendUint32(b, 0) // the frames' length
	start := len(b)
	for i := range stack {
		fr := &stack[i]
		var flags uint8
		if fr.Image != nil {
			flags |= frameHasModule
		}
		if fr.Method != nil {
			flags |= frameHasMethod
		}
		b = binary.LittleEndian.AppendUint64(b, fr.Address)
		b = binary.LittleEndian.AppendUint64(b, fr.Offset)
		b = append(b, flags)
		if fr.Image != nil {
			b = appendStr(b, fr.Image.FileName())
		} else {
			b = appendAbsent(b)
		}
		if fr.Method != nil {
			var at int
			b, at = beginStr(b)
			if fr.Method.Namespace != "" {
				b = append(append(b, fr.Method.Namespace...), '.')
			}
			b = endStr(append(b, fr.Method.Name...), at)
		} else {
			b = appendAbsent(b)
		}
	}
	putU32(b, start-4, uint32(len(b)-start))
	return b
}

// appendTyped appends the typed values of the top-level printable
// properties of d, whose schema's info is in.
func (e *Encoder) appendTyped(b []byte, in *schemaInfo, d *tdh.Decoded) []byte {
	b = binary.LittleEndian.AppendUint16(b, uint16(len(in.props)))
	top := min(len(d.Top()), len(d.Values))
	for _, pi := range in.props {
		var v *tdh.Value
		if pi.index < top {
			v = &d.Values[pi.index]
		}
		b = e.appendValue(b, d, v, pi.t, pi.named)
		if pi.named {
			var ok bool
			var s int
			b, s = beginStr(b)
			if b, ok = tdh.AppendNames(b, d, v); ok {
				b = endStr(b, s)
			} else {
				b = appendAbsent(b[:s])
			}
		}
	}
	return b
}

// appendValue appends the tag and value of v for a column of type t.
func (e *Encoder) appendValue(b []byte, d *tdh.Decoded, v *tdh.Value, t tdh.DataType, named bool) []byte {
	nb := btob(named)
	null := func() []byte { return append(b, tagNull, nb) }
	if v == nil || v.Prop == nil {
		return null()
	}
	num := func(tag byte, n uint64) []byte {
		b = append(b, tag, nb)
		return binary.LittleEndian.AppendUint64(b, n)
	}
	switch t {
	case tdh.DataInt:
		if n, ok := v.Int(); ok {
			return num(tagInt, uint64(n))
		}
	case tdh.DataUint:
		if n, ok := v.DataUint(); ok {
			return num(tagUint, n)
		}
	case tdh.DataFloat:
		if f, ok := v.Float(); ok {
			return num(tagFloat, math.Float64bits(f))
		}
	case tdh.DataBool:
		if n, ok := v.Uint(); ok {
			return append(b, tagBool, nb, btob(n != 0))
		}
	case tdh.DataTime:
		if t, ok := v.Time(); ok {
			return num(tagTime, uint64(t.UnixMicro()))
		}
	case tdh.DataBinary:
		if v.Kind == tdh.Scalar {
			b = append(b, tagBytes, nb)
			return appendStr(b, v.Data)
		}
	case tdh.DataString:
		b = append(b, tagBytes, nb)
		var at int
		b, at = beginStr(b)
		return endStr(tdh.AppendText(b, d, v, nil), at)
	default:
		b = append(b, tagBytes, nb)
		var at int
		b, at = beginStr(b)
		return endStr(tdh.AppendValueDataJSON(b, d, v), at)
	}
	return null()
}

// hasNameColumn reports whether a split table gives property p a second
// column with the names of its values ("<Name>_name").
func hasNameColumn(p *tdh.Property) bool {
	t := p.DataType()
	return (t == tdh.DataUint || t == tdh.DataInt) && p.MayHaveNames()
}

func btob(v bool) byte {
	if v {
		return 1
	}
	return 0
}

// appendGUIDStr appends g braced and lower-case, or an absent string.
func (e *Encoder) appendGUIDStr(b []byte, g uuid.UUID, ok bool) []byte {
	if !ok {
		return appendAbsent(b)
	}
	b = binary.LittleEndian.AppendUint32(b, 38)
	return eventjson.AppendGUID(b, g)
}

// appendProvider appends provider GUID g as appendGUIDStr does, its text
// formatted once while it is among the last providers met.
func (e *Encoder) appendProvider(b []byte, g uuid.UUID) []byte {
	t := e.providers.text(g)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(t)))
	return append(b, t[:]...)
}

// processOf returns the image name of the process pid names, or "".
func processOf(a *analysis.Annotation, pid uint32) string {
	if a == nil {
		return ""
	}
	if p := a.ProcessOf(pid); p != nil {
		return p.ImageFileName
	}
	return ""
}
