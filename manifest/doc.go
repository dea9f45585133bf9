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
// The parser reads the whole input into memory and keeps no reference to
// it. A returned [Manifest] is not modified afterwards, so it may be read
// from several goroutines at once.
package manifest
