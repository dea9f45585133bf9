package tdh

import (
	"encoding/binary"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Property access by name, for programs that read decoded events.
//
//	d := res.Decoded
//	pid, _ := d.Uint("ProcessId")       // any integer in-type, hex or not
//	name, _ := d.String("ImageFileName") // UTF-16 or 8-bit strings
//	when, _ := d.Time("InstallDate")     // FILETIME, SYSTEMTIME
//	text, _ := d.Text("Flags")           // what TDH shows (maps, hex, …)
//
// Names match the schema's property names exactly or, failing that,
// ignoring ASCII case (kernel MOF classes and manifests spell the same
// field "ProcessId" and "ProcessID"). Lookups walk the top-level
// properties and allocate nothing; the returned values are valid until
// the next decode, like the Decoded itself. A Decoded that a [Decoder]
// made remembers, in its Decoder, where names were found in each schema
// (lookup.go), so that a repeated lookup costs a few comparisons and an
// index: like the Decoder, a Decoded is for one goroutine at a time.

// Get returns the top-level property called name, if the payload holds
// it. The pointer is into d.Values.
func (d *Decoded) Get(name string) (*Value, bool) {
	if d == nil {
		return nil, false
	}
	if c := d.names; c != nil && c.sets != nil && d.Schema != nil && len(d.Schema.Properties) > 0 {
		// The cache's hits, inline (see lookup.go; find does the rest).
		// A value whose Prop is not the schema's property i was not
		// decoded (the payload ended before it, or a property before it
		// failed): find scans then.
		props := d.Schema.Properties
		set := &c.sets[nameSet(&props[0], name)]
		for w := range set {
			e := &set[w]
			if !e.is(props, name) {
				continue
			}
			i := int(e.idx)
			if i < 0 {
				return nil, false
			}
			if i < len(d.Values) && d.Values[i].Prop == &props[i] {
				return &d.Values[i], true
			}
			break
		}
	}
	return d.find(name)
}

// Uint returns the value of the integer (or Boolean, or pointer) property
// called name.
func (d *Decoded) Uint(name string) (uint64, bool) {
	v, ok := d.Get(name)
	if !ok {
		return 0, false
	}
	return v.Uint()
}

// Int returns the value of the integer property called name,
// sign-extended for signed in-types.
func (d *Decoded) Int(name string) (int64, bool) {
	v, ok := d.Get(name)
	if !ok {
		return 0, false
	}
	return v.Int()
}

// Float returns the value of the Float or Double property called name.
func (d *Decoded) Float(name string) (float64, bool) {
	v, ok := d.Get(name)
	if !ok {
		return 0, false
	}
	return v.Float()
}

// String returns the text of the string property called name (see
// [Value.Text] for other kinds). ok is false when there is no such
// property or it is not a string or character type.
func (d *Decoded) String(name string) (string, bool) {
	v, ok := d.Get(name)
	if !ok || v.Prop == nil || v.Kind != Scalar || !isTextInType(v.Prop.InType) {
		return "", false
	}
	return v.String(), true
}

// Text returns the property called name as TDH renders it (maps, hex
// out-types, GUIDs, times, SIDs, arrays and structs).
func (d *Decoded) Text(name string) (string, bool) {
	v, ok := d.Get(name)
	if !ok {
		return "", false
	}
	return string(AppendText(nil, d, v, nil)), true
}

// GUID returns the value of the GUID property called name.
func (d *Decoded) GUID(name string) (uuid.UUID, bool) {
	v, ok := d.Get(name)
	if !ok {
		return uuid.UUID{}, false
	}
	return v.GUID()
}

// Time returns the value of the time property called name: a FILETIME
// or SYSTEMTIME in-type, or a 64-bit integer with a date-time out-type
// (TraceLogging's FILETIME fields), in UTC.
func (d *Decoded) Time(name string) (time.Time, bool) {
	v, ok := d.Get(name)
	if !ok {
		return time.Time{}, false
	}
	return v.Time()
}

// Bytes returns the raw bytes of the scalar property called name (for
// strings, without terminator or length prefix).
func (d *Decoded) Bytes(name string) ([]byte, bool) {
	v, ok := d.Get(name)
	if !ok || v.Kind != Scalar {
		return nil, false
	}
	return v.Data, true
}

// Elements returns the elements of the array property called name (the
// members of a struct property).
func (d *Decoded) Elements(name string) ([]Value, bool) {
	v, ok := d.Get(name)
	if !ok || v.Kind == Scalar {
		return nil, false
	}
	return children(d, v), true
}

// fileTimeEpochTicks is 1601-01-01 → 1970-01-01 in 100 ns ticks.
const fileTimeEpochTicks = 116444736000000000

// Time returns the instant of a FILETIME or SYSTEMTIME value, or of a
// 64-bit integer rendered as a date-time, in UTC.
func (v *Value) Time() (time.Time, bool) {
	if v.Prop == nil || v.Kind != Scalar {
		return time.Time{}, false
	}
	b := v.Data
	switch in := v.Prop.InType; {
	case in == InTypeFileTime && len(b) == 8:
		return fileTime(binary.LittleEndian.Uint64(b))
	case in == InTypeSystemTime:
		if !validSystemTime(b) {
			return time.Time{}, false
		}
		f := func(i int) int { return int(binary.LittleEndian.Uint16(b[2*i:])) }
		return time.Date(f(0), time.Month(f(1)), f(3), f(4), f(5), f(6), f(7)*1e6, time.UTC), true
	case (in == InTypeUInt64 || in == InTypeInt64) && len(b) == 8:
		switch v.Prop.OutType {
		case OutTypeDateTime, OutTypeDateTimeUTC, OutTypeCultureInsensitiveDateTime:
			return fileTime(binary.LittleEndian.Uint64(b))
		}
	}
	return time.Time{}, false
}

func fileTime(ft uint64) (time.Time, bool) {
	if ft >= 1<<63 {
		return time.Time{}, false
	}
	t := int64(ft) - fileTimeEpochTicks
	return time.Unix(t/1e7, t%1e7*100).UTC(), true
}

// isTextInType reports whether values of in render as text by themselves
// (strings and characters).
func isTextInType(in InType) bool {
	return in.IsString() || in == InTypeUnicodeChar || in == InTypeAnsiChar
}

// String returns the value as text. Strings and characters give their
// text (UTF-16 decoded; 8-bit strings taken as UTF-8 when valid and as
// Windows-1252 otherwise; a NUL ends the string), as before. Any other
// scalar renders as TDH renders it ([AppendText]: decimal or hex
// integers, value and bit maps, GUIDs, times, SIDs, addresses): for
// example "0xDE0" for a ProcessId with a hex out-type. Arrays and structs
// give "" because their elements live in the [Decoded]; use
// [Decoded.Text] or [AppendText] for them.
func (v *Value) String() string {
	if v.Prop == nil {
		return ""
	}
	if isTextInType(v.Prop.InType) {
		wide := v.Prop.InType.IsWide()
		n := len(v.Data)
		if wide {
			n /= 2
		}
		return string(AppendString(make([]byte, 0, n), v.Data, wide))
	}
	if v.Kind != Scalar {
		return ""
	}
	return string(AppendText(nil, nil, v, nil))
}

// Identity returns a name for the event that does not change with the
// schema's version: "Provider/Task/Opcode" from the task and opcode names
// when the schema has a task name (manifest events:
// "Microsoft-Windows-DotNETRuntime/GC/Start" for GCStart_V1 and
// GCStart_V2), "Provider/Class/Opcode" for MOF classes
// ("MSNT_SystemTrace/PerfInfo/SampleProf"), else "Provider/EventName".
// Parts the schema does not name are left out.
func (e *Event) Identity() string {
	if e == nil {
		return ""
	}
	var b strings.Builder
	add := func(s string) {
		if s == "" {
			return
		}
		if b.Len() > 0 {
			b.WriteByte('/')
		}
		b.WriteString(s)
	}
	add(e.ProviderName)
	switch {
	case e.TaskName != "":
		add(e.TaskName)
		add(e.OpcodeName)
	case e.Source == SourceMOF:
		add(e.EventName)
		add(e.OpcodeName)
	default:
		add(e.EventName)
		if e.EventName == "" {
			add(e.OpcodeName)
		}
	}
	return b.String()
}
