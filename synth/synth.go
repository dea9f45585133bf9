// Package synth writes .etl files from JSON Lines events: the events of
// tracerpt-go's own JSON dump, written back exactly (same header kind,
// fields, extended items and payload), and any other JSON object with
// "properties", written as a self-describing TraceLogging event. See
// docs/cli.md ("synth") for the keys.
//
//	out, _ := os.Create("copy.etl")
//	err := synth.Convert(out, in, "events.jsonl", nil)
package synth

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/tracelogging"
)

// Options set the output file's buffers.
type Options struct {
	// BufferSize is the buffer size in bytes (64 KiB if 0).
	BufferSize int
	// Compress writes XPRESS-compressed buffers.
	Compress bool
	// CPUs is the processor count of the header (0: the input's, or 64).
	CPUs int
}

// InputError is a problem with the input: the line it is on (0 when it
// concerns the whole input) and what is wrong.
type InputError struct {
	Name string // the input's name, as given to Convert
	Line int
	Err  error
}

func (e *InputError) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("%s: %v", e.Name, e.Err)
	}
	return fmt.Sprintf("%s:%d: %v", e.Name, e.Line, e.Err)
}

func (e *InputError) Unwrap() error { return e.Err }

// maxLine bounds one input line.
const maxLine = 16 << 20

// jsonEvent is one line of input; see docs/cli.md for the keys.
type jsonEvent struct {
	Time              string          `json:"time"`
	Filetime          *jsonInt        `json:"filetime"`
	RawTimestamp      *jsonInt        `json:"raw_timestamp"`
	CPU               uint16          `json:"cpu"`
	PID               uint32          `json:"pid"`
	TID               uint32          `json:"tid"`
	HeaderPID         *uint32         `json:"header_pid"` // the header's, where "pid" is another process's
	HeaderTID         *uint32         `json:"header_tid"`
	Header            string          `json:"header"`
	Flags             jsonUint        `json:"flags"`
	ProviderGUID      string          `json:"provider_guid"`
	EventID           uint16          `json:"event_id"`
	Version           uint8           `json:"version"`
	Channel           *uint8          `json:"channel"`
	Level             *uint8          `json:"level"`
	Opcode            uint8           `json:"opcode"`
	Task              uint16          `json:"task"`
	Keywords          jsonUint        `json:"keywords"`
	HookID            *jsonUint       `json:"hook_id"`
	InstanceID        uint32          `json:"instance_id"`
	ParentInstanceID  uint32          `json:"parent_instance_id"`
	ParentGUID        string          `json:"parent_guid"`
	MessageFlags      jsonUint        `json:"message_flags"`
	Sequence          uint32          `json:"sequence"`
	ComponentID       uint32          `json:"component_id"`
	KernelTime        uint32          `json:"kernel_time"`
	UserTime          uint32          `json:"user_time"`
	ProcessorTime     jsonUint        `json:"processor_time"`
	ActivityID        string          `json:"activity_id"`
	Extended          []jsonExtended  `json:"extended"`
	UserData          *string         `json:"user_data"`
	ProviderName      string          `json:"provider_name"`
	EventName         string          `json:"event_name"`
	Properties        json.RawMessage `json:"properties"`
	RelatedActivityID string          `json:"related_activity_id"`
}

type jsonExtended struct {
	Type  string          `json:"type"`
	Value json.RawMessage `json:"value"`
	Data  string          `json:"data"`
}

// Convert reads JSON Lines events from r (name names it in errors) and
// writes an .etl file to w, in the order read (time order per processor).
// When w is an [io.WriterAt] (a file), the header is completed on close.
// Problems with the input are [*InputError]s naming the line.
func Convert(w io.Writer, r io.Reader, name string, o *Options) error {
	if o == nil {
		o = &Options{}
	}
	if o.BufferSize == 0 {
		o.BufferSize = 64 << 10
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, maxLine)
	var ew *etl.Writer
	var first *jsonEvent
	var headerEvents []etl.Event
	line := 0
	bad := func(err error) error { return &InputError{Name: name, Line: line, Err: err} }
	var err error
	for sc.Scan() {
		line++
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		var je jsonEvent
		dec := json.NewDecoder(bytes.NewReader(text))
		dec.UseNumber()
		if err := dec.Decode(&je); err != nil {
			return bad(err)
		}
		if ew == nil {
			// The log-file header event and the header-group events at its
			// timestamp make the header buffer; the writer starts at the
			// first other event.
			if first == nil {
				first = &je
				if isLogHeader(&je) && je.RawTimestamp != nil {
					continue
				}
			}
			if first != &je && je.ProviderGUID == eventTraceGUID && je.RawTimestamp != nil && first.RawTimestamp != nil &&
				*je.RawTimestamp == *first.RawTimestamp && je.UserData != nil && strings.HasPrefix(je.Header, "system") {
				ev, err := je.event()
				if err != nil {
					return bad(err)
				}
				headerEvents = append(headerEvents, *ev)
				continue
			}
			if ew, err = newWriter(w, first, headerEvents, o); err != nil {
				return bad(err)
			}
		}
		ev, err := je.event()
		if err != nil {
			return bad(err)
		}
		if err := ew.WriteEvent(ev); err != nil {
			return bad(err)
		}
	}
	if err := sc.Err(); err != nil {
		line++
		return bad(err)
	}
	if ew == nil && first != nil { // only header events
		if ew, err = newWriter(w, first, headerEvents, o); err != nil {
			return bad(err)
		}
	}
	if ew == nil {
		return &InputError{Name: name, Err: errors.New("no events")}
	}
	return ew.Close()
}

const eventTraceGUID = "{68fdd900-4a3e-11d1-84f4-0000f80464e3}"

// isLogHeader reports whether je is a log-file header event (made by the
// writer from its TLH).
func isLogHeader(je *jsonEvent) bool {
	return je.ProviderGUID == eventTraceGUID && (je.Header == "system64" || je.Header == "system32") && je.HookID != nil && *je.HookID == 0
}

// newWriter starts the output with the header the first line gives: the
// dumped log-file header event if it is there, else a system-time clock
// starting at the first event.
func newWriter(out io.Writer, first *jsonEvent, headerEvents []etl.Event, o *Options) (*etl.Writer, error) {
	var h etl.LogfileHeader
	wo := &etl.WriterOptions{BufferSize: o.BufferSize, Compress: o.Compress, HeaderEvents: headerEvents}
	if isLogHeader(first) && first.UserData != nil && first.RawTimestamp != nil {
		wo.HeaderThreadID, wo.HeaderProcessID = first.TID, first.PID
		wo.HeaderKernelTime, wo.HeaderUserTime = first.KernelTime, first.UserTime
		b, err := hex.DecodeString(*first.UserData)
		if err != nil {
			return nil, fmt.Errorf("log-file header event: %w", err)
		}
		if h, err = etl.ParseLogfileHeader(b, first.Header == "system64"); err != nil {
			return nil, fmt.Errorf("log-file header event: %w", err)
		}
		h.HeaderTimestamp = int64(*first.RawTimestamp)
		h.LogFileMode &^= etl.ModeCircular | etl.ModeCompressed | etl.ModeNewFile | etl.ModeAppend | etl.ModeUseKBytesForSize
		h.MaximumFileSize, h.EndTime, h.BuffersWritten = 0, 0, 0
	} else {
		ft, err := first.filetime()
		if err != nil {
			return nil, err
		}
		h = etl.LogfileHeader{Is64: true, PointerSize: 8, ReservedFlags: uint32(etl.ClockSystemTime), PerfFreq: 10000000,
			StartTime: ft, HeaderTimestamp: ft, LoggerName: "tracerpt-go synth", TimerResolution: 156250, NumberOfProcessors: 64}
	}
	if o.CPUs > 0 {
		h.NumberOfProcessors = uint32(o.CPUs)
	}
	wo.Header = h
	if headerEvents == nil && isLogHeader(first) {
		wo.HeaderEvents = []etl.Event{} // the dump had none: write none
	}
	return etl.NewWriter(out, wo)
}

func (je *jsonEvent) filetime() (int64, error) {
	if je.Filetime != nil {
		return int64(*je.Filetime), nil
	}
	if je.Time == "" {
		return 0, errors.New(`event has neither "filetime" nor "time"`)
	}
	t, err := time.Parse(time.RFC3339Nano, je.Time)
	if err != nil {
		return 0, fmt.Errorf(`"time": %w`, err)
	}
	ft, ok := tracelogging.ToFileTime(t)
	if !ok {
		return 0, fmt.Errorf(`"time" %s is outside the FILETIME range`, je.Time)
	}
	return int64(ft), nil
}

// headerByName and extByName are made when first used, not at every
// start of a program that links the package.
var headerByName = sync.OnceValue(func() map[string]etl.HeaderType {
	m := map[string]etl.HeaderType{}
	for _, t := range etl.HeaderTypes {
		m[t.String()] = t
	}
	return m
})

// jsonUint is an unsigned integer as the dump writes it (docs/cli.md, the
// integer rule): a JSON number, or a string of decimal digits for values
// above 2^53. Strings with "0x" are hex, as etwkit.event/1 dumps wrote
// flags, keywords and hook ids.
type jsonUint uint64

func (u *jsonUint) UnmarshalJSON(b []byte) error {
	n, err := parseJSONInt(b, false)
	*u = jsonUint(n)
	return err
}

// jsonInt is a signed jsonUint.
type jsonInt int64

func (i *jsonInt) UnmarshalJSON(b []byte) error {
	n, err := parseJSONInt(b, true)
	*i = jsonInt(n)
	return err
}

// parseJSONInt parses a JSON number or string holding an integer; signed
// values come back as their two's-complement bits.
func parseJSONInt(b []byte, signed bool) (uint64, error) {
	s := string(b)
	if s == "null" {
		return 0, nil
	}
	if len(s) >= 2 && s[0] == '"' {
		if err := json.Unmarshal(b, &s); err != nil {
			return 0, err
		}
		if h, ok := strings.CutPrefix(strings.ToLower(s), "0x"); ok {
			n, err := strconv.ParseUint(h, 16, 64)
			if err != nil {
				return 0, fmt.Errorf("%q: not an integer", s)
			}
			return n, nil
		}
	}
	if signed {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%s: not a 64-bit integer", b)
		}
		return uint64(n), nil
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: not an unsigned 64-bit integer", b)
	}
	return n, nil
}

func parseGUID(s, what string) (uuid.UUID, error) {
	if s == "" {
		return uuid.Nil, nil
	}
	g, err := uuid.Parse(strings.Trim(s, "{}"))
	if err != nil {
		return uuid.Nil, fmt.Errorf("%s %q: %w", what, s, err)
	}
	return g, nil
}

// event turns a line into an event to write.
func (je *jsonEvent) event() (*etl.Event, error) {
	ft, err := je.filetime()
	if err != nil {
		return nil, err
	}
	ev := &etl.Event{Time: ft, Processor: je.CPU, ProcessID: je.PID, ThreadID: je.TID}
	if je.HeaderPID != nil {
		ev.ProcessID = *je.HeaderPID
	}
	if je.HeaderTID != nil {
		ev.ThreadID = *je.HeaderTID
	}
	if je.RawTimestamp != nil {
		ev.Timestamp = int64(*je.RawTimestamp)
	}
	if je.UserData == nil {
		if je.Properties == nil {
			return nil, errors.New(`event has neither "user_data" nor "properties" (dump with --raw to keep user_data)`)
		}
		return je.traceLogging(ev)
	}
	var ok bool
	if ev.Header, ok = headerByName()[je.Header]; !ok {
		return nil, fmt.Errorf("unknown header %q", je.Header)
	}
	if ev.UserData, err = hex.DecodeString(*je.UserData); err != nil {
		return nil, fmt.Errorf("user_data: %w", err)
	}
	var hook jsonUint
	if je.HookID != nil {
		hook = *je.HookID
	}
	for _, f := range []struct {
		v    jsonUint
		name string
	}{{je.Flags, "flags"}, {hook, "hook_id"}, {je.MessageFlags, "message_flags"}} {
		if f.v > math.MaxUint16 {
			return nil, fmt.Errorf("%s %d: more than 16 bits", f.name, f.v)
		}
	}
	ev.Flags, ev.HookID, ev.MessageFlags = uint16(je.Flags), uint16(hook), uint16(je.MessageFlags)
	ev.Descriptor = etl.EventDescriptor{ID: je.EventID, Version: je.Version, Opcode: je.Opcode, Task: je.Task, Keyword: uint64(je.Keywords)}
	if je.Channel != nil {
		ev.Descriptor.Channel = *je.Channel
	}
	if je.Level != nil {
		ev.Descriptor.Level = *je.Level
	}
	ev.ClassVersion = uint16(je.Version)
	ev.KernelTime, ev.UserTime, ev.ProcessorTime = je.KernelTime, je.UserTime, uint64(je.ProcessorTime)
	ev.InstanceID, ev.ParentInstanceID, ev.SequenceNumber, ev.ComponentID = je.InstanceID, je.ParentInstanceID, je.Sequence, je.ComponentID
	if ev.ProviderID, err = parseGUID(je.ProviderGUID, "provider_guid"); err != nil {
		return nil, err
	}
	if ev.ParentGUID, err = parseGUID(je.ParentGUID, "parent_guid"); err != nil {
		return nil, err
	}
	if ev.ActivityID, err = parseGUID(je.ActivityID, "activity_id"); err != nil {
		return nil, err
	}
	for i, x := range je.Extended {
		item, err := x.item()
		if err != nil {
			return nil, fmt.Errorf("extended[%d] (%s): %w", i, x.Type, err)
		}
		ev.Extended = append(ev.Extended, item)
	}
	return ev, nil
}

var extByName = sync.OnceValue(func() map[string]etl.ExtType {
	m := map[string]etl.ExtType{}
	for t := etl.ExtType(1); t < 64; t++ {
		m[t.String()] = t
	}
	return m
})

// item re-encodes an extended item from its JSON form (cmd/tracerpt-go's
// jsonValue is the other direction).
func (x *jsonExtended) item() (etl.ExtendedItem, error) {
	t, ok := extByName()[x.Type]
	if !ok {
		n, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimPrefix(x.Type, "ext("), ")"), 10, 16)
		if err != nil {
			return etl.ExtendedItem{}, fmt.Errorf("unknown extended item type %q", x.Type)
		}
		t = etl.ExtType(n)
	}
	item := etl.ExtendedItem{Type: t}
	if x.Value == nil { // {"type", "data", "error"}: an item that did not decode
		b, err := hex.DecodeString(x.Data)
		item.Data = b
		return item, err
	}
	var err error
	item.Data, err = extData(t, x.Value)
	return item, err
}

func extData(t etl.ExtType, v json.RawMessage) ([]byte, error) {
	le := func(b []byte, n int, u uint64) []byte {
		for i := 0; i < n; i++ {
			b = append(b, byte(u>>(8*i)))
		}
		return b
	}
	guid := func(s string) ([]byte, error) {
		g, err := parseGUID(s, "GUID")
		b := make([]byte, 16)
		etl.PutGUIDWindows(b, g)
		return b, err
	}
	switch t {
	case etl.ExtRelatedActivityID, etl.ExtControlGUID, etl.ExtContainerID:
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return nil, err
		}
		return guid(s)
	case etl.ExtSID:
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return nil, err
		}
		return sidBytes(s)
	case etl.ExtTSID:
		var n uint32
		err := json.Unmarshal(v, &n)
		return le(nil, 4, uint64(n)), err
	case etl.ExtPEBSIndex, etl.ExtPSMKey, etl.ExtEventKey, etl.ExtProcessStartKey, etl.ExtQPCDelta:
		var n jsonUint
		err := json.Unmarshal(v, &n)
		return le(nil, 8, uint64(n)), err
	case etl.ExtPMCCounters:
		var ns []jsonUint
		err := json.Unmarshal(v, &ns)
		var b []byte
		for _, n := range ns {
			b = le(b, 8, uint64(n))
		}
		return b, err
	case etl.ExtInstanceInfo:
		var ii struct {
			InstanceID       uint32 `json:"instance_id"`
			ParentInstanceID uint32 `json:"parent_instance_id"`
			ParentGUID       string `json:"parent_guid"`
		}
		if err := json.Unmarshal(v, &ii); err != nil {
			return nil, err
		}
		g, err := guid(ii.ParentGUID)
		return append(le(le(nil, 4, uint64(ii.InstanceID)), 4, uint64(ii.ParentInstanceID)), g...), err
	case etl.ExtStackTrace32, etl.ExtStackTrace64:
		var st struct {
			MatchID   jsonUint   `json:"match_id"`
			Addresses []jsonUint `json:"addresses"`
		}
		err := json.Unmarshal(v, &st)
		b := le(nil, 8, uint64(st.MatchID))
		w := 8
		if t == etl.ExtStackTrace32 {
			w = 4
		}
		for _, a := range st.Addresses {
			b = le(b, w, uint64(a))
		}
		return b, err
	case etl.ExtStackKey32, etl.ExtStackKey64:
		var sk struct {
			MatchID  jsonUint `json:"match_id"`
			StackKey jsonUint `json:"stack_key"`
		}
		err := json.Unmarshal(v, &sk)
		b := le(nil, 8, uint64(sk.MatchID))
		if t == etl.ExtStackKey32 {
			return le(le(b, 4, uint64(sk.StackKey)), 4, 0), err
		}
		return le(b, 8, uint64(sk.StackKey)), err
	case etl.ExtProvTraits:
		var pt struct {
			Name   string `json:"name"`
			Traits []struct {
				Type uint8  `json:"type"`
				GUID string `json:"guid"`
				Data string `json:"data"`
			} `json:"traits"`
		}
		if err := json.Unmarshal(v, &pt); err != nil {
			return nil, err
		}
		b := append([]byte{0, 0}, pt.Name...)
		b = append(b, 0)
		for _, tr := range pt.Traits {
			var data []byte
			var err error
			if tr.GUID != "" {
				data, err = guid(tr.GUID)
			} else {
				data, err = hex.DecodeString(tr.Data)
			}
			if err != nil {
				return nil, err
			}
			b = le(b, 2, uint64(3+len(data)))
			b = append(append(b, tr.Type), data...)
		}
		if len(b) > math.MaxUint16 {
			return nil, errors.New("provider traits over 65535 bytes")
		}
		b[0], b[1] = byte(len(b)), byte(len(b)>>8)
		return b, nil
	}
	var s string // event_schema_tl and unknown types: hex
	if err := json.Unmarshal(v, &s); err != nil {
		return nil, err
	}
	return hex.DecodeString(s)
}

// sidBytes encodes "S-R-I-S-S…".
func sidBytes(s string) ([]byte, error) {
	parts := strings.Split(s, "-")
	if len(parts) < 3 || parts[0] != "S" || len(parts) > 18 {
		return nil, fmt.Errorf("SID %q", s)
	}
	rev, err := strconv.ParseUint(parts[1], 10, 8)
	if err != nil {
		return nil, fmt.Errorf("SID %q: %w", s, err)
	}
	var auth uint64
	if strings.HasPrefix(parts[2], "0x") {
		auth, err = strconv.ParseUint(parts[2][2:], 16, 48)
	} else {
		auth, err = strconv.ParseUint(parts[2], 10, 48)
	}
	if err != nil {
		return nil, fmt.Errorf("SID %q: %w", s, err)
	}
	b := []byte{byte(rev), byte(len(parts) - 3)}
	for i := 5; i >= 0; i-- {
		b = append(b, byte(auth>>(8*i)))
	}
	for _, p := range parts[3:] {
		n, err := strconv.ParseUint(p, 10, 32)
		if err != nil {
			return nil, fmt.Errorf("SID %q: %w", s, err)
		}
		b = append(b, byte(n), byte(n>>8), byte(n>>16), byte(n>>24))
	}
	return b, nil
}

// traceLogging encodes a properties-only event as a TraceLogging event.
func (je *jsonEvent) traceLogging(ev *etl.Event) (*etl.Event, error) {
	name := je.ProviderName
	if name == "" {
		name = "tracerpt-go-synth"
	}
	var err error
	if ev.ProviderID, err = parseGUID(je.ProviderGUID, "provider_guid"); err != nil {
		return nil, err
	}
	if ev.ProviderID == uuid.Nil {
		ev.ProviderID = tracelogging.ProviderGUID(name)
	}
	fields, err := jsonFields(je.Properties)
	if err != nil {
		return nil, fmt.Errorf("properties: %w", err)
	}
	evName := je.EventName
	if evName == "" {
		evName = "Event"
	}
	tl := tracelogging.Event{Name: evName, Fields: fields}
	if ev.Extended, ev.UserData, err = tl.ETLData(name); err != nil {
		return nil, err
	}
	ev.Header = etl.HeaderEvent64
	ev.Descriptor = etl.EventDescriptor{ID: je.EventID, Channel: tracelogging.ChannelTraceLogging, Level: 5, Opcode: je.Opcode, Keyword: uint64(je.Keywords)}
	if je.Level != nil {
		ev.Descriptor.Level = *je.Level
	}
	if ev.ActivityID, err = parseGUID(je.ActivityID, "activity_id"); err != nil {
		return nil, err
	}
	return ev, nil
}

// jsonFields turns a JSON object, in key order, into TraceLogging fields.
func jsonFields(raw json.RawMessage) ([]tracelogging.FieldValue, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not a JSON object")
	}
	var fields []tracelogging.FieldValue
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		f, err := jsonField(k.(string), v)
		if err != nil {
			return nil, err
		}
		if f != nil {
			fields = append(fields, *f)
		}
	}
	return fields, nil
}

func jsonField(name string, v json.RawMessage) (*tracelogging.FieldValue, error) {
	v = bytes.TrimSpace(v)
	var f tracelogging.FieldValue
	switch {
	case len(v) == 0 || string(v) == "null":
		// TraceLogging has no null; leaving the field out would change
		// the event silently.
		return nil, fmt.Errorf("%s: null has no TraceLogging encoding (leave the property out, or give it a value)", name)
	case v[0] == '"':
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return nil, err
		}
		f = tracelogging.UnicodeString(name, s)
	case string(v) == "true" || string(v) == "false":
		f = tracelogging.Bool32(name, string(v) == "true")
	case v[0] == '{':
		members, err := jsonFields(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if len(members) == 0 {
			return nil, fmt.Errorf("%s: an empty object has no TraceLogging encoding (a struct has 1 to 127 members)", name)
		}
		f = tracelogging.Struct(name, members)
	case v[0] == '[':
		var elems []json.RawMessage
		if err := json.Unmarshal(v, &elems); err != nil {
			return nil, err
		}
		return jsonArray(name, elems)
	default:
		if n, err := strconv.ParseInt(string(v), 10, 64); err == nil {
			f = tracelogging.Int64(name, n)
		} else if u, err := strconv.ParseUint(string(v), 10, 64); err == nil {
			f = tracelogging.Uint64(name, u)
		} else if x, err := strconv.ParseFloat(string(v), 64); err == nil {
			f = tracelogging.Float64(name, x)
		} else {
			return nil, fmt.Errorf("%s: unsupported value %s", name, v)
		}
	}
	if err := f.Err(); err != nil {
		return nil, err
	}
	return &f, nil
}

// jsonArray encodes an array of strings, booleans, numbers or objects; the
// elements must share a kind.
func jsonArray(name string, elems []json.RawMessage) (*tracelogging.FieldValue, error) {
	if len(elems) == 0 {
		// Kept: a counted array of no elements (of Int64: JSON does not
		// say of what), which reads back as [].
		f := tracelogging.Array(name, []int64{}, tracelogging.Int64)
		if err := f.Err(); err != nil {
			return nil, err
		}
		return &f, nil
	}
	for i, e := range elems {
		if string(bytes.TrimSpace(e)) == "null" {
			return nil, fmt.Errorf("%s[%d]: null has no TraceLogging encoding", name, i)
		}
	}
	var f tracelogging.FieldValue
	switch first := bytes.TrimSpace(elems[0]); {
	case first[0] == '"':
		var ss []string
		if err := json.Unmarshal(jsonList(elems), &ss); err != nil {
			return nil, fmt.Errorf("%s: array elements must all be strings", name)
		}
		f = tracelogging.Array(name, ss, tracelogging.UnicodeString)
	case first[0] == 't' || first[0] == 'f':
		var bs []bool
		if err := json.Unmarshal(jsonList(elems), &bs); err != nil {
			return nil, fmt.Errorf("%s: array elements must all be booleans", name)
		}
		f = tracelogging.Array(name, bs, tracelogging.Bool32)
	case first[0] == '{':
		var structs []tracelogging.FieldValue
		for _, e := range elems {
			m, err := jsonFields(e)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			structs = append(structs, tracelogging.Struct(name, m))
		}
		f = tracelogging.Array(name, structs, func(_ string, v tracelogging.FieldValue, _ ...tracelogging.Option) tracelogging.FieldValue { return v })
	default:
		var ns []int64
		if err := json.Unmarshal(jsonList(elems), &ns); err == nil {
			f = tracelogging.Array(name, ns, tracelogging.Int64)
		} else {
			var xs []float64
			if err := json.Unmarshal(jsonList(elems), &xs); err != nil {
				return nil, fmt.Errorf("%s: array elements must all be numbers", name)
			}
			f = tracelogging.Array(name, xs, tracelogging.Float64)
		}
	}
	if err := f.Err(); err != nil {
		return nil, err
	}
	return &f, nil
}

func jsonList(elems []json.RawMessage) []byte {
	b := []byte{'['}
	for i, e := range elems {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, e...)
	}
	return append(b, ']')
}
