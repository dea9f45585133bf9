// Package manifest parses Windows ETW instrumentation manifests (the XML
// that mc.exe compiles into a provider's WEVT_TEMPLATE resource) into a
// numeric, fully resolved Go model that a payload decoder can use without
// knowing anything about XML.
//
// [Parse] and [ParseFile] read one manifest file and return a [Manifest]:
// its providers, and for each [Provider] its events, templates, maps,
// levels, tasks (with task-local opcodes), opcodes, keywords and channels.
// Everything an [Event] refers to by name is resolved to numbers: level,
// task, opcode (task-local, provider-global or a predefined win: opcode),
// keyword mask and channel, and its template. Template fields carry TDH
// in-types and out-types (package tdh's [tdh.InType] and [tdh.OutType],
// the TDH_INTYPE_* / TDH_OUTTYPE_* values of tdh.h), resolved value/bit
// maps, and for variable lengths and counts both the referenced field's
// name and its TDH property index.
//
// [Manifest.Schemas] and [Provider.Schemas] compile the events into the
// schemas package tdh decodes payloads with ([tdh.Event]); events that a
// tdh schema cannot express are reported as [*SchemaError]s.
//
// Localized strings written as $(string.Id) (or $(mc.Id)) are resolved
// through one culture's string table: "en-US" when present, otherwise the
// first resources block, unless [ParseOptions.Culture] asks for another.
// A reference that cannot be resolved keeps its raw text and adds a line to
// [Manifest.Warnings]; so do other non-fatal oddities such as an event that
// names an undefined task. Malformed XML, an unknown in-type or out-type
// name, a length or count that names no earlier field and out-of-range
// numbers are errors of type [*Error], which names the file and line.
//
// The predefined values of winmeta.xml (win:Informational, win:Start,
// win:ResponseTime, the System/Application/Security channels, …) are built
// in; see [PredefinedLevels] and its siblings.
//
// Beyond the documented schema the parser accepts what real manifests
// contain: child lists in any order, any namespace prefixes (or none),
// stray text, UTF-8 byte order marks, UTF-16 files (with or without a byte
// order mark), encoding="utf-16" declarations on UTF-8 bytes, Windows
// "assembly" manifests that wrap <instrumentation>, and the non-standard
// in-type spellings written by TDH-based manifest dumpers (win:SInt32,
// win:WString, win:IPAddrV4, win:33, …; see [InTypeByName]) and their
// synthetic task names (task_0, None) and level win:Always.
//
// [Parse] also reads the XML export of Windows Events Providers Explorer
// (WEPExplorer; root element <Providers>), a dump of what the Event Log
// API reports about registered providers, into the same model: provider,
// channels, levels, tasks (task-local opcodes included), opcodes and
// keywords from <Metadata>, and events whose display-string references
// (a level's message, a channel's path, space-joined keyword messages)
// are resolved back to values, with their CDATA message and embedded
// <template> document. See [Format].
//
// Channel values that a manifest leaves out are assigned as mc.exe does
// (the lowest free value from 16 up, in document order), and an event's
// channel attribute matches the first channel whose name or chid equals it;
// both were checked against mc.exe output. [Event.Keywords] is the OR of
// the named keyword masks: the channel bits mc.exe adds in keyword bits
// 56–63 of a compiled event are not included.
//
// The parser reads the whole input into memory (at most [MaxInputBytes];
// the other Max constants bound what a hostile file can make it build)
// and keeps no reference to it. A returned [Manifest] is not modified
// afterwards, so it may be read from several goroutines at once.
//
// # Exporting schemas
//
// Compiling the output of [WriteXML] with [Manifest.Schemas] gives
// schemas equal to the input in everything decoding and rendering use
// (identity, level, task,
// opcode, keyword and channel values and display names, message,
// properties with their types, lengths, counts and maps), except where a
// returned issue says otherwise. Names are chosen so that this holds:
// display names go in as names when they are plain identifiers, otherwise
// as messages of a made-up name; predefined win: values are referred to
// when value and display name match; each keyword's mask is recovered
// from the masks and names of the events that use it. Event symbols are
// the EventNames as they are, which mc.exe may refuse (duplicates, names
// that are not C identifiers); level, channel and opcode values are not
// checked against the ranges mc.exe reserves.
//
// What a manifest cannot carry never vanishes silently: each case is an
// [*ExportIssue] naming the event and the property, of one of three
// kinds.
//
// Skipped (the event is left out):
//
//   - a second, different schema with the same provider GUID, id and
//     version (the first in input order is written);
//   - a length or count that refers to no earlier property, or to one
//     that is not a single integer: no payload decodes with it, and
//     [Provider.Schemas] would reject the event.
//
// Approximated (written as closely as a manifest allows; the issue says
// what reads back differently):
//
//   - a MOF, TraceLogging or WPP schema reads back as a manifest schema;
//     for MOF, tdh then applies maps to UInt8, UInt16, UInt32 and
//     HexInt32 values only (reported per property) and pads nothing;
//   - Alternates are left out; Optional properties are written as
//     required ones;
//   - a ToEnd array, a property whose in-type has no manifest form (Null,
//     the reversed counted and non-terminated MOF strings, HexDump,
//     unknown numbers) and a struct nested deeper than Parse reads are
//     left out with the properties after them at their level (their bytes
//     are left over when decoding);
//   - MOF counted strings are written as win:CountedUnicodeString and
//     win:CountedAnsiString, AnsiChar as win:AnsiString (with a length)
//     or as win:UInt8 shown as xs:string: they decode and render the same;
//   - MOF index maps become valueMaps and flag maps bitMaps (same text);
//     map entries above 32 bits are left out; a map without a name, or
//     with another map's name, is renamed;
//   - TraceLogging event tags are lost; field tags are written as the
//     tags attribute of newer schemas, which Parse ignores;
//   - characters XML 1.0 cannot carry become U+FFFD; names lose their
//     surrounding white space; a level, task, opcode or channel value
//     without a name gets one; a message that reads as a $(string.Id)
//     reference is left out;
//   - a property that a length or count refers to but cannot name (empty,
//     a number, shadowed by a later property of the same name) is
//     renamed;
//   - keyword names that no keyword declarations reproduce, among them
//     mask bits without a name (made-up keywords are declared for them);
//   - a provider name other than the one written for the GUID;
//   - what tdh allows but does not use: a count on a non-array, members
//     of a non-struct, a fixed length or count next to a reference, a
//     struct's out-type or map.
//
// Nonstandard (reads back exactly, but mc.exe would refuse it):
//
//   - out-types without a manifest name, written as their number
//     ("win:301" for NoPrint);
//   - the MOF in-types UnicodeChar, SizeT and WBEMSID, written as the
//     aliases win:WChar, trace:SizeT and trace:WBEMSid that Parse accepts;
//   - structs nested in structs; a length or count taken from a Pointer
//     or a Boolean.
package manifest
