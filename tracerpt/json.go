package tracerpt

import (
	"encoding/binary"
	"encoding/hex"
	"unsafe"

	"github.com/google/uuid"

	"github.com/etwkit/etw/analysis"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/eventjson"
	"github.com/etwkit/etw/internal/decimal"
	"github.com/etwkit/etw/internal/memo"
	"github.com/etwkit/etw/internal/prefault"
	"github.com/etwkit/etw/pipeline"
	"github.com/etwkit/etw/tdh"
)

// JSONEncoder renders events as JSON Lines, one object per event with the
// keys documented in docs/cli.md, in a fixed order. Unlike the tracerpt
// formats it keeps error records (header "error").
type JSONEncoder struct {
	multiFile bool
	raw       bool
	start     int64 // the trace start (FILETIME) for "rel_ms"; 0: unknown
	msg       []byte
	names     *namesCache     // rendered schema names, per worker
	procs     *procCache      // rendered thread keys ("cpu" to "process_name"), per worker
	times     jsonTimes       // the last event's times' text, per worker
	frames    *frameJSONCache // rendered stack frames, per worker
	headers   *headerCache    // rendered header keys, per worker
	plans     tdh.PlanCache   // schemas' rendering plans, per worker
	oneShot   bool            // AppendEventJSON: one event, no caches
}

// namesKey identifies the schema names of an event: its schema and, for
// schemas without a level name, its level.
type namesKey struct {
	s     *tdh.Event
	level uint8
}

// namesCache keeps the rendering of recent schemas' names, direct-mapped
// by the schema's address (a map's lookup, which hashes the key, cost
// more than the rendering it saved).
type namesCache = slotCache[namesKey]

// slotOf returns the slot of hash h in a direct-mapped cache of 2^bits
// slots.
func slotOf(h uint64, bits uint) uint64 { return (h * 0x9E3779B97F4A7C15) >> (64 - bits) }

// NewJSONEncoder returns a JSON Lines encoder for the events of files. With
// several files each object carries a "file" key (the index in files).
func NewJSONEncoder(files []*etl.File, o *Options) *JSONEncoder {
	e := &JSONEncoder{multiFile: len(files) > 1, start: eventjson.TraceStart(files)}
	if o != nil {
		e.raw = o.Raw
	}
	return e
}

// Clone returns an encoder with the same settings for another goroutine.
func (e *JSONEncoder) Clone() pipeline.Encoder[byte] {
	c := *e
	c.msg, c.names, c.procs, c.frames, c.headers, c.plans = nil, nil, nil, nil, nil, tdh.PlanCache{}
	c.times = jsonTimes{}
	return &c
}

// Begin appends nothing.
func (e *JSONEncoder) Begin(b []byte) []byte { return b }

// End appends nothing.
func (e *JSONEncoder) End(b []byte) []byte { return b }

// AppendEvent appends one JSON object and a newline. With a, it adds what
// the analysis model says of the event: "pid" and "tid" where the header
// has none, "process_name" and "stack" (docs/cli.md).
func (e *JSONEncoder) AppendEvent(b []byte, ev *etl.Event, res *decode.Result, a *analysis.Annotation) []byte {
	b = e.appendEvent(b, ev, res, a)
	if a != nil && len(a.Stack) > 0 {
		if e.frames == nil {
			e.frames = prefault.New[frameJSONCache]() // probed before written
		}
		b = appendStackJSON(b, a.Stack, a.StackID(), e.frames)
	}
	return append(b, '}', '\n')
}

// AppendEventJSON appends one event as a JSON object (docs/cli.md), without
// a newline. multiFile adds the "file" key; raw keeps "user_data" for
// decoded events. Keys come in a fixed order so that output is
// byte-for-byte reproducible. It does not know the trace's start, so
// "rel_ms" is left out; a [JSONEncoder] writes it.
func AppendEventJSON(b []byte, ev *etl.Event, res *decode.Result, multiFile, raw bool) []byte {
	e := JSONEncoder{multiFile: multiFile, raw: raw, oneShot: true}
	return append(e.appendEvent(b, ev, res, nil), '}')
}

// AppendStackJSON appends the "stack" key of an event with stack frames
// (innermost first): `,"stack":[{"address":N,"module":"ntdll.dll",
// "offset":N,"method":"Namespace.Type.Method"},…]`, "module" and
// "offset" when an image holds the address, "method" for .NET code;
// native code a symbolizer names (analysis.Model.SetSymbolizer) has
// "function", "function_offset" (from the function's start) and, when
// the PDB has lines, "file" and "line".
// Nothing is appended for an empty stack.
func AppendStackJSON(b []byte, stack []analysis.Frame) []byte {
	return appendStackJSON(b, stack, 0, nil)
}

// frameJSONCache keeps the rendering of recent frames, direct-mapped by
// address: the frames of a trace's stacks repeat. Renderings longer than
// maxCachedFrameJSON (long names from the trace) are not kept, which
// bounds the cache to about 1 MiB. Whole stacks repeat too: stacks keeps
// the rendering of recent ones by their analysis.Annotation.StackID
// (about 280 KB; a stack's rendering is 1.6 KB on average on
// net.4.5.2.x64.etl).
type frameJSONCache struct {
	slots  [1 << frameJSONBits]cachedFrameJSON
	stacks memo.Bytes
}

const (
	frameJSONBits      = 12
	maxCachedFrameJSON = 256
	stackJSONBits      = 10
	stackJSONBytes     = 256 << 10
)

type cachedFrameJSON struct {
	f    analysis.Frame
	json []byte
}

// sameFrame is a == b field by field: the struct's == calls memequal, which
// cost more than the rest of a cached frame's rendering.
func sameFrame(a, b *analysis.Frame) bool {
	return a.Address == b.Address && a.Offset == b.Offset && a.Image == b.Image && a.Method == b.Method && a.Symbol == b.Symbol
}

// appendStackJSON is AppendStackJSON through cache (nil: none), which
// keeps the rendering of a stack whose identity id is not 0 (see
// analysis.Annotation.StackID).
func appendStackJSON(b []byte, stack []analysis.Frame, id uint64, cache *frameJSONCache) []byte {
	if len(stack) == 0 {
		return b
	}
	if cache != nil && id != 0 {
		if cache.stacks.Cap() == 0 {
			cache.stacks = memo.NewBytes(stackJSONBits, stackJSONBytes)
		}
		return cache.stacks.Append(b, id, func(b []byte) []byte { return appendStackJSON(b, stack, 0, cache) })
	}
	b = append(b, `,"stack":[`...)
	for i := range stack {
		f := &stack[i]
		if i > 0 {
			b = append(b, ',')
		}
		if cache == nil {
			b = appendFrameJSON(b, f)
			continue
		}
		c := &cache.slots[slotOf(f.Address, frameJSONBits)]
		if c.json != nil && sameFrame(&c.f, f) {
			b = append(b, c.json...)
			continue
		}
		n := len(b)
		b = appendFrameJSON(b, f)
		if len(b)-n <= maxCachedFrameJSON {
			c.f = *f
			c.json = append(c.json[:0], b[n:]...)
		}
	}
	return append(b, ']')
}

// appendFrameJSON appends one frame's object.
func appendFrameJSON(b []byte, f *analysis.Frame) []byte {
	b = append(b, `{"address":`...)
	b = tdh.AppendJSONUint(b, f.Address)
	if f.Image != nil {
		b = append(b, `,"module":`...)
		b = eventjson.AppendString(b, f.Image.FileName())
		b = append(b, `,"offset":`...)
		b = tdh.AppendJSONUint(b, f.Offset)
	}
	if f.Method != nil {
		var name [128]byte
		b = append(b, `,"method":`...)
		b = eventjson.AppendString(b, f.AppendFunction(name[:0]))
	} else if s := f.Symbol; s != nil {
		b = append(b, `,"function":`...)
		b = eventjson.AppendString(b, s.Function)
		b = append(b, `,"function_offset":`...)
		b = tdh.AppendJSONUint(b, s.Offset)
		if s.File != "" {
			b = append(b, `,"file":`...)
			b = eventjson.AppendString(b, s.File)
			b = append(b, `,"line":`...)
			b = tdh.AppendJSONUint(b, uint64(s.Line))
		}
	}
	return append(b, '}')
}

// appendEvent is AppendEventJSON with the encoder's settings, reusing its
// message buffer, without the closing brace. With a, ids the header lacks
// come from the annotation, and "process_name" follows "tid". Integers
// follow the integer rule (docs/cli.md): numbers up to 2^53, decimal
// strings above.
func (e *JSONEncoder) appendEvent(b []byte, ev *etl.Event, res *decode.Result, a *analysis.Annotation) []byte {
	b = e.appendHead(b, ev, res, a)
	return e.appendBody(b, ev, res)
}

// appendHead appends the start of an event's object: the keys from "time"
// to the schema's names ("level_name", "schema_version", "schema_source"),
// what the event's header, its annotation and its schema say.
func (e *JSONEncoder) appendHead(b []byte, ev *etl.Event, res *decode.Result, a *analysis.Annotation) []byte {
	multiFile := e.multiFile
	b = e.appendTimes(b, ev.Time, ev.Timestamp)
	if multiFile {
		b = append(b, `,"file":`...)
		b = decimal.AppendInt(b, int64(ev.File))
	}
	pid, tid := a.IDs(ev.ProcessID, ev.ThreadID)
	var p *analysis.Process
	if a != nil {
		p = a.Process // a.ProcessOf(pid): pid is a.PID
	}
	b = e.appendThread(b, ev, pid, tid, p)
	b = e.appendHeader(b, ev)
	d := &ev.Descriptor
	switch { // "hook_id" of a kernel header is among appendHeader's keys
	case ev.Header == etl.HeaderInstance32, ev.Header == etl.HeaderInstance64:
		b = append(b, `,"instance_id":`...)
		b = decimal.AppendUint(b, uint64(ev.InstanceID))
		b = append(b, `,"parent_instance_id":`...)
		b = decimal.AppendUint(b, uint64(ev.ParentInstanceID))
		b = append(b, `,"parent_guid":"`...)
		b = eventjson.AppendGUID(b, ev.ParentGUID)
		b = append(b, '"')
	case ev.Header == etl.HeaderMessage:
		b = append(b, `,"message_flags":`...)
		b = decimal.AppendUint(b, uint64(ev.MessageFlags))
		b = append(b, `,"sequence":`...)
		b = decimal.AppendUint(b, uint64(ev.SequenceNumber))
		b = append(b, `,"component_id":`...)
		b = decimal.AppendUint(b, uint64(ev.ComponentID))
	}
	if ev.Flags&etl.FlagNoCPUTime == 0 {
		if ev.Flags&etl.FlagPrivateSession != 0 {
			b = append(b, `,"processor_time":`...)
			b = tdh.AppendJSONUint(b, ev.ProcessorTime)
		} else {
			b = append(b, `,"kernel_time":`...)
			b = decimal.AppendUint(b, uint64(ev.KernelTime))
			b = append(b, `,"user_time":`...)
			b = decimal.AppendUint(b, uint64(ev.UserTime))
		}
	}
	if ev.ActivityID != uuid.Nil {
		b = append(b, `,"activity_id":"`...)
		b = eventjson.AppendGUID(b, ev.ActivityID)
		b = append(b, '"')
	}
	if len(ev.Extended) > 0 { // most events have none: no call
		if g, ok := ev.RelatedActivityID(); ok {
			b = append(b, `,"related_activity_id":"`...)
			b = eventjson.AppendGUID(b, g)
			b = append(b, '"')
		}
		b = append(b, `,"extended":`...)
		b = eventjson.AppendExtended(b, ev.Extended)
	}
	if res != nil && res.Schema != nil {
		b = e.appendNames(b, ev, res.Schema)
		if !res.Exact {
			b = append(b, `,"schema_version":`...)
			b = decimal.AppendUint(b, uint64(res.Schema.Version))
		}
		if res.Fallback {
			// The schema of highest precedence did not fit: say which one did.
			b = append(b, `,"schema_source":`...)
			b = eventjson.AppendString(b, res.Origin.String())
		}
	} else {
		b = appendLevelName(b, d.Level, "")
	}
	return b
}

// appendBody appends the rest of an event's object after appendHead, but
// for the stack and the closing brace: the properties, their maps and the
// message, or the payload in hex, and the decoding error.
func (e *JSONEncoder) appendBody(b []byte, ev *etl.Event, res *decode.Result) []byte {
	decoded := res != nil && res.Schema != nil && res.Err == nil
	var rerr error // what the properties' size or depth bound left out
	if decoded {
		// The plans (nil: none) give what tdh's functions give.
		pl := e.plan(res.Decoded.Schema)
		b = append(b, `,"properties":`...)
		b, rerr = pl.AppendDataJSONErr(b, res.Decoded)
		n := len(b)
		var named bool
		if b, named = pl.AppendMapsJSON(append(b, `,"maps":`...), res.Decoded); !named {
			b = b[:n]
		}
		if res.Schema.Message != "" {
			if res.Schema != res.Decoded.Schema {
				pl = e.plan(res.Schema) // the message of the schema that fits, values of an alternate
			}
			b, e.msg = pl.AppendMessageJSON(append(b, `,"message":`...), e.msg, res.Schema.Message, res.Decoded)
		}
	}
	if !decoded || e.raw {
		b = append(b, `,"user_data":"`...)
		b = hex.AppendEncode(b, ev.UserData)
		b = append(b, '"')
	}
	if res != nil && res.Err != nil {
		b = append(b, `,"decode_error":`...)
		b = eventjson.AppendString(b, res.Err.Error())
	} else if rerr != nil {
		b = append(b, `,"decode_error":`...)
		b = eventjson.AppendString(b, rerr.Error())
	}
	return b
}

// appendUnixNanos appends FILETIME ft as nanoseconds since 1970 by the
// integer rule (a decimal string for every time after April 1970).
func appendUnixNanos(b []byte, ft int64) []byte {
	t := etl.SubTime(ft, filetimeEpochDelta) // saturated: not a FILETIME any clock gives
	if t >= -tdh.MaxExactJSONInt/100 && t <= tdh.MaxExactJSONInt/100 {
		return decimal.AppendInt(b, t*100)
	}
	b = append(b, '"')
	b = decimal.AppendInt(b, t)
	return append(b, '0', '0', '"')
}

// appendRelMillis appends d (100 ns units) as milliseconds, a JSON number
// with up to four decimals.
func appendRelMillis(b []byte, d int64) []byte {
	u := uint64(d)
	if d < 0 {
		b = append(b, '-')
		u = -u
	}
	b = decimal.AppendUint(b, u/10000)
	frac := u % 10000
	if frac == 0 {
		return b
	}
	var f [5]byte
	f[0] = '.'
	for i := 4; i >= 1; i-- {
		f[i] = byte('0' + frac%10)
		frac /= 10
	}
	n := 5
	for f[n-1] == '0' {
		n--
	}
	return append(b, f[:n]...)
}

// appendRFC3339 appends FILETIME ft as UTC RFC 3339 with 7 fractional
// digits.
func appendRFC3339(b []byte, ft int64) []byte {
	var utc timeFormatter
	utc.utc = true
	local, frac, _ := utc.split(ft)
	b = appendDateTime7(b, local, frac)
	return append(b, 'Z')
}

// headerKey is what the keys from "header" to "keywords" (and "hook_id")
// depend on, in integers that compare without a call: the provider's two
// halves, the descriptor but its keyword, the keyword, and the header
// type, flags and hook id (kernel headers; 0 for others).
type headerKey struct {
	p0, p1, desc, keyword, header uint64
}

// set makes k the key of ev's shape with hook id hook. It stores each
// field in place: a key returned by value was built in a temporary and
// copied with 16-byte loads that wait for its 8-byte stores (no store
// forwarding from two stores to one load): 19 % of appendHead's samples
// in the JSON dump of net.4.5.2 (perf annotate, 2026-11-29).
func (k *headerKey) set(ev *etl.Event, hook uint16) {
	d := &ev.Descriptor
	k.p0 = binary.LittleEndian.Uint64(ev.ProviderID[:8])
	k.p1 = binary.LittleEndian.Uint64(ev.ProviderID[8:])
	k.desc = uint64(d.ID) | uint64(d.Version)<<16 | uint64(d.Channel)<<24 | uint64(d.Level)<<32 | uint64(d.Opcode)<<40 | uint64(d.Task)<<48
	k.keyword = d.Keyword
	k.header = uint64(ev.Header)<<32 | uint64(ev.Flags)<<16 | uint64(hook)
}

// same is *k == *o field by field (no call).
func (k *headerKey) same(o *headerKey) bool {
	return k.p0 == o.p0 && k.p1 == o.p1 && k.desc == o.desc && k.keyword == o.keyword && k.header == o.header
}

// hash mixes the parts of k that differ most between shapes.
func (k *headerKey) hash() uint64 { return k.p0 ^ k.p1 ^ k.desc<<8 ^ k.header }

// headerCache keeps the rendering of recent header keys, direct-mapped:
// a trace's events come in a few hundred shapes.
type headerCache = slotCache[headerKey]

// appendHeader appends the keys "header" to "keywords" of ev, and
// "hook_id" for a kernel header, from the encoder's cache when an event of
// the same shape came before.
func (e *JSONEncoder) appendHeader(b []byte, ev *etl.Event) []byte {
	if e.oneShot {
		return appendHeaderJSON(b, ev)
	}
	if e.headers == nil {
		e.headers = prefault.New[headerCache]() // probed before written
	}
	var hook uint16
	if ev.Header.Kernel() {
		hook = ev.HookID
	}
	var k headerKey
	k.set(ev, hook)
	slot := &e.headers.slots[slotOf(k.hash(), slotBits)]
	if slot.json == nil || !slot.k.same(&k) {
		slot.k = k
		slot.json = appendHeaderJSON(slot.json[:0], ev)
	}
	return append(b, slot.json...)
}

// appendHeaderJSON appends the keys "header" to "keywords" of ev, and
// "hook_id" for a kernel header.
func appendHeaderJSON(b []byte, ev *etl.Event) []byte {
	b = append(b, `,"header":"`...)
	b = append(b, ev.Header.String()...)
	b = append(b, `","flags":`...)
	b = decimal.AppendUint(b, uint64(ev.Flags))
	b = append(b, `,"provider_guid":"`...)
	b = eventjson.AppendGUID(b, ev.ProviderID)
	d := &ev.Descriptor
	b = append(b, `","event_id":`...)
	b = decimal.AppendUint(b, uint64(d.ID))
	b = append(b, `,"version":`...)
	b = decimal.AppendUint(b, uint64(d.Version))
	b = append(b, `,"channel":`...)
	b = decimal.AppendUint(b, uint64(d.Channel))
	b = append(b, `,"level":`...)
	b = decimal.AppendUint(b, uint64(d.Level))
	b = append(b, `,"opcode":`...)
	b = decimal.AppendUint(b, uint64(d.Opcode))
	b = append(b, `,"task":`...)
	b = decimal.AppendUint(b, uint64(d.Task))
	b = append(b, `,"keywords":`...)
	b = tdh.AppendJSONUint(b, d.Keyword)
	if ev.Header.Kernel() {
		b = append(b, `,"hook_id":`...)
		b = decimal.AppendUint(b, uint64(ev.HookID))
	}
	return b
}

// appendNames is appendSchemaNames from a cache: most events share a few
// schemas, whose names are rendered once.
func (e *JSONEncoder) appendNames(b []byte, ev *etl.Event, s *tdh.Event) []byte {
	if e.oneShot {
		return appendSchemaNames(b, ev, s)
	}
	k := namesKey{s: s}
	if s.LevelName == "" {
		k.level = ev.Descriptor.Level
	}
	if e.names == nil {
		e.names = prefault.New[namesCache]() // probed before written
	}
	slot := &e.names.slots[slotOf(uint64(uintptr(unsafe.Pointer(s)))^uint64(k.level), slotBits)]
	if slot.json == nil || slot.k.s != k.s || slot.k.level != k.level {
		slot.k = k
		slot.json = appendSchemaNames(slot.json[:0], ev, s)
		if len(slot.json) > maxSlotText {
			return appendUnkept(b, &slot.json)
		}
	}
	return append(b, slot.json...)
}

// appendSchemaNames adds the names a schema gives the event.
func appendSchemaNames(b []byte, ev *etl.Event, s *tdh.Event) []byte {
	str := func(b []byte, key, v string) []byte {
		if v == "" {
			return b
		}
		b = append(b, ',', '"')
		b = append(b, key...)
		b = append(b, '"', ':')
		return eventjson.AppendString(b, v)
	}
	b = str(b, "provider_name", s.ProviderName)
	b = str(b, "event_name", s.EventName)
	b = str(b, "task_name", s.TaskName)
	b = str(b, "opcode_name", s.OpcodeName)
	return appendLevelName(b, ev.Descriptor.Level, s.LevelName)
}

func appendLevelName(b []byte, level uint8, name string) []byte {
	if name = eventjson.LevelName(level, name); name == "" {
		return b
	}
	b = append(b, `,"level_name":`...)
	return eventjson.AppendString(b, name)
}
