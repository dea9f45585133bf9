// Package eventinfo compiles the TDH schemas that a trace carries about
// itself into [tdh] schemas.
//
// When a trace is merged or relogged with KernelTraceControl
// (xperf -merge, WPR, PerfView), the recording machine's own TDH
// decoding information for the events in the trace is added to it as
// classic events of the KernelTraceControl "MetaData" class,
// EventMetadataGuid {bbccf6c1-6cd1-48c4-80ff-839482e37671} ([MetadataGUID]):
//
//   - opcode 32 ([OpcodeEventInfo], "MetaData/EventInfo"): the payload is
//     one TRACE_EVENT_INFO exactly as TdhGetEventInformation returns it,
//     with no prefix. Every *Offset member (ProviderNameOffset,
//     TaskNameOffset, EventMessageOffset, EVENT_PROPERTY_INFO.NameOffset,
//     MapNameOffset, …) counts bytes from payload byte 0; each names a
//     NUL-terminated UTF-16LE string, 0 meaning absent.
//   - opcode 33 ([OpcodeEventMapInfo], "MetaData/EventMapInfo"): the
//     payload is EVENT_METADATA_EVENT_MAP_INFO, a 16-byte provider GUID
//     followed by one EVENT_MAP_INFO as TdhGetEventMapInformation returns
//     it; its offsets (NameOffset, EVENT_MAP_ENTRY.OutputOffset) count
//     from payload byte 16, where the EVENT_MAP_INFO starts.
//
// TRACE_EVENT_INFO (tdh.h) is 112 fixed bytes — ProviderGuid, EventGuid,
// EventDescriptor, DecodingSource, the name and message offsets,
// PropertyCount, TopLevelPropertyCount and Flags (TEMPLATE_FLAGS in bits
// 0–3, the event Tags in bits 4–31) — followed by PropertyCount 24-byte
// EVENT_PROPERTY_INFO entries, the top-level properties first. A struct
// entry (PropertyStruct) names its members by StructStartIndex and
// NumOfStructMembers; countPropertyIndex (PropertyParamCount) and
// lengthPropertyIndex (PropertyParamLength) name another entry by its
// absolute index in that array. EVENT_MAP_INFO is a 16-byte header
// (NameOffset, Flag, EntryCount, MapEntryValueType or FormatStringOffset)
// followed by EntryCount 8-byte EVENT_MAP_ENTRY {OutputOffset, Value or
// InputOffset}.
//
// [ParseEventInfo] and [ParseMapInfo] convert one payload each; a [Set]
// collects every MetaData event of a trace, in any order, removes
// duplicates, binds the maps to the properties that name them (by
// provider GUID and map name, as TraceEvent does, since a map may arrive
// after the events that use it) and returns schemas ready for a
// [tdh.Registry]. [MetaSchemas] describes the MetaData events themselves so
// that a dump of the trace shows what each of them is about.
//
// # How schemas are keyed
//
// Manifest-based schemas (DecodingSource 0, DecodingSourceXMLFile) are keyed
// like those of package manifest: provider GUID, event id and version.
// MOF schemas (DecodingSource 1, DecodingSourceWbem) are keyed as classic
// events are in this module (decode.Decoder and package mof): the event
// class GUID (TRACE_EVENT_INFO.EventGuid) as ProviderGUID and the event
// type (EventDescriptor.Opcode) as ID and Opcode. A [Set] leaves out the
// schemas of TraceLogging events (DecodingSource 3), which carry their own
// metadata and all share event id 0, and of WPP messages (DecodingSource
// 2), whose keying in TRACE_EVENT_INFO is not documented; it reports them
// as problems instead.
//
// # What is converted, and how
//
//   - TDH fills EVENT_PROPERTY_INFO.length with the size of fixed-size
//     in-types (2 for UInt16, the recording process's pointer size for
//     Pointer); that length is dropped, so a schema decodes each event by
//     its own pointer size. Length is kept for strings (in characters, as a
//     manifest's length attribute) and binary (in bytes), and for
//     UnicodeChar/AnsiChar when PropertyParamFixedLength says it is a count
//     of characters.
//   - A count of 1 is a scalar unless PropertyParamFixedCount is set (TDH
//     before Windows 10 has no such flag, so a manifest count="1" reads
//     back as a scalar); a count above 1 is a fixed-size array.
//   - countPropertyIndex and lengthPropertyIndex become
//     [tdh.Property.CountIndex] and LengthIndex, indexes among the
//     properties of the same level. A reference to a property of another
//     level, to a later property or to one that is not a single integer
//     cannot be decoded by the tdh engine and is rejected
//     ([tdh.ErrOuterReference], [tdh.ErrBadReference]).
//   - A string declared with PropertyParamFixedLength and length 0 (a
//     truly empty string) becomes an array of zero UnicodeChar/AnsiChar,
//     which decodes no byte and renders as an empty string; a binary
//     property so declared is rejected ([ErrUnsupported]): a tdh.Property
//     has no way to say "fixed length 0".
//   - A map name becomes a placeholder [tdh.Map] holding only the name (no
//     entries, so the engine renders the raw value); a [Set] replaces it
//     with the map the trace carries.
//   - Manifest message-table strings come back from TDH with one trailing
//     space (the Microsoft TDH samples remove it from map entries); it is
//     removed from map entries, messages and display names of
//     manifest-based schemas. The event message is kept in the
//     FormatMessage form TDH returns (%1…%n inserts numbered by top-level
//     property; in real traces %n and %t already come as CR LF and tab),
//     which is the form [tdh.FormatMessage] expects.
//   - PropertyWBEMXmlFragment and custom schemas (PropertyHasCustomSchema)
//     do not change the layout and are ignored; property tags
//     (PropertyHasTags) and event tags are kept.
//
// # Hostile input
//
// Every offset and count is checked against the payload before use:
// nothing is allocated by an unchecked count, each EVENT_PROPERTY_INFO
// entry may belong to one struct only (so structs cannot nest into
// themselves or multiply), nesting is limited to 32 levels, and string
// reads are bounded in total by twice the payload size. Each error is a
// [*FormatError] naming the TDH structure member and its byte offset in
// the payload.
package eventinfo
