package catalog

import (
	"sync"

	"github.com/etwkit/etw/tdh"
)

// NDIS packet capture (ndiscap.sys, "netsh trace start capture=yes"): the
// schemas of Microsoft-Windows-NDIS-PacketCapture, written by hand from
// the provider's public field lists, so that ndiscap traces decode with
// nothing imported and package pcapng reads their frames by property
// name.
//
// Sources: the event layouts (event ids, field names, in-types, lengths
// and counts, keywords, levels, tasks, opcodes, value maps) are those
// TDH reports for the provider on Windows 10 build 18990, as listed by
// repnz/etw-providers-docs (Manifests-Win10-18990, a PerfView-style
// regeneration; no licence is given there, so nothing is copied: the
// table below is written from the field list). The names of the packet
// events and the meaning of the fields used to rebuild frames
// (MiniportIfIndex, LowerIfIndex, FragmentSize and Fragment, the
// keywords PacketStart 0x40000000 and PacketEnd 0x80000000, Send
// 0x100000000, WirelessWAN 0x200, Native802.11 0x10000, the VMSwitch
// OOBData slots and the DOT11_EXTSTA_RECV_CONTEXT metadata) follow
// microsoft/etl2pcapng (MIT), src/main.c. The test compares this table
// with the field list when the schema folder is at hand.
//
// GftFlowEntryId and GftOffloadInformation, at the end of the fragment
// event, are optional: older Windows versions log the fragment without
// them. The VMSwitch event's Destination array has in-type Double, as
// TDH reports it (8 bytes per destination port; nothing public says
// more).

// NDIS-PacketCapture keywords (the manifest's masks).
const (
	NDISKeywordEthernet     = 0x1
	NDISKeywordWirelessWAN  = 0x200
	NDISKeywordTunnel       = 0x8000
	NDISKeywordNative80211  = 0x10000
	NDISKeywordVMSwitch     = 0x1000000
	NDISKeywordTruncated    = 0x2000000
	NDISKeywordPacketStart  = 0x40000000
	NDISKeywordPacketEnd    = 0x80000000
	NDISKeywordSendPath     = 0x100000000
	NDISKeywordReceivePath  = 0x200000000
	ndisKeywordL3Connect    = 0x400000000
	ndisKeywordL2Connect    = 0x800000000
	ndisKeywordClosePath    = 0x1000000000
	ndisKeywordAuth         = 0x2000000000
	ndisKeywordConfig       = 0x4000000000
	ndisKeywordGlobal       = 0x8000000000
	ndisKeyword20000000000  = 0x20000000000
	ndisKeyword40000000000  = 0x40000000000
	ndisKeyword200000000000 = 0x200000000000
)

// NDIS-PacketCapture event ids of the packet events.
const (
	NDISEventPacketFragment         = 1001
	NDISEventPacketMetadata         = 1002
	NDISEventVMSwitchPacketFragment = 1003
)

// ndis builds the shared NDIS schemas on first use.
var ndis = sync.OnceValue(ndisSchemas)

// NDISPacketCapture returns the schemas of Microsoft-Windows-NDIS-
// PacketCapture. The slice is new; the schemas are shared and must not be
// modified.
func NDISPacketCapture() []*tdh.Event {
	return append([]*tdh.Event(nil), ndis()...)
}

func ndisSchemas() []*tdh.Event {
	const provider = "Microsoft-Windows-NDIS-PacketCapture"
	kwNames := []struct {
		mask uint64
		name string
	}{
		{NDISKeywordEthernet, "Ethernet802.3"}, {NDISKeywordWirelessWAN, "WirelessWAN"}, {NDISKeywordTunnel, "Tunnel"},
		{NDISKeywordNative80211, "Native802.11"}, {NDISKeywordVMSwitch, "VMSwitch"}, {NDISKeywordTruncated, "PacketTruncated"},
		{NDISKeywordPacketStart, "PacketStart"}, {NDISKeywordPacketEnd, "PacketEnd"}, {NDISKeywordSendPath, "ut:SendPath"},
		{NDISKeywordReceivePath, "ut:ReceivePath"}, {ndisKeywordL3Connect, "ut:L3ConnectPath"}, {ndisKeywordL2Connect, "ut:L2ConnectPath"},
		{ndisKeywordClosePath, "ut:ClosePath"}, {ndisKeywordAuth, "ut:Authentication"}, {ndisKeywordConfig, "ut:Configuration"},
		{ndisKeywordGlobal, "ut:Global"}, {ndisKeyword20000000000, "keyword_20000000000"}, {ndisKeyword40000000000, "keyword_40000000000"},
		{ndisKeyword200000000000, "keyword_200000000000"},
	}
	levelNames := map[uint8]string{2: "Error", 4: "Information", 5: "Verbose"}
	taskNames := map[uint16]string{1: "DriverLoad", 3: "LayerLoad", 5: "Rules"}
	opcodeNames := map[uint8]string{1: "Start", 2: "Stop", 21: "LoadingState"}

	ruleID := valueMap("RuleIdMap", 0x2, "FrameControl", 0x3, "MultiLayer", 0x4, "InterfaceIndex", 0x6, "EtherType",
		0x7, "Source MAC Address", 0x8, "Destination MAC Address", 0x9, "Any MAC Address",
		0xa, "Source IPv4 Address", 0xb, "Destination IPv4 Address", 0xc, "Any IPv4 Address",
		0xd, "Source IPv6 Address", 0xe, "Destination IPv6 Address", 0xf, "Any IPv6 Address",
		0x10, "IP Protocol", 0x11, "Packet Truncate Bytes", 0x12, "Custom MAC Offset", 0x13, "Custom IP Offset")
	directive := valueMap("DirectiveMap", 0x0, "OFF", 0x1, "LTE", 0x2, "GTE", 0x3, "EQU", 0x4, "MASK", 0x5, "LIST",
		0x6, "RANGE", 0x83, "NEQ", 0x84, "NMASK", 0x85, "NLIST", 0x86, "NRANGE")
	opcodeMap := valueMap("ut:OpcodeMap", 0x1, "Start State", 0x2, "End State", 0x15, "Loading State", 0x16, "Unloading State")
	captureSource := valueMap("mapCaptureSource", 0x0, "Undefined", 0x1, "NDIS", 0x2, "VM-Switch", 0x3, "Test")

	u8 := func(name string, m *tdh.Map) tdh.Property {
		p := tdh.ScalarProperty(name, tdh.InTypeUInt8)
		p.Map = m
		return p
	}
	u16 := func(name string) tdh.Property { return tdh.ScalarProperty(name, tdh.InTypeUInt16) }
	u32 := func(name string) tdh.Property { return tdh.ScalarProperty(name, tdh.InTypeUInt32) }
	u64 := func(name string) tdh.Property { return tdh.ScalarProperty(name, tdh.InTypeUInt64) }
	str := func(name string) tdh.Property { return tdh.ScalarProperty(name, tdh.InTypeUnicodeString) }
	binary := func(name string, lengthIndex int) tdh.Property {
		p := tdh.ScalarProperty(name, tdh.InTypeBinary)
		p.LengthIndex = lengthIndex
		return p
	}
	array := func(name string, in tdh.InType, countIndex int) tdh.Property {
		p := tdh.ScalarProperty(name, in)
		p.IsArray, p.CountIndex = true, countIndex
		return p
	}
	optional := func(p tdh.Property) tdh.Property { p.Optional = true; return p }

	ifaceArgs := []tdh.Property{u32("MiniportIfIndex"), u32("LowerIfIndex"), u32("MediaType"), u32("ReferenceContext")}
	bindArgs := []tdh.Property{str("FriendlyName"), str("UniqueName"), str("ServiceName"), str("Version")}
	loadArgs := []tdh.Property{u32("ErrorCode"), u32("Location"), u32("Context")}
	stateArgs := func(m *tdh.Map) []tdh.Property {
		return []tdh.Property{u8("PreviousState", m), u8("NextState", nil), u32("Location"), u32("Context")}
	}

	type ev struct {
		id     uint16
		level  uint8
		task   uint16
		opcode uint8
		kw     uint64
		name   string
		props  []tdh.Property
	}
	events := []ev{
		{NDISEventPacketFragment, 4, 0, 0, ndisKeyword20000000000 | ndisKeyword40000000000, "PacketFragment", []tdh.Property{
			u32("MiniportIfIndex"), u32("LowerIfIndex"), u32("FragmentSize"), binary("Fragment", 2),
			optional(u64("GftFlowEntryId")), optional(u64("GftOffloadInformation"))}},
		{NDISEventPacketMetadata, 4, 0, 0, ndisKeyword40000000000, "PacketMetadata", []tdh.Property{
			u32("MiniportIfIndex"), u32("LowerIfIndex"), u32("MetadataSize"), binary("Metadata", 2)}},
		{NDISEventVMSwitchPacketFragment, 4, 0, 0, NDISKeywordVMSwitch | ndisKeyword40000000000, "VMSwitchPacketFragment", []tdh.Property{
			u32("MiniportIfIndex"), u32("LowerIfIndex"), u32("SourcePortId"), str("SourcePortName"), str("SourceNicName"),
			str("SourceNicType"), u32("DestinationCount"), array("Destination", tdh.InTypeDouble, 6), u32("FragmentSize"),
			binary("Fragment", 8), u32("OOBDataSize"), binary("OOBData", 10)}},
		{1011, 4, 5, 0, ndisKeywordConfig | ndisKeywordGlobal, "", []tdh.Property{u32("RulesCount")}},
		{1012, 5, 0, 0, ndisKeywordGlobal, "", bindArgs},
		{1013, 5, 0, 0, ndisKeywordGlobal, "", bindArgs},
		{1014, 5, 0, 0, ndisKeywordGlobal, "", ifaceArgs},
		{1015, 5, 0, 0, ndisKeywordGlobal, "", ifaceArgs},
		{1016, 4, 5, 0, ndisKeywordConfig | ndisKeywordGlobal, "", []tdh.Property{
			u8("RuleId", ruleID), u8("Directive", directive), u16("Length"), binary("Value", 2)}},
		{2001, 2, 1, 21, ndisKeywordGlobal, "", loadArgs},
		{2002, 2, 3, 21, ndisKeywordGlobal, "", loadArgs},
		{2003, 2, 5, 21, ndisKeywordGlobal, "", []tdh.Property{
			u8("RuleId", nil), u8("Directive", nil), u16("Length"), binary("Value", 2)}},
		{3001, 5, 3, 21, ndisKeywordGlobal | ndisKeyword200000000000, "", stateArgs(opcodeMap)},
		{3002, 5, 3, 21, ndisKeywordGlobal | ndisKeyword200000000000, "", stateArgs(nil)},
		{5000, 5, 0, 1, ndisKeyword200000000000, "", nil},
		{5001, 5, 0, 2, ndisKeyword200000000000, "", nil},
		{5002, 5, 0, 1, ndisKeyword200000000000, "", nil},
		{5003, 5, 0, 2, ndisKeyword200000000000, "", nil},
		{5100, 4, 0, 0, 0, "", []tdh.Property{
			u8("SourceId", captureSource), u32("RundownId"), u64("Param1"), u64("Param2"), str("ParamStr"), str("Description")}},
		{5101, 4, 0, 0, 0, "", []tdh.Property{
			u8("SourceId", nil), str("SourceName"), u32("IfIndex"), u16("LayerCount"), array("LayerInfo", tdh.InTypeInt16, 3)}},
	}
	out := make([]*tdh.Event, 0, len(events))
	for _, e := range events {
		s := &tdh.Event{
			Source: tdh.SourceManifest, ProviderName: provider, ProviderGUID: NDISPacketCaptureGUID,
			ID: e.id, Level: e.level, Task: e.task, Opcode: e.opcode, Keywords: e.kw,
			EventName: e.name, TaskName: taskNames[e.task], OpcodeName: opcodeNames[e.opcode], LevelName: levelNames[e.level],
			Properties: append([]tdh.Property(nil), e.props...),
		}
		for _, k := range kwNames {
			if e.kw&k.mask != 0 {
				s.KeywordNames = append(s.KeywordNames, k.name)
			}
		}
		out = append(out, s)
	}
	return out
}

// valueMap builds a value map from value, text pairs.
func valueMap(name string, pairs ...any) *tdh.Map {
	m := &tdh.Map{Name: name, Kind: tdh.ValueMap}
	for i := 0; i+1 < len(pairs); i += 2 {
		m.Entries = append(m.Entries, tdh.MapEntry{Value: uint64(pairs[i].(int)), Message: pairs[i+1].(string)})
	}
	m.Sort()
	return m
}
