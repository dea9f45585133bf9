package tracerpt

import (
	"github.com/etwkit/etw/analysis"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/eventjson"
	"github.com/etwkit/etw/internal/decimal"
	"github.com/etwkit/etw/pipeline"
	"github.com/etwkit/etw/tdh"
)

// XMLEncoder renders events as tracerpt's XML dump (-of XML): no XML
// declaration, an <Events> root, one TAB-indented <Event> per event with
// <System> children in tracerpt's order, <EventData>, <RenderingInfo> and
// <ExtendedTracingInfo>, ASCII output with character references for
// everything else (docs/tracerpt-compat.md lists the details).
//
// An XMLEncoder keeps scratch space and the text of recent events'
// <System> parts: use one per goroutine ([XMLEncoder.Clone]).
type XMLEncoder struct {
	o       Options
	files   []fileInfo
	tf      *timeFormatter
	culture []byte // `<RenderingInfo Culture="…">` line
	scratch []byte
	msg     []byte // message expansion, reused
	render  tdh.RenderOptions
	system  *xmlSystem    // rendered parts of <System>, per goroutine
	texts   xmlTextCache  // the schemas' <Data> openings and RenderingInfo
	plans   tdh.PlanCache // the schemas' plans: integer and string values, messages
	noTexts bool          // render every schema's text and message anew (the tests' reference)
}

// NewXMLEncoder returns an encoder for the events of files (event.File
// indexes files) rendered with options o (nil for the defaults).
func NewXMLEncoder(files []*etl.File, o *Options) *XMLEncoder {
	e := &XMLEncoder{files: newFileInfos(files)}
	if o != nil {
		e.o = *o
	}
	e.tf = newTimeFormatter(e.o.Zone)
	c := e.o.culture()
	e.culture = append([]byte("\t<RenderingInfo Culture=\""), appendXMLAttr(nil, c.Name)...)
	e.culture = append(e.culture, "\">\n"...)
	e.render.MOFPadding = true
	return e
}

// Clone returns an encoder with the same settings for another goroutine.
func (e *XMLEncoder) Clone() pipeline.Encoder[byte] {
	c := *e
	c.tf = newTimeFormatter(e.o.Zone)
	c.scratch, c.system, c.texts, c.plans = nil, nil, xmlTextCache{}, tdh.PlanCache{}
	return &c
}

// Begin appends the document start, "<Events>\n".
func (e *XMLEncoder) Begin(b []byte) []byte { return append(b, "<Events>\n"...) }

// End appends the document end, "</Events>\n".
func (e *XMLEncoder) End(b []byte) []byte { return append(b, "</Events>\n"...) }

// AppendEvent appends one <Event> element. res is the event's decoding
// (nil or a nil Schema for an unknown event). Error records, which
// ProcessTrace does not deliver, append nothing.
func (e *XMLEncoder) AppendEvent(b []byte, ev *etl.Event, res *decode.Result, _ *analysis.Annotation) []byte {
	if ev.Header == etl.HeaderError {
		return b
	}
	s := schemaOf(res)
	b = e.appendSystem(b, ev, s)
	switch {
	case decodedOK(res, e.o.LessRestrictive):
		b = e.appendEventData(b, res.Decoded)
	case s != nil:
		b = append(b, "\t<ProcessingErrorData>\n\t\t<ErrorCode>15005</ErrorCode>\n\t\t<DataItemName />\n\t\t<EventPayload>"...)
		b = appendUpperHexBytes(b, ev.UserData)
		b = append(b, "</EventPayload>\n\t</ProcessingErrorData>\n"...)
	case ev.Header == etl.HeaderMessage:
		b = e.appendDebugData(b, ev)
	default:
		b = append(b, "\t<BinaryEventData>"...)
		b = appendUpperHexBytes(b, ev.UserData)
		b = append(b, "</BinaryEventData>\n"...)
	}
	if s != nil {
		b = e.appendRenderingInfo(b, s, res)
	}
	if isClassic(ev) && ev.Header != etl.HeaderMessage {
		b = append(b, "\t<ExtendedTracingInfo xmlns=\""+traceNS+"\">\n\t\t<EventGuid>"...)
		b = eventjson.AppendGUID(b, ev.ProviderID)
		b = append(b, "</EventGuid>\n"...)
		if ev.Header == etl.HeaderInstance32 || ev.Header == etl.HeaderInstance64 {
			b = append(b, "\t\t<InstanceID>"...)
			b = decimal.AppendUint(b, uint64(ev.InstanceID))
			b = append(b, "</InstanceID>\n\t\t<ParentInstanceID>"...)
			b = decimal.AppendUint(b, uint64(ev.ParentInstanceID))
			b = append(b, "</ParentInstanceID>\n"...)
		}
		b = append(b, "\t</ExtendedTracingInfo>\n"...)
	}
	return append(b, "</Event>\n"...)
}

// appendProvider appends the attributes of System/Provider.
func (e *XMLEncoder) appendProvider(b []byte, ev *etl.Event, s *tdh.Event) []byte {
	switch {
	case s != nil && s.Source == tdh.SourceMOF:
		// MOF: the provider class's GUID, no name (the name is in
		// RenderingInfo/Provider); the class GUID is the EventGuid.
		if g, ok := e.o.mofProviderGUID(s.ProviderName); ok {
			b = append(b, " Guid=\""...)
			b = eventjson.AppendGUID(b, g)
			b = append(b, '"')
		}
	case s != nil:
		if s.ProviderName != "" {
			b = append(b, " Name=\""...)
			b = appendXMLAttr(b, s.ProviderName)
			b = append(b, '"')
		}
		b = append(b, " Guid=\""...)
		b = eventjson.AppendGUID(b, ev.ProviderID)
		b = append(b, '"')
	case ev.Header.Kernel():
		b = append(b, " Guid=\""...)
		b = eventjson.AppendGUID(b, etl.SystemTraceControlGUID)
		b = append(b, '"')
	case ev.Flags&etl.FlagClassicHeader == 0 || ev.Header == etl.HeaderMessage:
		// EVENT_HEADER and WPP events name their provider (or message
		// GUID) even when no schema is known.
		b = append(b, " Guid=\""...)
		b = eventjson.AppendGUID(b, ev.ProviderID)
		b = append(b, '"')
	}
	return b
}

// appendEventData appends <EventData> with one <Data Name=…> per printable
// top-level property, in template order. The properties together are
// bounded by tdh.MaxTextBytes (escaping aside): the value the bound cuts
// ends with tdh.TruncatedMarker (or is only that) and the properties after
// it are left out.
func (e *XMLEncoder) appendEventData(b []byte, d *tdh.Decoded) []byte {
	b = append(b, "\t<EventData>\n"...)
	props := d.Schema.Properties[:len(d.Top())] // without absent optional ones
	limit := len(b) + tdh.MaxTextBytes
	t := e.text(d.Schema)
	pl := e.plans.Plan(d.Schema)
	for i := range props {
		p := &props[i]
		if !tdh.Printable(p) || i >= len(d.Values) {
			continue
		}
		if t != nil {
			b = append(b, t.dataOpen(i)...)
		} else {
			b = appendDataOpen(b, p.Name)
		}
		if len(b) >= limit {
			// The bound is reached: this property only says so.
			b = append(b, tdh.TruncatedMarker...)
			b = append(b, "</Data>\n"...)
			break
		}
		start := len(b)
		var cut, digits bool
		if b, cut, digits = pl.AppendText(b, d, i, &e.render, limit); !digits {
			b, e.scratch = escapeXMLFrom(b, start, e.scratch)
		}
		b = append(b, "</Data>\n"...)
		if cut {
			break
		}
	}
	return append(b, "\t</EventData>\n"...)
}

// appendRenderingInfo appends <RenderingInfo>: for MOF events Opcode,
// Provider and the trace-namespace EventName (the class); for TraceLogging
// events the event name as Task; for manifest events Level, Opcode,
// Keywords, Task, Message, Channel and Provider, each when known. All but
// the Message is the schema's own: it comes from the schema's text
// (xmlSchemaText) once the schema has been met twice.
func (e *XMLEncoder) appendRenderingInfo(b []byte, s *tdh.Event, res *decode.Result) []byte {
	b = append(b, e.culture...)
	t := e.text(s)
	if t != nil {
		b = append(b, t.head...)
	} else {
		b = appendInfoHead(b, s)
	}
	if s.Source != tdh.SourceMOF && s.Source != tdh.SourceTraceLogging &&
		s.Message != "" && res.Decoded != nil && decodedOK(res, e.o.LessRestrictive) {
		b = e.appendMessageElem(b, s.Message, res.Decoded)
	}
	if t != nil {
		return append(b, t.tail...)
	}
	return appendInfoTail(b, s)
}

// appendMessageElem appends <Message> with the expansion of msg with the
// values of d, escaped, unless it is empty: through the schema's plan
// (which renders its integer and UTF-16 string inserts without asking
// what they are, and keeps the message's literal text escaped), but for
// MOF schemas, where the plan would not apply the encoder's RenderOptions
// (never asked: MOF events have no message here).
func (e *XMLEncoder) appendMessageElem(b []byte, msg string, d *tdh.Decoded) []byte {
	const open = "\t\t<Message>"
	b = append(b, open...)
	n := len(b)
	switch {
	case d.Schema == nil || d.Schema.Source == tdh.SourceMOF:
		e.msg = tdh.AppendMessage(e.msg[:0], msg, d, &e.render)
		b = appendXMLEscaped(b, e.msg, false)
	case e.noTexts:
		// Expanded, then escaped whole: the tests' reference.
		e.msg = e.plans.Plan(d.Schema).AppendMessage(e.msg[:0], msg, d)
		b = appendXMLEscaped(b, e.msg, false)
	default:
		b, e.msg = e.plans.Plan(d.Schema).AppendMessageEscaped(b, e.msg, msg, d, xmlMessage{})
	}
	if len(b) == n {
		// An empty expansion (its escape is as long as it is, or
		// longer): no element.
		return b[:n-len(open)]
	}
	return append(b, "</Message>\n"...)
}

// xmlMessage escapes messages as XML character data, for
// tdh.JSONPlan.AppendMessageEscaped.
type xmlMessage struct{}

// PlainLen returns the length of the leading run of b that
// appendXMLEscaped copies as it is (printable ASCII only).
func (xmlMessage) PlainLen(b []byte) int { return xmlPlainLen(b, false) }

// AppendEscaped appends b escaped as XML character data.
func (xmlMessage) AppendEscaped(dst, b []byte) []byte { return appendXMLEscaped(dst, b, false) }

// appendInfoElem appends <name>v</name> on its line, if v is not empty.
func appendInfoElem(b []byte, name, v string) []byte {
	if v == "" {
		return b
	}
	b = append(b, "\t\t<"...)
	b = append(b, name...)
	b = append(b, '>')
	b = appendXMLText(b, v)
	b = append(b, "</"...)
	b = append(b, name...)
	return append(b, ">\n"...)
}

// appendInfoHead appends the elements of <RenderingInfo> that come before
// the Message (see appendRenderingInfo).
func appendInfoHead(b []byte, s *tdh.Event) []byte {
	switch s.Source {
	case tdh.SourceMOF:
		b = appendInfoElem(b, "Opcode", s.OpcodeName)
		b = appendInfoElem(b, "Provider", s.ProviderName)
		if s.EventName != "" {
			b = append(b, "\t\t<EventName xmlns=\""+traceNS+"\">"...)
			b = appendXMLText(b, s.EventName)
			b = append(b, "</EventName>\n"...)
		}
	case tdh.SourceTraceLogging:
		b = appendInfoElem(b, "Task", s.EventName)
	default:
		b = appendInfoElem(b, "Level", s.LevelName)
		b = appendInfoElem(b, "Opcode", s.OpcodeName)
		if len(s.KeywordNames) > 0 {
			b = append(b, "\t\t<Keywords>\n"...)
			for _, k := range s.KeywordNames {
				b = append(b, "\t\t\t<Keyword>"...)
				b = appendXMLText(b, k)
				b = append(b, "</Keyword>\n"...)
			}
			b = append(b, "\t\t</Keywords>\n"...)
		}
		b = appendInfoElem(b, "Task", s.TaskName)
	}
	return b
}

// appendInfoTail appends the elements of <RenderingInfo> that come after
// the Message, and its end tag.
func appendInfoTail(b []byte, s *tdh.Event) []byte {
	if s.Source != tdh.SourceMOF && s.Source != tdh.SourceTraceLogging {
		b = appendInfoElem(b, "Channel", s.ChannelName)
		b = appendInfoElem(b, "Provider", s.ProviderName)
	}
	return append(b, "\t</RenderingInfo>\n"...)
}

// appendDebugData appends the <DebugData> tracerpt writes for a WPP
// message whose format (TMF) is unknown.
func (e *XMLEncoder) appendDebugData(b []byte, ev *etl.Event) []byte {
	b = append(b, "\t<DebugData>\n\t\t<SequenceNumber>"...)
	b = decimal.AppendUint(b, uint64(ev.SequenceNumber))
	b = append(b, "</SequenceNumber>\n\t\t<FlagsName></FlagsName>\n\t\t<LevelName></LevelName>\n\t\t<Component></Component>\n\t\t<SubComponent></SubComponent>\n\t\t<FileLine>"...)
	b = appendUintRight(b, uint64(ev.Descriptor.ID), 3)
	b = append(b, "</FileLine>\n\t\t<Function></Function>\n\t\t<Message>Unknown("...)
	b = appendUintRight(b, uint64(ev.Descriptor.ID), 3)
	b = append(b, "): GUID="...)
	g := eventjson.AppendGUID(e.scratch[:0], ev.ProviderID)
	b = append(b, g[1:len(g)-1]...)
	e.scratch = g
	b = append(b, " (No Format Information found).</Message>\n\t</DebugData>\n"...)
	return b
}
