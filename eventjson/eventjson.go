// Package eventjson holds what the etwkit.event/2 schema (docs/cli.md)
// says of values, for the outputs that write it: tracerpt's JSON Lines
// dump and the Parquet dump of package parquetout. Strings are escaped as
// encoding/json escapes them, GUIDs are braced and lower case, extended
// items are typed values, and integers follow the integer rule: numbers up
// to 2^53, decimal strings above, so that float64 readers read them
// exactly. Everything appends to a byte slice without allocating.
package eventjson

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"

	"github.com/google/uuid"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/decimal"
	"github.com/etwkit/etw/internal/jsonstr"
	"github.com/etwkit/etw/tdh"
)

const lowerHex = "0123456789abcdef"

// SchemaName names the JSON Lines schema the encoder writes (docs/cli.md):
// "info --json" reports it, and it changes when a key changes meaning.
const SchemaName = "etwkit.event/2"

// TraceStart returns the start of a trace made of files: the earliest
// log-file header StartTime that is set (0 if none is). The JSON dump's
// "rel_ms" counts from it.
func TraceStart(files []*etl.File) int64 {
	var start int64
	for _, f := range files {
		if st := f.Header.StartTime; st > 0 && (start == 0 || st < start) {
			start = st
		}
	}
	return start
}

// standardLevels are winmeta.xml's level names.
var standardLevels = [...]string{"Log Always", "Critical", "Error", "Warning", "Information", "Verbose"}

// LevelName returns name or, when it is empty, the standard (winmeta.xml)
// name of level; "" when there is none.
func LevelName(level uint8, name string) string {
	if name == "" && int(level) < len(standardLevels) && level > 0 {
		name = standardLevels[level]
	}
	return name
}

// AppendExtended appends extended items as the JSON dump's
// "extended" array (docs/cli.md): [{"type":NAME,"value":V},…].
func AppendExtended(b []byte, items []etl.ExtendedItem) []byte {
	b = append(b, '[')
	for i, x := range items {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendItem(b, x)
	}
	return append(b, ']')
}

// appendItem writes {"type":NAME,"value":V} with V the typed value of
// the item, or {"type":NAME,"data":HEX,"error":MSG} when it does not
// decode. Raw blobs (TraceLogging schemas, unknown types) are hex strings.
// Integers follow the integer rule (numbers up to 2^53, decimal strings
// above); nothing goes through reflection.
func appendItem(b []byte, x etl.ExtendedItem) []byte {
	b = append(b, `{"type":"`...)
	b = append(b, x.Type.String()...)
	b = append(b, '"')
	d := x.Data
	le := binary.LittleEndian
	switch x.Type {
	case etl.ExtEventSchemaTL:
		b = append(b, `,"value":"`...)
		b = hex.AppendEncode(b, d)
		return append(b, `"}`...)
	case etl.ExtRelatedActivityID, etl.ExtControlGUID, etl.ExtContainerID:
		if len(d) >= 16 {
			b = append(b, `,"value":"`...)
			b = AppendGUID(b, etl.GUIDFromWindows(d))
			return append(b, `"}`...)
		}
	case etl.ExtProvTraits:
		if name, ok := plainTraitsName(d); ok {
			b = append(b, `,"value":{"name":`...)
			b = AppendString(b, name)
			return append(b, `,"traits":[]}}`...)
		}
	case etl.ExtTSID:
		if len(d) >= 4 {
			b = append(b, `,"value":`...)
			b = decimal.AppendUint(b, uint64(le.Uint32(d)))
			return append(b, '}')
		}
	case etl.ExtInstanceInfo:
		if len(d) >= 24 {
			b = append(b, `,"value":{"instance_id":`...)
			b = decimal.AppendUint(b, uint64(le.Uint32(d)))
			b = append(b, `,"parent_instance_id":`...)
			b = decimal.AppendUint(b, uint64(le.Uint32(d[4:])))
			b = append(b, `,"parent_guid":"`...)
			b = AppendGUID(b, etl.GUIDFromWindows(d[8:]))
			return append(b, `"}}`...)
		}
	case etl.ExtStackTrace32, etl.ExtStackTrace64:
		if len(d) >= 8 {
			b = append(b, `,"value":{"match_id":`...)
			b = tdh.AppendJSONUint(b, le.Uint64(d))
			b = append(b, `,"addresses":[`...)
			rest := d[8:]
			if x.Type == etl.ExtStackTrace32 {
				for i := 0; i+4 <= len(rest); i += 4 {
					if i > 0 {
						b = append(b, ',')
					}
					b = decimal.AppendUint(b, uint64(le.Uint32(rest[i:])))
				}
			} else {
				for i := 0; i+8 <= len(rest); i += 8 {
					if i > 0 {
						b = append(b, ',')
					}
					b = tdh.AppendJSONUint(b, le.Uint64(rest[i:]))
				}
			}
			return append(b, `]}}`...)
		}
	case etl.ExtStackKey32, etl.ExtStackKey64:
		n := 12
		if x.Type == etl.ExtStackKey64 {
			n = 16
		}
		if len(d) >= n {
			key := uint64(le.Uint32(d[8:]))
			if x.Type == etl.ExtStackKey64 {
				key = le.Uint64(d[8:])
			}
			b = append(b, `,"value":{"match_id":`...)
			b = tdh.AppendJSONUint(b, le.Uint64(d))
			b = append(b, `,"stack_key":`...)
			b = tdh.AppendJSONUint(b, key)
			return append(b, `}}`...)
		}
	case etl.ExtPEBSIndex, etl.ExtPSMKey, etl.ExtEventKey, etl.ExtProcessStartKey, etl.ExtQPCDelta:
		if len(d) >= 8 {
			b = append(b, `,"value":`...)
			b = tdh.AppendJSONUint(b, le.Uint64(d))
			return append(b, '}')
		}
	case etl.ExtPMCCounters:
		b = append(b, `,"value":[`...)
		for i := 0; i+8 <= len(d); i += 8 {
			if i > 0 {
				b = append(b, ',')
			}
			b = tdh.AppendJSONUint(b, le.Uint64(d[i:]))
		}
		return append(b, `]}`...)
	}
	v, err := x.Value()
	if err != nil {
		b = append(b, `,"data":"`...)
		b = hex.AppendEncode(b, d)
		b = append(b, `","error":`...)
		return append(AppendString(b, err.Error()), '}')
	}
	b = append(b, `,"value":`...)
	switch v := v.(type) {
	case etl.SID:
		b = AppendString(b, v.String())
	case etl.ProviderTraits:
		b = append(b, `{"name":`...)
		b = AppendString(b, v.Name)
		b = append(b, `,"traits":[`...)
		for i, t := range v.Traits {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"type":`...)
			b = decimal.AppendUint(b, uint64(t.Type))
			if t.GUID != nil {
				b = append(b, `,"guid":"`...)
				b = AppendGUID(b, *t.GUID)
			} else {
				b = append(b, `,"data":"`...)
				b = hex.AppendEncode(b, t.Data)
			}
			b = append(b, `"}`...)
		}
		b = append(b, `]}`...)
	case []byte:
		b = append(b, '"')
		b = hex.AppendEncode(b, v)
		b = append(b, '"')
	default: // the types above cover every item Value decodes
		b = AppendString(b, fmt.Sprint(v))
	}
	return append(b, '}')
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

// AppendGUID appends g in braces, lower case, as tracerpt prints GUIDs
// and the JSON dump writes them.
func AppendGUID(b []byte, g uuid.UUID) []byte {
	b = append(b, '{')
	for i, c := range g {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			b = append(b, '-')
		}
		b = append(b, lowerHex[c>>4], lowerHex[c&15])
	}
	return append(b, '}')
}

// AppendString appends s as a JSON string exactly as encoding/json
// writes it: <, > and & as \u003c, \u003e, \u0026; \b \f \n \r \t and other
// control characters as escapes; invalid UTF-8 as \ufffd; U+2028 and
// U+2029 escaped. The strings the JSON and Parquet dumps write themselves
// (names, message, errors, frames) go through it; the "properties" values are tdh's
// (tdh.AppendDataJSON), which leaves <, >, &, U+2028 and U+2029 as they
// are. Both decode to the same strings; the two are kept apart so that
// neither output's bytes change.
func AppendString[S ~string | ~[]byte](dst []byte, s S) []byte { return jsonstr.Append(dst, s) }
