package tracerpt

import (
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/tdh"
)

// Options selects how events are rendered. The zero value renders as
// tracerpt does on an en-US machine set to UTC.
type Options struct {
	// Zone is the time zone of XML TimeCreated and of the summary's dates
	// (tracerpt uses the machine's zone); nil means UTC, written "Z".
	Zone *time.Location
	// Culture names RenderingInfo/@Culture and formats the summary's
	// dates; the zero value means en-US.
	Culture Culture
	// LessRestrictive is tracerpt's -lr: an event whose payload does not
	// fit its schema shows the properties that did decode instead of
	// ProcessingErrorData.
	LessRestrictive bool
	// RawTimestamp is tracerpt's -rts: TimeCreated also carries RawTime,
	// the timestamp in the session's clock.
	RawTimestamp bool
	// MOFProviders gives the GUID that XML System/Provider shows for the
	// events of a MOF provider class, by class name. MSNT_SystemTrace (the
	// NT kernel logger, 9e814aad-3204-11d2-9a82-006008a86939) is always
	// known; events of other MOF providers missing here show <Provider />.
	MOFProviders map[string]uuid.UUID
	// Encoding is the CSV character encoding (tracerpt's -en); XML is
	// always ASCII with character references, JSON always UTF-8.
	Encoding Encoding
	// Raw keeps user_data (hex) in JSON for events that decoded.
	Raw bool
}

// Encoding is a CSV character encoding.
type Encoding int

const (
	// ANSI writes Windows-1252 (tracerpt's default, -en ANSI); characters
	// outside it become '?'.
	ANSI Encoding = iota
	// UTF8 writes UTF-8 without a byte-order mark.
	UTF8
	// Unicode writes UTF-16LE with a byte-order mark (-en Unicode).
	Unicode
)

// KernelProviderName is the MOF provider class of NT kernel logger events.
const KernelProviderName = "MSNT_SystemTrace"

// traceNS is the namespace of tracerpt's own elements.
const traceNS = "http://schemas.microsoft.com/win/2004/08/events/trace"

func (o *Options) culture() Culture {
	if o.Culture.Name == "" {
		c, _, _ := ParseCulture(DefaultCulture)
		return c
	}
	return o.Culture
}

// mofProviderGUID returns the provider GUID tracerpt shows for a MOF
// schema's provider class.
func (o *Options) mofProviderGUID(name string) (uuid.UUID, bool) {
	if name == KernelProviderName {
		return etl.SystemTraceControlGUID, true
	}
	g, ok := o.MOFProviders[name]
	return g, ok
}

// fileInfo holds what the encoders need of each input file.
type fileInfo struct {
	msPerTick uint64 // TimerResolution / 10,000, as tracerpt multiplies
}

func newFileInfos(files []*etl.File) []fileInfo {
	fi := make([]fileInfo, len(files))
	for i, f := range files {
		fi[i].msPerTick = uint64(f.Header.TimerResolution / 10000)
	}
	return fi
}

// msPerTick returns the milliseconds per CPU tick of the event's file
// (tracerpt computes KernelTime/UserTime as ticks × (TimerResolution /
// 10,000), integer division first: 15 ms per 15.625 ms tick).
func msPerTick(files []fileInfo, ev *etl.Event) uint64 {
	if ev.File >= 0 && ev.File < len(files) {
		return files[ev.File].msPerTick
	}
	return 15
}

// schemaOf returns the schema of a decode result, or nil.
func schemaOf(res *decode.Result) *tdh.Event {
	if res == nil {
		return nil
	}
	return res.Schema
}

// isClassic reports whether an event is a classic (MOF-style) event:
// kernel, classic and instance headers.
func isClassic(ev *etl.Event) bool {
	return ev.Flags&etl.FlagClassicHeader != 0 || ev.Header.Kernel()
}

// eventName is what tracerpt's CSV and summary call the event name: TDH's
// task name, which is the class name for MOF events and the event name for
// TraceLogging ones; for manifest events the task name, else the provider
// name. Unknown events have none.
func eventName(s *tdh.Event) string {
	if s == nil {
		return ""
	}
	switch s.Source {
	case tdh.SourceMOF, tdh.SourceTraceLogging:
		if s.EventName != "" {
			return s.EventName
		}
	default:
		if s.TaskName != "" {
			return s.TaskName
		}
	}
	return s.ProviderName
}

// appendOpcodeText appends the opcode name, or the opcode number when the
// schema names none.
func appendOpcodeText(b []byte, ev *etl.Event, s *tdh.Event) []byte {
	if s != nil && s.OpcodeName != "" {
		return append(b, s.OpcodeName...)
	}
	return strconv.AppendUint(b, uint64(ev.Descriptor.Opcode), 10)
}

// decodedOK reports whether a result's properties are to be rendered:
// decoded without error and, for MOF events, without trailing bytes
// (TDH rejects a MOF payload longer than its class), or anything that
// decoded when lessRestrictive is set.
func decodedOK(res *decode.Result, lessRestrictive bool) bool {
	if res == nil || res.Schema == nil || res.Decoded == nil {
		return false
	}
	if lessRestrictive {
		return true
	}
	if res.Err != nil {
		return false
	}
	return res.Schema.Source != tdh.SourceMOF || len(res.Decoded.Extra) == 0
}
