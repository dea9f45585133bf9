package catalog

import (
	"sync"

	"github.com/etwkit/etw/tdh"
)

// pktmon builds the shared PktMon schemas on first use.
var pktmon = sync.OnceValue(pktmonSchemas)

// PktMon returns the layouts of the Microsoft-Windows-PktMon events that
// carry packets, drops and the components' rundown, for traces that do
// not carry PktMon's schemas (pktmon's own captures do). [Register] does
// not add them: package pcapng falls back on them for events no schema
// decoded. The slice is new; the schemas are shared and must not be
// modified.
func PktMon() []*tdh.Event {
	return append([]*tdh.Event(nil), pktmon()...)
}

// pktmonSchemas are the layouts of the PktMon events package pcapng
// reads, for traces that do not carry PktMon's schemas (pktmon's own
// captures do: it relogs them with TDH metadata). They follow the
// provider's manifest field lists (Windows 11 22H2 as TDH reports them):
// every field before the payload has a fixed size, so the payload's
// place does not depend on any guess.
func pktmonSchemas() []*tdh.Event {
	p := tdh.ScalarProperty
	u16 := func(name string) tdh.Property { return p(name, tdh.InTypeUInt16) }
	u32 := func(name string) tdh.Property { return p(name, tdh.InTypeUInt32) }
	bin := func(name string, length uint16, lengthIndex int) tdh.Property {
		q := p(name, tdh.InTypeBinary)
		q.Length, q.LengthIndex = length, lengthIndex
		return q
	}
	packet := []tdh.Property{p("PktGroupId", tdh.InTypeUInt64), u16("PktNumber"), u16("AppearanceCount"), u16("DirTag"),
		u16("PacketType"), u16("ComponentId"), u16("EdgeId"), u16("FilterId"), u32("DropReason"), p("DropLocation", tdh.InTypeHexInt32),
		u16("OriginalPayloadSize"), u16("LoggedPayloadSize"), bin("Payload", 0, 11)}
	// The short forms: IPv4 addresses (UInt32 with an IPv4 out-type in
	// the manifest) or IPv6 ones (16 bytes), read here as bytes.
	short := func(ipLen uint16) []tdh.Property {
		return []tdh.Property{u16("DirTag"), u16("PacketType"), u16("ComponentId"), u16("EdgeId"), u16("FilterId"),
			u32("DropReason"), p("DropLocation", tdh.InTypeHexInt32), bin("DestinationIP", ipLen, -1), bin("SourceIP", ipLen, -1),
			p("Protocol", tdh.InTypeUInt8), u16("DestinationPort"), u16("SourcePort"), u16("OriginalPayloadSize"),
			u16("LoggedPayloadSize"), bin("Payload", 0, 13)}
	}
	events := map[uint16][]tdh.Property{
		PktMonComponent:     {u16("Id"), u16("Type"), p("Name", tdh.InTypeUnicodeString), p("Description", tdh.InTypeUnicodeString)},
		PktMonPropUint32:    {u16("ComponentId"), u16("Type"), u32("Value")},
		PktMonPropIPv4:      {u16("ComponentId"), u16("Type"), bin("IpAddress", 4, -1)},
		PktMonPropIPv6:      {u16("ComponentId"), u16("Type"), bin("IpAddress", 16, -1)},
		PktMonPropMAC:       {u16("ComponentId"), u16("Type"), u32("Size"), bin("Value", 0, 2)},
		PktMonFlow:          packet,
		PktMonDrop:          packet,
		PktMonDuplicateDrop: packet,
		PktMonFlowV4:        short(4),
		PktMonDropV4:        short(4),
		PktMonFlowV6:        short(16),
		PktMonDropV6:        short(16),
	}
	var out []*tdh.Event
	for id, props := range events {
		out = append(out, &tdh.Event{Source: tdh.SourceManifest, ProviderName: "Microsoft-Windows-PktMon", ProviderGUID: PktMonGUID,
			ID: id, EventName: pktmonNames()[id], Properties: props})
	}
	return out
}
