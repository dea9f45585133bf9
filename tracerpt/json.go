package tracerpt

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/google/uuid"

	"github.com/etwkit/etw/analysis"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/tdh"
)

// JSONEncoder renders events as JSON Lines, one object per event with the
// keys documented in docs/cli.md, in a fixed order. Unlike the tracerpt
// formats it keeps error records (header "error").
type JSONEncoder struct {
	multiFile bool
	raw       bool
	msg       []byte
}

// NewJSONEncoder returns a JSON Lines encoder for the events of files. With
// several files each object carries a "file" key (the index in files).
func NewJSONEncoder(files []*etl.File, o *Options) *JSONEncoder {
	e := &JSONEncoder{multiFile: len(files) > 1}
	if o != nil {
		e.raw = o.Raw
	}
	return e
}

// Clone returns an encoder with the same settings for another goroutine.
func (e *JSONEncoder) Clone() Encoder {
	c := *e
	c.msg = nil
	return &c
}

// Begin appends nothing.
func (e *JSONEncoder) Begin(b []byte) []byte { return b }

// End appends nothing.
func (e *JSONEncoder) End(b []byte) []byte { return b }

// AppendEvent appends one JSON object and a newline.
func (e *JSONEncoder) AppendEvent(b []byte, ev *etl.Event, res *decode.Result) []byte {
	b = e.appendEvent(b, ev, res, nil)
	return append(b, '}', '\n')
}

// AppendAnnotatedEvent appends one JSON object and a newline, with what
// the analysis model says of the event: "pid" and "tid" where the header
// has none, "process_name" and "stack" (docs/cli.md). a may be nil.
func (e *JSONEncoder) AppendAnnotatedEvent(b []byte, ev *etl.Event, res *decode.Result, a *analysis.Annotation) []byte {
	b = e.appendEvent(b, ev, res, a)
	if a != nil {
		b = AppendStackJSON(b, a.Stack)
	}
	return append(b, '}', '\n')
}

// AppendEventJSON appends one event as a JSON object (docs/cli.md), without
// a newline. multiFile adds the "file" key; raw keeps "user_data" for
// decoded events. Keys come in a fixed order so that output is
// byte-for-byte reproducible.
func AppendEventJSON(b []byte, ev *etl.Event, res *decode.Result, multiFile, raw bool) []byte {
	e := JSONEncoder{multiFile: multiFile, raw: raw}
	return append(e.appendEvent(b, ev, res, nil), '}')
}

// AppendStackJSON appends the "stack" key of an event with stack frames
// (innermost first): `,"stack":[{"address":N,"module":"ntdll.dll",
// "offset":N,"method":"Namespace.Type.Method"},…]`, "module" and
// "offset" when an image holds the address, "method" for .NET code.
// Nothing is appended for an empty stack.
func AppendStackJSON(b []byte, stack []analysis.Frame) []byte {
	if len(stack) == 0 {
		return b
	}
	b = append(b, `,"stack":[`...)
	for i := range stack {
		f := &stack[i]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"address":`...)
		b = strconv.AppendUint(b, f.Address, 10)
		if f.Image != nil {
			b = append(b, `,"module":`...)
			b = appendJSONString(b, f.Image.FileName())
			b = append(b, `,"offset":`...)
			b = strconv.AppendUint(b, f.Offset, 10)
		}
		if f.Method != nil {
			b = append(b, `,"method":`...)
			if f.Method.Namespace != "" {
				b = appendJSONString(b, f.Method.Namespace+"."+f.Method.Name)
			} else {
				b = appendJSONString(b, f.Method.Name)
			}
		}
		b = append(b, '}')
	}
	return append(b, ']')
}

// appendEvent is AppendEventJSON with the encoder's settings, reusing its
// message buffer, without the closing brace. With a, ids the header lacks
// come from the annotation, and "process_name" follows "tid".
func (e *JSONEncoder) appendEvent(b []byte, ev *etl.Event, res *decode.Result, a *analysis.Annotation) []byte {
	multiFile, raw := e.multiFile, e.raw
	b = append(b, `{"time":"`...)
	b = appendRFC3339(b, ev.Time)
	b = append(b, `","filetime":`...)
	b = strconv.AppendInt(b, ev.Time, 10)
	b = append(b, `,"raw_timestamp":`...)
	b = strconv.AppendInt(b, ev.Timestamp, 10)
	if multiFile {
		b = append(b, `,"file":`...)
		b = strconv.AppendInt(b, int64(ev.File), 10)
	}
	b = append(b, `,"cpu":`...)
	b = strconv.AppendUint(b, uint64(ev.Processor), 10)
	pid, tid := ev.ProcessID, ev.ThreadID
	if a != nil {
		if pid == analysis.NoID {
			pid = a.PID
		}
		if tid == analysis.NoID {
			tid = a.TID
		}
	}
	b = append(b, `,"pid":`...)
	b = strconv.AppendUint(b, uint64(pid), 10)
	b = append(b, `,"tid":`...)
	b = strconv.AppendUint(b, uint64(tid), 10)
	if a != nil {
		if p := a.ProcessOf(pid); p != nil && p.ImageFileName != "" {
			b = append(b, `,"process_name":`...)
			b = appendJSONString(b, p.ImageFileName)
		}
	}
	b = append(b, `,"header":"`...)
	b = append(b, ev.Header.String()...)
	b = append(b, `","flags":"0x`...)
	b = strconv.AppendUint(b, uint64(ev.Flags), 16)
	b = append(b, `","provider_guid":"`...)
	b = appendGUID(b, ev.ProviderID)
	d := &ev.Descriptor
	b = append(b, `","event_id":`...)
	b = strconv.AppendUint(b, uint64(d.ID), 10)
	b = append(b, `,"version":`...)
	b = strconv.AppendUint(b, uint64(d.Version), 10)
	b = append(b, `,"channel":`...)
	b = strconv.AppendUint(b, uint64(d.Channel), 10)
	b = append(b, `,"level":`...)
	b = strconv.AppendUint(b, uint64(d.Level), 10)
	b = append(b, `,"opcode":`...)
	b = strconv.AppendUint(b, uint64(d.Opcode), 10)
	b = append(b, `,"task":`...)
	b = strconv.AppendUint(b, uint64(d.Task), 10)
	b = append(b, `,"keywords":"0x`...)
	b = strconv.AppendUint(b, d.Keyword, 16)
	b = append(b, '"')
	switch ev.Header {
	case etl.HeaderSystem32, etl.HeaderSystem64, etl.HeaderCompact32, etl.HeaderCompact64, etl.HeaderPerfInfo32, etl.HeaderPerfInfo64:
		b = append(b, `,"hook_id":"0x`...)
		b = strconv.AppendUint(b, uint64(ev.HookID), 16)
		b = append(b, '"')
	case etl.HeaderInstance32, etl.HeaderInstance64:
		b = append(b, `,"instance_id":`...)
		b = strconv.AppendUint(b, uint64(ev.InstanceID), 10)
		b = append(b, `,"parent_instance_id":`...)
		b = strconv.AppendUint(b, uint64(ev.ParentInstanceID), 10)
		b = append(b, `,"parent_guid":"`...)
		b = appendGUID(b, ev.ParentGUID)
		b = append(b, '"')
	case etl.HeaderMessage:
		b = append(b, `,"message_flags":"0x`...)
		b = strconv.AppendUint(b, uint64(ev.MessageFlags), 16)
		b = append(b, `","sequence":`...)
		b = strconv.AppendUint(b, uint64(ev.SequenceNumber), 10)
		b = append(b, `,"component_id":`...)
		b = strconv.AppendUint(b, uint64(ev.ComponentID), 10)
	}
	if ev.Flags&etl.FlagNoCPUTime == 0 {
		if ev.Flags&etl.FlagPrivateSession != 0 {
			b = append(b, `,"processor_time":`...)
			b = strconv.AppendUint(b, ev.ProcessorTime, 10)
		} else {
			b = append(b, `,"kernel_time":`...)
			b = strconv.AppendUint(b, uint64(ev.KernelTime), 10)
			b = append(b, `,"user_time":`...)
			b = strconv.AppendUint(b, uint64(ev.UserTime), 10)
		}
	}
	if ev.ActivityID != uuid.Nil {
		b = append(b, `,"activity_id":"`...)
		b = appendGUID(b, ev.ActivityID)
		b = append(b, '"')
	}
	if g, ok := ev.RelatedActivityID(); ok {
		b = append(b, `,"related_activity_id":"`...)
		b = appendGUID(b, g)
		b = append(b, '"')
	}
	if len(ev.Extended) > 0 {
		b = append(b, `,"extended":[`...)
		for i, x := range ev.Extended {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendExtended(b, x)
		}
		b = append(b, ']')
	}
	decoded := res != nil && res.Schema != nil && res.Err == nil
	if res != nil && res.Schema != nil {
		b = appendSchemaNames(b, ev, res.Schema)
		if !res.Exact {
			b = append(b, `,"schema_version":`...)
			b = strconv.AppendUint(b, uint64(res.Schema.Version), 10)
		}
		if res.Fallback {
			// The schema of highest precedence did not fit: say which one did.
			b = append(b, `,"schema_source":`...)
			b = appendJSONString(b, res.Origin.String())
		}
	} else {
		b = appendLevelName(b, d.Level, "")
	}
	if decoded {
		b = append(b, `,"properties":`...)
		b = tdh.AppendPropertiesJSON(b, res.Decoded)
		if res.Schema.Message != "" {
			b = append(b, `,"message":`...)
			e.msg = tdh.AppendMessage(e.msg[:0], res.Schema.Message, res.Decoded, nil)
			b = appendJSONString(b, e.msg)
		}
	}
	if !decoded || raw {
		b = append(b, `,"user_data":"`...)
		b = hex.AppendEncode(b, ev.UserData)
		b = append(b, '"')
	}
	if res != nil && res.Err != nil {
		b = append(b, `,"decode_error":`...)
		b = appendJSONString(b, res.Err.Error())
	}
	return b
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

// appendSchemaNames adds the names a schema gives the event.
func appendSchemaNames(b []byte, ev *etl.Event, s *tdh.Event) []byte {
	str := func(b []byte, key, v string) []byte {
		if v == "" {
			return b
		}
		b = append(b, ',', '"')
		b = append(b, key...)
		b = append(b, '"', ':')
		return appendJSONString(b, v)
	}
	b = str(b, "provider_name", s.ProviderName)
	b = str(b, "event_name", s.EventName)
	b = str(b, "task_name", s.TaskName)
	b = str(b, "opcode_name", s.OpcodeName)
	return appendLevelName(b, ev.Descriptor.Level, s.LevelName)
}

// standardLevels are winmeta.xml's level names.
var standardLevels = [...]string{"Log Always", "Critical", "Error", "Warning", "Information", "Verbose"}

func appendLevelName(b []byte, level uint8, name string) []byte {
	if name == "" && int(level) < len(standardLevels) && level > 0 {
		name = standardLevels[level]
	}
	if name == "" {
		return b
	}
	b = append(b, `,"level_name":`...)
	return appendJSONString(b, name)
}

// appendExtended writes {"type":NAME,"value":V} with V the typed value of
// the item, or {"type":NAME,"data":HEX,"error":MSG} when it does not
// decode. Raw blobs (TraceLogging schemas, unknown types) are hex strings.
// The common items are written without going through reflection.
func appendExtended(b []byte, x etl.ExtendedItem) []byte {
	b = append(b, `{"type":"`...)
	b = append(b, x.Type.String()...)
	b = append(b, '"')
	switch x.Type {
	case etl.ExtEventSchemaTL:
		b = append(b, `,"value":"`...)
		b = hex.AppendEncode(b, x.Data)
		return append(b, `"}`...)
	case etl.ExtRelatedActivityID, etl.ExtControlGUID, etl.ExtContainerID:
		if len(x.Data) >= 16 {
			b = append(b, `,"value":"`...)
			b = appendGUID(b, etl.GUIDFromWindows(x.Data))
			return append(b, `"}`...)
		}
	case etl.ExtProvTraits:
		if name, ok := plainTraitsName(x.Data); ok {
			b = append(b, `,"value":{"name":`...)
			b = appendJSONString(b, name)
			return append(b, `,"traits":[]}}`...)
		}
	}
	v, err := x.Value()
	if err != nil {
		b = append(b, `,"data":"`...)
		b = hex.AppendEncode(b, x.Data)
		b = append(b, `","error":`...)
		return append(appendJSONString(b, err.Error()), '}')
	}
	b = append(b, `,"value":`...)
	return append(appendJSONValue(b, jsonValue(v)), '}')
}

// plainTraitsName returns the provider name of a provider-traits blob that
// holds a name and no traits (what TraceLogging providers write), or false
// for anything else, which takes the general path.
func plainTraitsName(b []byte) ([]byte, bool) {
	if len(b) < 2 {
		return nil, false
	}
	total := int(binary.LittleEndian.Uint16(b))
	if total > len(b) || total < 3 {
		return nil, false
	}
	body := b[2:total]
	for i, c := range body {
		if c == 0 {
			return body[:i], i == len(body)-1
		}
	}
	return nil, false
}

// jsonValue maps typed extended values to their JSON form: GUIDs braced,
// SIDs as S-1-… strings, byte blobs as hex.
func jsonValue(v any) any {
	switch v := v.(type) {
	case uuid.UUID:
		return string(appendGUID(nil, v))
	case etl.SID:
		return v.String()
	case []byte:
		return hex.EncodeToString(v)
	case etl.InstanceInfo:
		return map[string]any{"instance_id": v.InstanceID, "parent_instance_id": v.ParentInstanceID, "parent_guid": string(appendGUID(nil, v.ParentGUID))}
	case etl.ProviderTraits:
		traits := []any{}
		for _, t := range v.Traits {
			m := map[string]any{"type": t.Type}
			if t.GUID != nil {
				m["guid"] = string(appendGUID(nil, *t.GUID))
			} else {
				m["data"] = hex.EncodeToString(t.Data)
			}
			traits = append(traits, m)
		}
		return map[string]any{"name": v.Name, "traits": traits}
	}
	return v
}

func appendJSONValue(b []byte, v any) []byte {
	j, err := json.Marshal(v)
	if err != nil {
		return strconv.AppendQuote(b, fmt.Sprint(v))
	}
	return append(b, j...)
}
