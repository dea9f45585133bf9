package catalog

import (
	"github.com/google/uuid"
	"sync"
)

// pktmonNames names Microsoft-Windows-PktMon's events. The provider's
// manifest gives them no symbol, task or opcode (Windows 11 22H2, as
// WEPExplorer and TDH report it), so neither TDH nor the TDH metadata
// pktmon relogs into its captures names them; these names are
// tracerpt-go's, read from each event's message in that manifest
// ("Drop Counters: Component %1, …" is DropCounters; the property
// events, one per value type, share "Property: Component %1, %2 = %3").
// Events of one kind in other shapes (IPv4 and IPv6 forms, packets with
// and without a group id) share a name: --event-id tells them apart.
var pktmonNames = sync.OnceValue(func() map[uint16]string {
	return map[uint16]string{
		10:  "DriverLoadError", // "PktMon driver failed to load. Error: %1."
		20:  "Component",       // "Component %1, Type %2, Name %3, %4"
		30:  "Property",
		40:  "Property",
		50:  "Property",
		60:  "Property",
		65:  "Property",
		66:  "Property",
		70:  "Property",
		73:  "Property",
		75:  "Property",
		80:  "DropCounters", // "Drop Counters: Component %1, Direction In = %2, …"
		90:  "FlowCounters", // "Flow Counters: Component %1, Edge %2, …"
		100: "PacketFilter", // "Packet Filter %1, Name %2, MAC-1 %3, …"
		110: "PacketFilter",
		120: "PacketHeaders", // "MAC Dest %1, MAC Src %2, EtherType %3, …" (keyword NblParsed)
		130: "PacketHeaders",
		140: "PacketHeadersDrop", // "Drop: MAC Dest %1, …"
		150: "PacketHeadersDrop",
		160: "Packet",     // "PktGroupId %1, PktNumber %2, Appearance %3, …" (keyword Payload)
		170: "PacketDrop", // "Drop: PktGroupId %1, …"
		180: "PacketInfo", // "TcpIpChecksum %11, TcpLargeSend %12, …" (keyword NblInfo)
		190: "PacketInfoDrop",
		200: "Packet", // "Direction %1, Type %2, Component %3, …" (IPv4, no group id)
		210: "PacketDrop",
		220: "Packet", // the IPv6 form
		230: "PacketDrop",
		240: "DuplicateDrop", // "Duplicate Drop: PktGroupId %1, …"
		250: "PacketInfo",    // "PktGroupId %1, …, Edge %7, %11 %12" (keyword NblInfo)
		260: "PacketInfoDrop",
	}
})

// EventName returns the name the catalog gives an event of a provider
// whose schemas name none (Microsoft-Windows-PktMon's), or "".
func EventName(provider uuid.UUID, id uint16) string {
	if provider == PktMonGUID {
		return pktmonNames()[id]
	}
	return ""
}
