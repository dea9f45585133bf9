package netcap

import (
	"net/netip"
	"strconv"
)

// Interface describes the interface of a packet as the capture tools
// name it: a PktMon component by pktmon's component list, an NDIS
// interface as microsoft/etl2pcapng names it ("eth:LowerIfIndex:VLAN",
// "wifi:…", "mbb:…", "vNIC:type:port:…").
type Interface struct {
	Name, Description string
	// Hardware is the Hyper-V switch NIC's name (NDIS switch packets).
	Hardware string
	// Comment says what the interface is ("PktMon component 79
	// (Miniport), IfIndex 12, Ethernet frames", "NDIS packet capture,
	// IfIndex 5, miniport IfIndex 5").
	Comment string
	// MAC and Addrs are the PktMon component's hardware and IP
	// addresses, as the component list gives them (shared: not to be
	// changed).
	MAC   []byte
	Addrs []netip.Prefix
}

// Interface describes the interface of p, which the callback of
// [Source.Add] received: a PktMon component's from what the component
// list said of it so far ([Source.Learn]), "PktMon component N" when it
// said nothing; an NDIS interface's from the packet. It is meant for a
// packet with NewInterface set: the description of one interface does not
// change between its packets except by what the component list says
// later.
func (s *Source) Interface(p *Packet) Interface {
	if p.Kind == KindPktMon {
		return s.pktmonInterface(p)
	}
	return ndisInterface(p)
}

// pktmonInterface describes the interface of a PktMon packet's component
// and link type.
func (s *Source) pktmonInterface(p *Packet) Interface {
	var ifc Interface
	name := "PktMon component " + strconv.Itoa(int(p.Component))
	comment := name
	if comp, ok := s.Component(p.Component); ok {
		ifc.Name, ifc.Description = comp.Name, comp.Description
		ifc.MAC, ifc.Addrs = comp.MAC, comp.Addrs
		if comp.Type != "" {
			comment += " (" + comp.Type + ")"
		}
		if comp.IfIndex != 0 {
			comment += ", IfIndex " + strconv.FormatUint(comp.IfIndex, 10)
		}
	}
	if ifc.Name == "" {
		ifc.Name = name
	}
	ifc.Comment = comment + ", " + p.Link.frames()
	return ifc
}

// frames says what the packets of a link layer are ("Ethernet frames").
func (l Link) frames() string {
	switch l {
	case LinkEthernet:
		return "Ethernet frames"
	case LinkIEEE80211:
		return "802.11 frames"
	case LinkRawIP:
		return "IP packets"
	}
	return "link type " + l.String()
}

// ndisInterface describes the interface of an NDIS packet: one per kind
// (plain or Hyper-V switch), LowerIfIndex, link type and, for the switch,
// source port and VLAN. Names are etl2pcapng's.
func ndisInterface(p *Packet) Interface {
	var ifc Interface
	lower := strconv.FormatUint(uint64(p.LowerIfIndex), 10)
	var vlan uint16
	if p.VMSwitch != nil {
		vlan = p.VMSwitch.VLAN
	}
	vlanS := strconv.Itoa(int(vlan))
	switch {
	case p.VMSwitch != nil:
		ifc.Name = "vNIC:" + p.VMSwitch.NICType + ":" + p.VMSwitch.PortName + ":" + lower + ":" + vlanS
		ifc.Hardware = p.VMSwitch.NICName
	case p.Link == LinkIEEE80211:
		ifc.Name = "wifi:" + lower
	case p.Link == LinkRawIP:
		ifc.Name = "mbb:" + lower
	default:
		ifc.Name = "eth:" + lower + ":" + vlanS
	}
	if p.LowerIfIndex != p.MiniportIfIndex {
		ifc.Description = "LWF over IfIndex " + strconv.FormatUint(uint64(p.MiniportIfIndex), 10)
	}
	if vlan != 0 {
		ifc.Description += " VlanID=" + vlanS
	}
	ifc.Comment = "NDIS packet capture, IfIndex " + lower + ", miniport IfIndex " + strconv.FormatUint(uint64(p.MiniportIfIndex), 10)
	return ifc
}
