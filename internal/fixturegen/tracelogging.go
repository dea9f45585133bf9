package main

import (
	"net/netip"
	"time"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/session"
	tl "github.com/etwkit/etw/tracelogging"
)

// TraceLoggingProviderName is the provider of tracelogging-types.etl;
// its GUID is the EventSource hash of the name.
const TraceLoggingProviderName = "EtwKit-Fixtures-TraceLogging"

// TraceLogging32ProviderName is the 32-bit provider of
// tracelogging-32.etl.
const TraceLogging32ProviderName = "EtwKit-Fixtures-TraceLogging32"

// tlEvent is a TraceLogging event to write.
type tlEvent struct {
	d        etl.EventDescriptor
	ev       tl.Event
	activity bool // write with an activity id and related activity id
}

var fixedTime = time.Date(2024, 1, 1, 12, 34, 56, 789_000_000, time.UTC)

// traceLoggingEvents covers every TraceLogging in-type, the out-types
// that apply to each, scalar, constant-count and variable-count arrays,
// nested structs, arrays of structs, binary, counted binary and a custom
// field.
func traceLoggingEvents() []tlEvent {
	str := func(name, v string, o ...tl.Option) tl.FieldValue { return tl.UnicodeString(name, v, o...) }
	point := func(name string, v [2]int32, o ...tl.Option) tl.FieldValue {
		return tl.Struct(name, []tl.FieldValue{tl.Int32("X", v[0]), tl.Int32("Y", v[1])}, o...)
	}
	return []tlEvent{
		{d: etl.EventDescriptor{Level: 4, Keyword: 0x1}, ev: tl.Event{Name: "Strings", Fields: []tl.FieldValue{
			tl.UnicodeString("Unicode", "héllo wörld ✓"),
			tl.UnicodeString("Empty", ""),
			tl.AnsiString("Ansi", "plain ansi"),
			tl.AnsiString("Utf8", "ütf-8 ✓", tl.WithOut(tl.OutUTF8)),
			tl.AnsiString("AnsiXml", "<a b=\"1\"/>", tl.WithOut(tl.OutXML)),
			tl.UnicodeString("UnicodeJson", `{"k":[1,2]}`, tl.WithOut(tl.OutJSON)),
			tl.AnsiString("AnsiJson", `{"ok":true}`, tl.WithOut(tl.OutJSON)),
			tl.UnicodeString("UnicodeXml", "<x/>", tl.WithOut(tl.OutXML)),
			tl.CountedUnicodeString("CountedUnicode", "counted ✓"),
			tl.CountedAnsiString("CountedAnsi", "counted ansi"),
			tl.CountedAnsiString("CountedUtf8", "cöunted", tl.WithOut(tl.OutUTF8)),
			tl.Char16Array("Char16", "char16 array"),
			tl.Char8Array("Char8", "char8 array"),
		}}},
		{d: etl.EventDescriptor{Level: 4, Keyword: 0x2, Opcode: 1}, ev: tl.Event{Name: "Integers", Tags: 0x1234, Fields: []tl.FieldValue{
			tl.Int8("I8", -8),
			tl.Uint8("U8", 200),
			tl.Uint8("U8Hex", 0xAB, tl.WithOut(tl.OutHex)),
			tl.Uint8("U8Char", 'Z', tl.WithOut(tl.OutString)),
			tl.Uint8("U8Signed", 0xFF, tl.WithOut(tl.OutSigned)),
			tl.Int8("I8Unsigned", -1, tl.WithOut(tl.OutUnsigned)),
			tl.Int16("I16", -1600),
			tl.Uint16("U16", 61000),
			tl.Uint16("U16Hex", 0xBEEF, tl.WithOut(tl.OutHex)),
			tl.Uint16("U16Char", 0x263A, tl.WithOut(tl.OutString)),
			tl.Port("Port", 443),
			tl.Int32("I32", -320000, tl.WithTags(0x5)),
			tl.Uint32("U32", 3200000000),
			tl.Uint32("U32Hex", 0xDEADBEEF, tl.WithOut(tl.OutHex)),
			tl.Uint32("Pid", 0x1F40, tl.WithOut(tl.OutPID)),
			tl.Uint32("Tid", 0x1F44, tl.WithOut(tl.OutTID)),
			tl.IPAddr("IPv4", netip.MustParseAddr("192.0.2.1")),
			tl.Uint32("Win32Error", 5, tl.WithOut(tl.OutWin32Error)),
			tl.Uint32("NTStatus", 0xC0000022, tl.WithOut(tl.OutNTStatus)),
			tl.Int32("HResult", -2147024891, tl.WithOut(tl.OutHResult)),
			tl.Uint32("U32Signed", 0xFFFFFFFE, tl.WithOut(tl.OutSigned)),
			tl.Int64("I64", -6400000000),
			tl.Uint64("U64", 18000000000000000000),
			tl.Uint64("U64Hex", 0xFEEDFACECAFEBEEF, tl.WithOut(tl.OutHex)),
			tl.Uint64("U64FileTime", sampleFileTime, tl.WithOut(tl.OutFileTime)),
			tl.Int64("I64Unsigned", -2, tl.WithOut(tl.OutUnsigned)),
			tl.HexInt32("HexInt32", 0x0BADF00D),
			tl.HexInt32("HexInt32Unsigned", 0xFFFFFFFF, tl.WithOut(tl.OutUnsigned)),
			tl.HexInt64("HexInt64", 0x00007FF612345678),
			tl.HexInt64("CodePointer", 0x00007FF612345678, tl.WithOut(tl.OutCodePointer)),
			tl.IntPtr("IntPtr", -64, 8),
			tl.UintPtr("UintPtr", 0xFFFF800012345678, 8),
			tl.HexIntPtr("HexIntPtr", 0x00007FF600001000, 8),
		}}},
		{d: etl.EventDescriptor{Level: 5, Keyword: 0x2}, ev: tl.Event{Name: "FloatsAndBools", Fields: []tl.FieldValue{
			tl.Float32("F32", 3.25),
			tl.Float32("F32Neg", -0.125),
			tl.Float64("F64", 2.718281828459045),
			tl.Float64("F64Big", 1e300),
			tl.Bool32("True", true),
			tl.Bool32("False", false),
			tl.Bool8("Bool8", true),
			tl.Uint32("U32Bool", 1, tl.WithOut(tl.OutBoolean)),
		}}},
		{d: etl.EventDescriptor{Level: 3, Keyword: 0x4}, ev: tl.Event{Name: "Other", Fields: []tl.FieldValue{
			tl.GUID("Guid", sampleGUID),
			tl.FileTime("FileTime", fixedTime),
			tl.FileTime("FileTimeUtc", fixedTime, tl.WithOut(tl.OutDateTimeUTC)),
			tl.FileTime("FileTimeCI", fixedTime, tl.WithOut(tl.OutDateTimeCultureInsensitive)),
			tl.SystemTime("SystemTime", fixedTime),
			tl.SystemTime("SystemTimeUtc", fixedTime, tl.WithOut(tl.OutDateTimeUTC)),
			tl.SID("Sid", sidLocalSystem),
			tl.SID("UserSid", sidUser),
			tl.Binary("Binary", []byte{0xDE, 0xAD, 0xBE, 0xEF, 0x00, 0x01}),
			tl.Binary("EmptyBinary", nil),
			tl.IPAddr("IPv6", netip.MustParseAddr("2001:db8::1")),
			tl.Binary("SocketAddress", sockaddrIn, tl.WithOut(tl.OutSocketAddress)),
			tl.Binary("NoPrint", []byte{1, 2, 3}, tl.WithOut(tl.OutNoPrint)),
			tl.CountedBinary("CountedBinary", []byte{0xCA, 0xFE}),
			tl.CountedBinary("CountedHex", []byte{0x0F, 0xF0}, tl.WithOut(tl.OutHex)),
		}}},
		{d: etl.EventDescriptor{Level: 4, Keyword: 0x8}, ev: tl.Event{Name: "Arrays", Fields: []tl.FieldValue{
			tl.Array("U32s", []uint32{1, 2, 3, 4}, tl.Uint32),
			tl.Array("NoU32s", []uint32{}, tl.Uint32),
			tl.FixedArray("Fixed16", []uint16{0x10, 0x20, 0x30}, tl.Uint16, tl.WithOut(tl.OutHex)),
			tl.Array("I8s", []int8{-1, 0, 1}, tl.Int8),
			tl.Array("I64s", []int64{-1, 1 << 40}, tl.Int64),
			tl.Array("F64s", []float64{0.5, -1.5}, tl.Float64),
			tl.Array("Bools", []bool{true, false, true}, tl.Bool32),
			tl.Array("Names", []string{"alpha", "beta", ""}, str),
			tl.Array("AnsiNames", []string{"one", "two"}, func(n, v string, o ...tl.Option) tl.FieldValue { return tl.AnsiString(n, v, o...) }),
			tl.Array("CountedNames", []string{"x", "yz"}, func(n, v string, o ...tl.Option) tl.FieldValue { return tl.CountedUnicodeString(n, v, o...) }),
			tl.FixedArray("Guids", []uint8{1, 2}, func(n string, v uint8, o ...tl.Option) tl.FieldValue {
				g := sampleGUID
				g[15] = v
				return tl.GUID(n, g, o...)
			}),
			tl.Array("Blobs", [][]byte{{1}, {2, 3}, {}}, tl.CountedBinary),
			tl.Array("HexInt64s", []uint64{0x1, 0xFFFFFFFFFFFFFFFF}, tl.HexInt64),
			tl.FixedArray("FileTimes", []time.Time{fixedTime, fixedTime.Add(time.Hour)}, tl.FileTime),
			tl.Array("Sids", [][]byte{sidLocalSystem, sidUser}, tl.SID),
		}}},
		{d: etl.EventDescriptor{Level: 4, Keyword: 0x8, Opcode: 2}, ev: tl.Event{Name: "Structs", Fields: []tl.FieldValue{
			tl.UnicodeString("Before", "before"),
			point("Origin", [2]int32{0, 0}),
			tl.Struct("Outer", []tl.FieldValue{
				tl.UnicodeString("Name", "outer"),
				tl.Struct("Inner", []tl.FieldValue{
					tl.Uint16("Depth", 2),
					tl.Struct("Innermost", []tl.FieldValue{tl.Bool32("Deep", true), tl.Array("Ids", []uint32{7, 8}, tl.Uint32)}),
				}),
				point("Corner", [2]int32{-3, 4}),
			}, tl.WithTags(0x42)),
			tl.Array("Points", [][2]int32{{1, 2}, {3, 4}, {5, 6}}, point),
			tl.FixedArray("Pair", [][2]int32{{-1, -2}, {-3, -4}}, point),
			tl.Array("NoPoints", [][2]int32{}, point),
			tl.UnicodeString("After", "after"),
		}}},
		{d: etl.EventDescriptor{Level: 4, Keyword: 0x10}, ev: tl.Event{Name: "Custom", Fields: []tl.FieldValue{
			tl.Custom("Bond", 1, []byte{0x01, 0x02, 0x03}, []byte{0xAA, 0xBB, 0xCC, 0xDD}),
			tl.Uint32("Trailer", 99),
		}}},
		{d: etl.EventDescriptor{Level: 2, Keyword: 0x1, Opcode: 1}, activity: true, ev: tl.Event{Name: "ActivityStart", Fields: []tl.FieldValue{
			tl.UnicodeString("Step", "start"),
		}}},
		{d: etl.EventDescriptor{Level: 2, Keyword: 0x1, Opcode: 2}, activity: true, ev: tl.Event{Name: "ActivityStop", Fields: []tl.FieldValue{
			tl.UnicodeString("Step", "stop"),
			tl.Uint32("Result", 0),
		}}},
		{d: etl.EventDescriptor{Level: 5}, ev: tl.Event{Name: "NoFields"}},
	}
}

// writeTraceLogging writes the events through p.
func writeTraceLogging(m *machine, p *session.Provider, traits []byte, events []tlEvent) (int, error) {
	n := 0
	for _, e := range events {
		meta, data, err := e.ev.Encode()
		if err != nil {
			return n, err
		}
		ctx := appContext
		if n%2 == 1 {
			ctx = otherContext
		}
		if e.activity {
			a, r := activityA, activityB
			err = p.WriteEx(ctx, withTLChannel(e.d), &session.WriteOptions{ActivityID: &a, RelatedActivityID: &r, Traits: traits, Metadata: meta}, data)
		} else {
			err = p.WriteTraceLogging(ctx, e.d, nil, meta, data)
		}
		if err := wrote(err, e.ev.Name); err != nil {
			return n, err
		}
		n++
		m.sys.Advance(tick)
	}
	return n, nil
}

// withTLChannel gives WriteEx's descriptor the TraceLogging channel, as
// WriteTraceLogging does.
func withTLChannel(d etl.EventDescriptor) etl.EventDescriptor {
	if d.Channel == 0 {
		d.Channel = tl.ChannelTraceLogging
	}
	return d
}

func genTraceLoggingTypes(fx *fixtures) error {
	m := newMachine(2, 0, 1)
	s, err := m.start("tracelogging-types", session.SessionOptions{BufferSize: 8 << 10})
	if err != nil {
		return err
	}
	id := tl.ProviderGUID(TraceLoggingProviderName)
	must(s.Enable(id, 0, 0, 0))
	traits := tl.EncodeProviderTraits(TraceLoggingProviderName, nil)
	p, err := m.sys.RegisterProvider(id, session.TraceLogging, &session.ProviderOptions{Traits: traits})
	if err != nil {
		return err
	}
	n, err := writeTraceLogging(m, p, traits, traceLoggingEvents())
	if err != nil {
		return err
	}
	if err := s.Stop(); err != nil {
		return err
	}
	m.collect(fx)
	fx.events["tracelogging-types.etl"] = n
	return nil
}

// genTraceLogging32 writes TraceLogging events of a 32-bit provider to a
// 32-bit session: EVENT_HEADER32 records, pointer-sized fields of 4
// bytes.
func genTraceLogging32(fx *fixtures) error {
	m := newMachine(1)
	s, err := m.start("tracelogging-32", session.SessionOptions{BufferSize: 8 << 10, Is32Bit: true})
	if err != nil {
		return err
	}
	id := tl.ProviderGUID(TraceLogging32ProviderName)
	must(s.Enable(id, 0, 0, 0))
	traits := tl.EncodeProviderTraits(TraceLogging32ProviderName, nil)
	p, err := m.sys.RegisterProvider(id, session.TraceLogging, &session.ProviderOptions{Is32Bit: true, Traits: traits})
	if err != nil {
		return err
	}
	events := []tlEvent{
		{d: etl.EventDescriptor{Level: 4}, ev: tl.Event{Name: "Pointers", Fields: []tl.FieldValue{
			tl.IntPtr("IntPtr", -32, 4),
			tl.UintPtr("UintPtr", 0x7FFE0000, 4),
			tl.HexIntPtr("HexIntPtr", 0x00401000, 4),
			tl.HexIntPtr("CodePointer", 0x00401234, 4, tl.WithOut(tl.OutCodePointer)),
			tl.FixedArray("Stack", []uint64{0x00401000, 0x00402000, 0x77001234}, func(n string, v uint64, o ...tl.Option) tl.FieldValue {
				return tl.HexIntPtr(n, v, 4, o...)
			}),
		}}},
		{d: etl.EventDescriptor{Level: 4, Opcode: 1}, ev: tl.Event{Name: "Mixed", Fields: []tl.FieldValue{
			tl.UnicodeString("Name", "wow64 process"),
			tl.Uint32("Pid", 0x1F40, tl.WithOut(tl.OutPID)),
			tl.Struct("Region", []tl.FieldValue{tl.HexIntPtr("Base", 0x10000000, 4), tl.UintPtr("Size", 0x2000, 4)}),
			tl.Array("Handles", []uint64{4, 8, 12}, func(n string, v uint64, o ...tl.Option) tl.FieldValue { return tl.UintPtr(n, v, 4, o...) }),
		}}},
		{d: etl.EventDescriptor{Level: 2, Opcode: 2}, activity: true, ev: tl.Event{Name: "Done", Fields: []tl.FieldValue{
			tl.Bool32("Ok", true),
			tl.Int64("Elapsed", 123456789),
		}}},
	}
	n, err := writeTraceLogging(m, p, traits, events)
	if err != nil {
		return err
	}
	if err := s.Stop(); err != nil {
		return err
	}
	m.collect(fx)
	fx.events["tracelogging-32.etl"] = n
	return nil
}
