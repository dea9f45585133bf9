package netcap

import (
	"net/netip"
	"strconv"

	"github.com/etwkit/etw/catalog"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/tdh"
)

// Microsoft-Windows-PktMon (pktmon.exe, PktMon.sys).
//
// Packet events carry the frame (Payload, LoggedPayloadSize bytes of
// OriginalPayloadSize), the component that saw it, its direction and
// packet type, and for drops the reason and location. The rundown events
// pktmon logs when a capture stops (after the packets) name the
// components and give their properties (MAC and IP addresses, interface
// indexes). Field names and the values of the direction and packet-type
// maps are those of the provider's manifest, as Windows' TDH reports them
// and as the capture files carry them; see docs/limits.md for what is
// inferred.

// isPktMonPacket reports whether id is a PktMon event carrying a frame.
func isPktMonPacket(id uint16) bool {
	switch id {
	case catalog.PktMonFlow, catalog.PktMonDrop, catalog.PktMonDuplicateDrop, catalog.PktMonFlowV4, catalog.PktMonDropV4, catalog.PktMonFlowV6, catalog.PktMonDropV6:
		return true
	}
	return false
}

// IsPktMonDrop reports whether a PktMon packet event id is a drop's.
func IsPktMonDrop(id uint16) bool {
	return id == catalog.PktMonDrop || id == catalog.PktMonDuplicateDrop || id == catalog.PktMonDropV4 || id == catalog.PktMonDropV6
}

// PktMon PacketType values (the manifest's PacketType map: 0 Unknown,
// 1 Ethernet, 2 WiFi, 3 IP, 4 HTTP).
const (
	pktTypeEthernet = 1
	pktTypeWiFi     = 2
	pktTypeIP       = 3
)

var pktTypeNames = [...]string{"Unknown", "Ethernet", "WiFi", "IP", "HTTP"}

// PacketTypeName returns the name of a PktMon PacketType ("Ethernet"),
// or its number.
func PacketTypeName(v uint64) string { return mapName(pktTypeNames[:], v) }

// PacketDirectionTag values.
var dirTagNames = [...]string{"None", "In", "Out", "Rx", "Tx", "Ingress", "Egress"}

// DirTagName returns the name of a PktMon DirTag ("Rx"), or its number.
func DirTagName(v uint64) string { return mapName(dirTagNames[:], v) }

func mapName(names []string, v uint64) string {
	if v < uint64(len(names)) {
		return names[v]
	}
	return strconv.FormatUint(v, 10)
}

// ComponentType values.
var componentTypeNames = map[uint64]string{1: "NDIS", 2: "Miniport", 3: "Filter", 4: "Protocol", 5: "VmsVmNic",
	6: "VmsMiniport", 7: "VmsExtMiniport", 8: "VmsProtocolNic", 9: "NetVsc Miniport", 10: "HTTP Protocol",
	12: "Slbmux", 13: "IPSec", 14: "NetCx", 15: "HTTP Message"}

// pktmonLink returns the link layer of a PktMon PacketType, as
// microsoft/etl2pcapng maps it: Ethernet frames, 802.11 frames, and
// packets that start at the IP header (PktMon's "IP" packets, logged by
// the TCP/IP layers, and mobile broadband).
func pktmonLink(packetType uint64) (Link, bool) {
	switch packetType {
	case pktTypeEthernet:
		return LinkEthernet, true
	case pktTypeWiFi:
		return LinkIEEE80211, true
	case pktTypeIP:
		return LinkRawIP, true
	}
	return 0, false
}

// dirTagDirection returns the direction of a PktMon DirTag: In, Rx and
// Ingress are inbound, Out, Tx and Egress outbound.
func dirTagDirection(dirTag uint64) Direction {
	switch dirTag {
	case 1, 3, 5:
		return DirectionInbound
	case 2, 4, 6:
		return DirectionOutbound
	}
	return DirectionUnknown
}

// Component is what pktmon's component list says about a component.
type Component struct {
	Name, Description string
	// Type is the component's type ("Miniport", "Filter", …, or "type N").
	Type    string
	IfIndex uint64
	// MAC is the 6-byte hardware address, if any.
	MAC []byte
	// Addrs are the IP addresses (as host prefixes), at most 64.
	Addrs []netip.Prefix
}

// Component returns what the component list said of component id.
func (s *Source) Component(id uint16) (*Component, bool) {
	c, ok := s.components[id]
	return c, ok
}

// pktmonIfaceKey identifies a PktMon interface: one per component and
// link type (a WiFi filter sees both 802.11 and Ethernet frames).
type pktmonIfaceKey struct {
	component uint16
	link      Link
}

// maxComponents bounds the component table (component ids are 16-bit).
const maxComponents = 1 << 16

// learnPktMon records what a PktMon rundown event says about a component.
func (s *Source) learnPktMon(id uint16, d *tdh.Decoded) {
	compID := func(name string) (*Component, bool) {
		v, ok := d.Uint(name)
		if !ok || v > 0xFFFF {
			return nil, false
		}
		k := uint16(v)
		comp := s.components[k]
		if comp == nil {
			if len(s.components) >= maxComponents {
				return nil, false
			}
			comp = &Component{}
			s.components[k] = comp
		}
		return comp, true
	}
	switch id {
	case catalog.PktMonComponent:
		comp, ok := compID("Id")
		if !ok {
			return
		}
		comp.Name, _ = d.String("Name")
		comp.Description, _ = d.String("Description")
		if t, ok := d.Uint("Type"); ok {
			comp.Type = componentTypeNames[t]
			if comp.Type == "" {
				comp.Type = "type " + strconv.FormatUint(t, 10)
			}
		}
	case catalog.PktMonPropUint32:
		comp, ok := compID("ComponentId")
		if !ok {
			return
		}
		if t, _ := d.Uint("Type"); t == 1 { // IfIndex
			comp.IfIndex, _ = d.Uint("Value")
		}
	case catalog.PktMonPropIPv4, catalog.PktMonPropIPv6:
		comp, ok := compID("ComponentId")
		if !ok {
			return
		}
		b, _ := d.Bytes("IpAddress")
		if a, ok := netip.AddrFromSlice(b); ok && len(comp.Addrs) < 64 {
			p := netip.PrefixFrom(a, a.BitLen())
			for _, old := range comp.Addrs {
				if old == p {
					return
				}
			}
			comp.Addrs = append(comp.Addrs, p)
		}
	case catalog.PktMonPropMAC:
		comp, ok := compID("ComponentId")
		if !ok {
			return
		}
		if b, _ := d.Bytes("Value"); len(b) == 6 {
			comp.MAC = append(comp.MAC[:0], b...)
		}
	}
}

// addPktMon gives one PktMon packet event's packet.
func (s *Source) addPktMon(ev *etl.Event, d *tdh.Decoded, fn func(*Packet) error) error {
	id := ev.Descriptor.ID
	drop := IsPktMonDrop(id)
	payload, ok := d.Bytes("Payload")
	compV, ok2 := d.Uint("ComponentId")
	ptype, ok3 := d.Uint("PacketType")
	if !ok || !ok2 || !ok3 || compV > 0xFFFF {
		s.stats.Undecodable++
		return nil
	}
	comp := uint16(compV)
	if s.opts.DropOnly && !drop || !s.opts.DropOnly && !s.opts.IncludeDrops && drop || !s.wantComponent(comp) {
		s.stats.Filtered++
		return nil
	}
	ifid, isNew := -1, false
	link, ok := pktmonLink(ptype)
	if !ok {
		s.stats.Unsupported++
		if !s.opts.KeepUnsupported {
			return nil
		}
	} else if ifid, isNew = iface(s, s.pktmonIfaces, pktmonIfaceKey{comp, link}); ifid < 0 {
		s.stats.OverLimit++
		return nil
	}
	orig, _ := d.Uint("OriginalPayloadSize")
	p := &s.pkt
	*p = Packet{Kind: KindPktMon, Interface: ifid, NewInterface: isNew, Link: link, Time: ev.Time, Data: payload,
		OriginalLength: int(orig), Length: len(payload), Event: ev, EventID: id, Component: comp, PacketType: ptype, Drop: drop}
	p.DirTag, _ = d.Uint("DirTag")
	p.Direction = dirTagDirection(p.DirTag)
	if g, ok := d.Uint("PktGroupId"); ok {
		p.PacketID, p.HasPacketID = g, true
		p.PktNumber, _ = d.Uint("PktNumber")
		p.Appearance, _ = d.Uint("AppearanceCount")
	}
	if !drop {
		p.Edge, _ = d.Uint("EdgeId")
	}
	p.Filter, _ = d.Uint("FilterId")
	if drop {
		p.DropReason, _ = d.Text("DropReason")
		p.DropLocation, _ = d.Uint("DropLocation")
	}
	return s.give(p, fn)
}

func (s *Source) wantComponent(id uint16) bool {
	if len(s.opts.Components) == 0 {
		return true
	}
	for _, k := range s.opts.Components {
		if k == id {
			return true
		}
	}
	return false
}
