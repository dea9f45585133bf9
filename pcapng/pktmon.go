package pcapng

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

// PktMonGUID is Microsoft-Windows-PktMon's provider GUID.
var PktMonGUID = catalog.PktMonGUID

// isPktMonPacket reports whether id is a PktMon event carrying a frame.
func isPktMonPacket(id uint16) bool {
	switch id {
	case catalog.PktMonFlow, catalog.PktMonDrop, catalog.PktMonDuplicateDrop, catalog.PktMonFlowV4, catalog.PktMonDropV4, catalog.PktMonFlowV6, catalog.PktMonDropV6:
		return true
	}
	return false
}

// isPktMonDrop reports whether a PktMon packet event is a drop.
func isPktMonDrop(id uint16) bool {
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

// PacketDirectionTag values.
var dirTagNames = [...]string{"None", "In", "Out", "Rx", "Tx", "Ingress", "Egress"}

// ComponentType values.
var componentTypeNames = map[uint64]string{1: "NDIS", 2: "Miniport", 3: "Filter", 4: "Protocol", 5: "VmsVmNic",
	6: "VmsMiniport", 7: "VmsExtMiniport", 8: "VmsProtocolNic", 9: "NetVsc Miniport", 10: "HTTP Protocol",
	12: "Slbmux", 13: "IPSec", 14: "NetCx", 15: "HTTP Message"}

// pktmonLinkType returns the link type of a PktMon PacketType, as
// microsoft/etl2pcapng maps it: Ethernet frames, 802.11 frames, and
// packets that start at the IP header (PktMon's "IP" packets, logged by
// the TCP/IP layers, and mobile broadband).
func pktmonLinkType(packetType uint64) (LinkType, bool) {
	switch packetType {
	case pktTypeEthernet:
		return LinkTypeEthernet, true
	case pktTypeWiFi:
		return LinkTypeIEEE80211, true
	case pktTypeIP:
		return LinkTypeRaw, true
	}
	return 0, false
}

// direction returns the pcapng direction of a PktMon DirTag: In, Rx and
// Ingress are inbound, Out, Tx and Egress outbound.
func direction(dirTag uint64) Direction {
	switch dirTag {
	case 1, 3, 5:
		return DirectionInbound
	case 2, 4, 6:
		return DirectionOutbound
	}
	return DirectionUnknown
}

// component is what the rundown says about a PktMon component.
type component struct {
	name, description, typ string
	ifIndex                uint64
	mac                    []byte
	addrs                  []netip.Prefix
}

// pktmonIfaceKey identifies a PktMon interface: one per component and
// link type (a WiFi filter sees both 802.11 and Ethernet frames).
type pktmonIfaceKey struct {
	component uint16
	link      LinkType
}

// maxComponents bounds the component table (component ids are 16-bit).
const maxComponents = 1 << 16

// learnPktMon records what a PktMon rundown event says about a component.
func (c *Converter) learnPktMon(id uint16, d *tdh.Decoded) {
	compID := func(name string) (*component, bool) {
		v, ok := d.Uint(name)
		if !ok || v > 0xFFFF {
			return nil, false
		}
		k := uint16(v)
		comp := c.components[k]
		if comp == nil {
			if len(c.components) >= maxComponents {
				return nil, false
			}
			comp = &component{}
			c.components[k] = comp
		}
		return comp, true
	}
	switch id {
	case catalog.PktMonComponent:
		comp, ok := compID("Id")
		if !ok {
			return
		}
		comp.name, _ = d.String("Name")
		comp.description, _ = d.String("Description")
		if t, ok := d.Uint("Type"); ok {
			comp.typ = componentTypeNames[t]
			if comp.typ == "" {
				comp.typ = "type " + strconv.FormatUint(t, 10)
			}
		}
	case catalog.PktMonPropUint32:
		comp, ok := compID("ComponentId")
		if !ok {
			return
		}
		if t, _ := d.Uint("Type"); t == 1 { // IfIndex
			comp.ifIndex, _ = d.Uint("Value")
		}
	case catalog.PktMonPropIPv4, catalog.PktMonPropIPv6:
		comp, ok := compID("ComponentId")
		if !ok {
			return
		}
		b, _ := d.Bytes("IpAddress")
		if a, ok := netip.AddrFromSlice(b); ok && len(comp.addrs) < 64 {
			p := netip.PrefixFrom(a, a.BitLen())
			for _, old := range comp.addrs {
				if old == p {
					return
				}
			}
			comp.addrs = append(comp.addrs, p)
		}
	case catalog.PktMonPropMAC:
		comp, ok := compID("ComponentId")
		if !ok {
			return
		}
		if b, _ := d.Bytes("Value"); len(b) == 6 {
			comp.mac = append(comp.mac[:0], b...)
		}
	}
}

// pktmonInterface returns the pcapng interface of a component and link
// type, writing its description the first time.
func (c *Converter) pktmonInterface(compID uint16, link LinkType) (int, error) {
	k := pktmonIfaceKey{compID, link}
	if id, ok := c.pktmonIfaces[k]; ok {
		return id, nil
	}
	if c.w.Interfaces() >= maxInterfaces {
		return -1, nil
	}
	ifc := Interface{LinkType: link}
	comment := "PktMon component " + strconv.Itoa(int(compID))
	if comp := c.components[compID]; comp != nil {
		ifc.Name, ifc.Description = comp.name, comp.description
		ifc.MAC, ifc.Addresses = comp.mac, comp.addrs
		if comp.typ != "" {
			comment += " (" + comp.typ + ")"
		}
		if comp.ifIndex != 0 {
			comment += ", IfIndex " + strconv.FormatUint(comp.ifIndex, 10)
		}
	}
	if ifc.Name == "" {
		ifc.Name = "PktMon component " + strconv.Itoa(int(compID))
	}
	ifc.Comment = comment + ", " + linkTypeWords(link)
	id, err := c.w.AddInterface(&ifc)
	if err != nil {
		return 0, err
	}
	c.pktmonIfaces[k] = id
	return id, nil
}

func linkTypeWords(l LinkType) string {
	switch l {
	case LinkTypeEthernet:
		return "Ethernet frames"
	case LinkTypeIEEE80211:
		return "802.11 frames"
	case LinkTypeRaw:
		return "IP packets"
	}
	return l.String()
}

// addPktMon converts one PktMon packet event.
func (c *Converter) addPktMon(ev *etl.Event, d *tdh.Decoded) error {
	id := ev.Descriptor.ID
	drop := isPktMonDrop(id)
	payload, ok := d.Bytes("Payload")
	compV, ok2 := d.Uint("ComponentId")
	ptype, ok3 := d.Uint("PacketType")
	if !ok || !ok2 || !ok3 || compV > 0xFFFF {
		c.stats.Undecodable++
		return nil
	}
	comp := uint16(compV)
	if c.opts.DropOnly && !drop || !c.opts.DropOnly && !c.opts.IncludeDrops && drop || !c.wantComponent(comp) {
		c.stats.Filtered++
		return nil
	}
	link, ok := pktmonLinkType(ptype)
	if !ok {
		c.stats.Unsupported++
		return nil
	}
	ifid, err := c.pktmonInterface(comp, link)
	if err != nil || ifid < 0 {
		if ifid < 0 {
			c.stats.OverLimit++
		}
		return err
	}
	orig, _ := d.Uint("OriginalPayloadSize")
	dirTag, _ := d.Uint("DirTag")
	p := Packet{
		Interface:      ifid,
		Time:           etl.FiletimeToTime(ev.Time),
		Data:           payload,
		OriginalLength: int(orig),
		Direction:      direction(dirTag),
		Comment:        c.pktmonComment(id, d, dirTag, ptype, comp, uint64(len(payload)), orig),
	}
	if g, ok := d.Uint("PktGroupId"); ok {
		p.PacketID, p.HasPacketID = g, true
	}
	if drop {
		p.Verdicts = XDPDrop
	}
	if err := c.write(&p); err != nil {
		return err
	}
	c.stats.PktMonPackets++
	if drop {
		c.stats.Drops++
	}
	return nil
}

// pktmonComment renders the packet's line as pktmon's message strings
// (English) do: "PktGroupId 1, PktNumber 1, Appearance 1, Direction Tx,
// Type Ethernet, Component 79, Edge 1, Filter 0, OriginalSize 55,
// LoggedSize 55"; drops say "Drop:" and give DropReason and
// DropLocation.
func (c *Converter) pktmonComment(id uint16, d *tdh.Decoded, dirTag, ptype uint64, comp uint16, logged, orig uint64) string {
	b := c.comment[:0]
	num := func(label string, v uint64) {
		if len(b) > 0 && b[len(b)-1] != ' ' {
			b = append(b, ", "...)
		}
		b = append(b, label...)
		b = append(b, ' ')
		b = strconv.AppendUint(b, v, 10)
	}
	text := func(label, v string) {
		if len(b) > 0 && b[len(b)-1] != ' ' {
			b = append(b, ", "...)
		}
		b = append(b, label...)
		b = append(b, ' ')
		b = append(b, v...)
	}
	switch id {
	case catalog.PktMonDrop:
		b = append(b, "Drop: "...)
	case catalog.PktMonDuplicateDrop:
		b = append(b, "Duplicate Drop: "...)
	case catalog.PktMonDropV4, catalog.PktMonDropV6:
		b = append(b, "Drop: "...)
	}
	if g, ok := d.Uint("PktGroupId"); ok {
		num("PktGroupId", g)
		n, _ := d.Uint("PktNumber")
		num("PktNumber", n)
		a, _ := d.Uint("AppearanceCount")
		num("Appearance", a)
	}
	text("Direction", mapName(dirTagNames[:], dirTag))
	text("Type", mapName(pktTypeNames[:], ptype))
	num("Component", uint64(comp))
	drop := isPktMonDrop(id)
	if !drop {
		e, _ := d.Uint("EdgeId")
		num("Edge", e)
	}
	f, _ := d.Uint("FilterId")
	num("Filter", f)
	if drop {
		reason, _ := d.Text("DropReason")
		text("DropReason", reason)
		loc, _ := d.Uint("DropLocation")
		b = append(b, ", DropLocation 0x"...)
		b = appendUpperHex(b, loc)
	}
	num("OriginalSize", orig)
	num("LoggedSize", logged)
	c.comment = b
	return string(b)
}

func mapName(names []string, v uint64) string {
	if v < uint64(len(names)) {
		return names[v]
	}
	return strconv.FormatUint(v, 10)
}

func appendUpperHex(b []byte, v uint64) []byte {
	const digits = "0123456789ABCDEF"
	var tmp [16]byte
	i := len(tmp)
	for {
		i--
		tmp[i] = digits[v&0xF]
		v >>= 4
		if v == 0 {
			break
		}
	}
	return append(b, tmp[i:]...)
}

func (c *Converter) wantComponent(id uint16) bool {
	if len(c.opts.Components) == 0 {
		return true
	}
	for _, k := range c.opts.Components {
		if k == id {
			return true
		}
	}
	return false
}
