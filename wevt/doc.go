// Package wevt reads the binary event manifests that mc.exe compiles into
// Windows binaries (the WEVT_TEMPLATE resource of an EXE, DLL or SYS) into
// the model package manifest reads instrumentation manifest XML into, so
// that [manifest.Manifest.Schemas] compiles them into the tdh schemas that
// decode event payloads, exactly as it compiles the XML. [ReadPE] and
// [OpenPE] read a PE file (through package pe) with the texts of its
// RT_MESSAGETABLE; [Parse] reads the resource data itself.
//
// # Format
//
// All integers are little-endian; every offset is relative to the start
// of the blob. Names are a u32 size (including itself), NUL-terminated
// UTF-16LE and padding; message ids (0xFFFFFFFF for none) index the
// binary's message table.
//
//   - CRIM header: "CRIM", u32 size, u16 major, u16 minor (3.1 before
//     Windows 10's mc.exe, 5.1 since), u32 provider count, then per
//     provider {GUID, u32 offset of its WEVT}.
//   - WEVT (a provider): "WEVT", u32 size, u32 message id of the provider's
//     display name, u32 element count, then per element {u32 kind, u32
//     offset}. Elements are told apart by their signatures.
//   - CHAN, LEVL, OPCO, TASK, KEYW: "SIG", u32 size (0 when empty), u32
//     count, records, names. Channel: {u32 flags (1 = imported), name, u32
//     value, message}; level {u32 value, message, name}; opcode {u16 task
//     (0 for provider-global), u16 value, message, name}; task {u32 value,
//     message, eventGUID, name}; keyword {u64 mask, message, name}. mc.exe
//     lists the predefined win: entries events use with the declared ones
//     and sorts each list by value.
//   - MAPS: "MAPS", size, count, then that many offsets of VMAP (value map)
//     and BMAP (bit map) elements: signature, u32 size, name, u32 (1 for
//     bit maps), u32 count, then {u32 value, message} sorted by value.
//   - TTBL: "TTBL", size, count, then TEMP elements end to end: "TEMP", u32
//     size, u32 top-level property count, u32 property count, u32 offset of
//     the property descriptors, u32 kind, GUID, a BinXML fragment (not
//     read), the descriptors and their names. A descriptor is 20 bytes:
//     u32 flags (1 struct, 2 fixed length, 4 variable length, 8 fixed
//     count, 0x10 variable count), then u8 in-type and u8 out-type (for a
//     struct: u16 index of its first member and u16 member count), u32
//     map offset, u16 count, u16 length (a property index when variable),
//     u32 name offset. Descriptors are in TDH order: the top-level
//     properties, then struct members level by level.
//   - EVNT: "EVNT", size, count, u32, then 48-byte events: the
//     EVENT_DESCRIPTOR (id, version, channel, level, opcode, task,
//     keywords), message id, and the offsets of the event's template,
//     opcode, level and task records, its keyword count and the offset of
//     that many keyword record offsets, and its channel record.
//   - PRVA (CRIM 5): provider attributes {u32 type, u32 offset}; type
//     0x10000001 is the provider name (NUL-terminated UTF-16LE).
//
// Other elements (EVTA event attributes, QTAB queries, …) are skipped.
//
// # What a binary does not hold
//
//   - Symbols (event, task, … symbol attributes) and template ids: mc.exe
//     uses them for the generated header only. Event.Symbol is empty, so
//     schemas have no EventName; Template.TID is the template's offset
//     ("T0x164").
//   - The provider name, in CRIM 3.1. It is then taken from the provider's
//     channel names, which Windows names "Provider/Type"
//     ("Microsoft-Windows-Calculator/Debug"), and a warning says so; when
//     the channels do not agree (or there are none), Name stays empty. The
//     guess can be wrong for binaries that do not follow the convention.
//   - Texts, when the message table is in a separate .mui file: messages are
//     then empty and display names fall back to the names (the predefined
//     win: ones to winmeta.xml's English texts), as for a manifest without
//     a localization section.
//   - What mc.exe drops or normalizes: an out-type the manifest omits is
//     stored as the in-type's default; count="0", length="0" and lengths of
//     SIDs are dropped; channel types and notLogged are not stored.
//     Keywords: mc.exe adds channel bits 56–63 to each event's mask; like
//     the manifest package's model, Event.Keywords leaves them out.
//
// Message texts are used as the manifest package keeps messages: mc.exe
// writes the manifest's text verbatim into the message table, followed by
// "\r\n", so removing that gives back the FormatMessage syntax (%1, %n,
// %%, …) the XML holds.
//
// # Hostile input
//
// Binaries are untrusted input. Every offset, count and size is checked
// against the blob before it is used; counts must fit the bytes of their
// element; the struct tree of a template is checked (members after their
// struct, one parent each, nesting at most 8 deep); and a budget bounds
// the total work (records read, names decoded, template properties the
// events expand to) by a small multiple of the input size, so that
// structures that overlap or share bytes cannot make parsing, or the
// schemas compiled from the result, cost time or memory quadratic in the
// input. Errors are [*FormatError]s naming the offset (and, from a PE
// file, the file offset). Nothing panics on any input (fuzzed).
package wevt
