package pcapng

import (
	"encoding/binary"
	"fmt"
	"strconv"

	"github.com/etwkit/etw/catalog"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/tdh"
)

// NDIS packet capture (Microsoft-Windows-NDIS-PacketCapture, ndiscap.sys:
// "netsh trace start capture=yes", "pktmon" before Windows 10 2004), as
// microsoft/etl2pcapng reads it:
//
//   - event 1001 is a packet fragment seen by the miniport or filter
//     whose IfIndex is LowerIfIndex (MiniportIfIndex is the miniport
//     under it); 1003 is the same from the Hyper-V switch, with the
//     source port, NIC and out-of-band data (VLAN, RSS hash);
//   - keywords give the medium (Native802.11: 802.11 frames, WirelessWAN:
//     raw IP, else Ethernet), the direction (SendPath, ReceivePath) and
//     the fragment's place: PacketStart on the first event of a packet,
//     PacketEnd on the last (one event carries both since Windows 8.1);
//   - event 1002 is 802.11 receive metadata (DOT11_EXTSTA_RECV_CONTEXT)
//     for the next packet of the interface.
//
// The converter keeps one interface per kind, LowerIfIndex, medium and,
// for the switch, source port and VLAN, written when its first packet
// comes (etl2pcapng reads the file twice to write them first, sorted).

// ndisIfaceKey identifies an NDIS interface.
type ndisIfaceKey struct {
	vmswitch bool
	lower    uint32
	link     LinkType
	vlan     uint16
	port     uint32
}

// ndisPending is a packet whose fragments are being gathered.
type ndisPending struct {
	data     []byte
	length   int // bytes of all fragments, also those past MaxCaptureLength
	thread   uint32
	seq      uint64 // arrival order, to drop the oldest when too many wait
	miniport uint32
	// orphan marks the fragments of a packet whose start is missing:
	// they are dropped up to the packet's end, counted once.
	orphan bool
}

// maxPendingPackets bounds the packets being reassembled at once; past
// it the oldest is given up (counted as incomplete).
const maxPendingPackets = 256

// maxInterfaces bounds the interfaces of one output.
const maxInterfaces = 1 << 16

// wlanMeta is a DOT11_EXTSTA_RECV_CONTEXT waiting for its packet.
type wlanMeta struct {
	receiveFlags uint32
	phyID        uint32
	centerFreq   uint32
	mpdus        uint16
	rssi         int32
	dataRate     uint8
}

// DOT11_PHY_TYPE names (windot11.h), as etl2pcapng prints them.
var phyTypeNames = [...]string{"Unknown", "Fhss", "Dsss", "IrBaseband", "802.11a", "802.11b", "802.11g", "802.11n",
	"802.11ac", "802.11ad", "802.11ax"}

// ndisLinkType returns the medium of an NDIS capture event's keywords.
func ndisLinkType(kw uint64) LinkType {
	switch {
	case kw&catalog.NDISKeywordNative80211 != 0:
		return LinkTypeIEEE80211
	case kw&catalog.NDISKeywordWirelessWAN != 0:
		return LinkTypeRaw
	}
	return LinkTypeEthernet
}

// vmswitchInfo is what a 1003 event says beyond the fragment.
type vmswitchInfo struct {
	port                      uint32
	portName, nicName, nicTyp string
	destinations              uint64
	vlan                      uint16
	hash                      uint32
}

// addNDIS handles one NDIS-PacketCapture event.
func (c *Converter) addNDIS(ev *etl.Event, d *tdh.Decoded) error {
	lower, ok1 := d.Uint("LowerIfIndex")
	miniport, ok2 := d.Uint("MiniportIfIndex")
	if !ok1 || !ok2 {
		c.stats.Undecodable++
		return nil
	}
	if ev.Descriptor.ID == catalog.NDISEventPacketMetadata {
		c.ndisMetadata(uint32(lower), d)
		return nil
	}
	frag, ok := d.Bytes("Fragment")
	if !ok {
		c.stats.Undecodable++
		return nil
	}
	kw := ev.Descriptor.Keyword
	key := ndisIfaceKey{lower: uint32(lower), link: ndisLinkType(kw)}
	var vms vmswitchInfo
	if ev.Descriptor.ID == catalog.NDISEventVMSwitchPacketFragment {
		vms = vmswitchFields(d, ev.PointerSize())
		key.vmswitch, key.vlan, key.port = true, vms.vlan, vms.port
	}
	start, end := kw&catalog.NDISKeywordPacketStart != 0, kw&catalog.NDISKeywordPacketEnd != 0
	if start {
		c.sawStart = true
	}
	pend := c.pending[key]
	if pend != nil && (start || pend.thread != ev.ThreadID) {
		// A new packet begins before the last one ended, or a fragment
		// comes from another thread than the packet's start (fragments
		// of one packet come from one thread): the last packet is lost.
		c.releasePending(key, pend)
		pend = nil
	}
	if pend == nil && !start && c.sawStart {
		// A fragment whose start is missing (a damaged buffer, or a
		// trace that began mid-packet): drop it and the rest of its
		// packet. Producers that never set PacketStart (none known) are
		// read as etl2pcapng reads them: fragments gather up to an end.
		c.stats.Incomplete++
		if !end {
			pend = c.addPending(key, ev.ThreadID, uint32(miniport))
			pend.orphan = true
		}
		return nil
	}
	if pend != nil && pend.orphan {
		if end {
			c.deletePending(key, pend)
		}
		return nil
	}
	if end && pend == nil {
		// The usual case since Windows 8.1: the whole packet in one event.
		return c.writeNDIS(ev, key, uint32(miniport), frag, len(frag), &vms)
	}
	if pend == nil {
		pend = c.addPending(key, ev.ThreadID, uint32(miniport))
	}
	room := MaxCaptureLength - len(pend.data)
	pend.data = append(pend.data, frag[:min(len(frag), max(room, 0))]...)
	pend.length += len(frag)
	if !end {
		return nil
	}
	err := c.writeNDIS(ev, key, pend.miniport, pend.data, pend.length, &vms)
	c.deletePending(key, pend)
	return err
}

// addPending starts gathering a packet's fragments.
func (c *Converter) addPending(key ndisIfaceKey, thread, miniport uint32) *ndisPending {
	if len(c.pending) >= maxPendingPackets {
		c.dropOldestPending()
	}
	p := c.newPending()
	p.thread, p.miniport, p.orphan = thread, miniport, false
	c.pendingSeq++
	p.seq = c.pendingSeq
	c.pending[key] = p
	return p
}

func (c *Converter) newPending() *ndisPending {
	if n := len(c.free); n > 0 {
		p := c.free[n-1]
		c.free = c.free[:n-1]
		return p
	}
	return &ndisPending{}
}

func (c *Converter) recycle(p *ndisPending) {
	p.data, p.length = p.data[:0], 0
	if cap(p.data) > 64<<10 || len(c.free) >= 8 {
		return // let big and surplus buffers go
	}
	c.free = append(c.free, p)
}

// deletePending forgets a packet that was written or dropped.
func (c *Converter) deletePending(key ndisIfaceKey, p *ndisPending) {
	delete(c.pending, key)
	c.recycle(p)
}

// releasePending gives up an unfinished packet, counting it as
// incomplete (an orphan's fragments were counted when they came).
func (c *Converter) releasePending(key ndisIfaceKey, p *ndisPending) {
	if !p.orphan {
		c.stats.Incomplete++
	}
	c.deletePending(key, p)
}

func (c *Converter) dropOldestPending() {
	var oldest ndisIfaceKey
	var op *ndisPending
	for k, p := range c.pending {
		if op == nil || p.seq < op.seq {
			oldest, op = k, p
		}
	}
	if op != nil {
		c.releasePending(oldest, op)
	}
}

// ndisMetadata keeps the 802.11 receive context of a 1002 event for the
// next packet of its interface. DOT11_EXTSTA_RECV_CONTEXT (windot11.h,
// natural alignment): header (4), uReceiveFlags @4, uPhyId @8,
// uChCenterFrequency @12, usNumberOfMPDUsReceived @16, lRSSI @20,
// ucDataRate @24, then the media-specific pointer and a timestamp.
func (c *Converter) ndisMetadata(lower uint32, d *tdh.Decoded) {
	b, ok := d.Bytes("Metadata")
	if !ok || len(b) < 25 {
		c.stats.Undecodable++
		return
	}
	if len(c.wlan) >= maxPendingPackets {
		clear(c.wlan)
	}
	le := binary.LittleEndian
	c.wlan[lower] = wlanMeta{receiveFlags: le.Uint32(b[4:]), phyID: le.Uint32(b[8:]), centerFreq: le.Uint32(b[12:]),
		mpdus: le.Uint16(b[16:]), rssi: int32(le.Uint32(b[20:])), dataRate: b[24]}
}

// vmswitchFields reads the switch's source port and NIC, the destination
// count and, from the out-of-band data (NDIS_NET_BUFFER_LIST_INFO
// pointer-sized slots), the 802.1Q VLAN id (slot 4, bits 4-15) and the
// RSS hash (slot 8).
func vmswitchFields(d *tdh.Decoded, ptr int) vmswitchInfo {
	var v vmswitchInfo
	port, _ := d.Uint("SourcePortId")
	v.port = uint32(port)
	v.portName, _ = d.String("SourcePortName")
	v.nicName, _ = d.String("SourceNicName")
	v.nicTyp, _ = d.String("SourceNicType")
	v.destinations, _ = d.Uint("DestinationCount")
	oob, _ := d.Bytes("OOBData")
	slot := func(i int) uint64 {
		off := i * ptr
		if off+ptr > len(oob) {
			return 0
		}
		if ptr == 4 {
			return uint64(binary.LittleEndian.Uint32(oob[off:]))
		}
		return binary.LittleEndian.Uint64(oob[off:])
	}
	v.vlan = uint16(slot(4) >> 4 & 0xFFF)
	v.hash = uint32(slot(8))
	return v
}

// ndisInterface returns the pcapng interface of key, writing its
// description the first time. Names are etl2pcapng's.
func (c *Converter) ndisInterface(key ndisIfaceKey, miniport uint32, vms *vmswitchInfo) (int, error) {
	if id, ok := c.ndisIfaces[key]; ok {
		return id, nil
	}
	if c.w.Interfaces() >= maxInterfaces {
		return -1, nil
	}
	ifc := Interface{LinkType: key.link}
	lower := strconv.FormatUint(uint64(key.lower), 10)
	vlan := strconv.Itoa(int(key.vlan))
	switch {
	case key.vmswitch:
		ifc.Name = "vNIC:" + vms.nicTyp + ":" + vms.portName + ":" + lower + ":" + vlan
		ifc.Hardware = vms.nicName
	case key.link == LinkTypeIEEE80211:
		ifc.Name = "wifi:" + lower
	case key.link == LinkTypeRaw:
		ifc.Name = "mbb:" + lower
	default:
		ifc.Name = "eth:" + lower + ":" + vlan
	}
	if key.lower != miniport {
		ifc.Description = "LWF over IfIndex " + strconv.FormatUint(uint64(miniport), 10)
	}
	if key.vlan != 0 {
		ifc.Description += " VlanID=" + vlan
	}
	ifc.Comment = "NDIS packet capture, IfIndex " + lower + ", miniport IfIndex " + strconv.FormatUint(uint64(miniport), 10)
	id, err := c.w.AddInterface(&ifc)
	if err != nil {
		return 0, err
	}
	c.ndisIfaces[key] = id
	return id, nil
}

// writeNDIS writes a reassembled NDIS packet: data holds the first
// MaxCaptureLength bytes of length.
func (c *Converter) writeNDIS(ev *etl.Event, key ndisIfaceKey, miniport uint32, data []byte, length int, vms *vmswitchInfo) error {
	if c.opts.DropOnly || len(c.opts.Components) > 0 {
		c.stats.Filtered++
		return nil
	}
	id, err := c.ndisInterface(key, miniport, vms)
	if err != nil || id < 0 {
		if id < 0 {
			c.stats.OverLimit++
		}
		return err
	}
	kw := ev.Descriptor.Keyword
	if key.link == LinkTypeIEEE80211 && len(data) > 1 && data[1]&0x40 != 0 {
		// ndiscap logs 802.11 frames decrypted: clear the Protected bit
		// of the frame control so that Wireshark dissects the body
		// (etl2pcapng does the same).
		// The copy leaves the event's payload as it was.
		c.buf80211 = append(c.buf80211[:0], data...)
		data = c.buf80211
		data[1] &^= 0x40
	}
	p := Packet{Interface: id, Time: etl.FiletimeToTime(ev.Time), Data: data, OriginalLength: inferLength(key.link, data, length)}
	switch {
	case kw&catalog.NDISKeywordSendPath != 0:
		p.Direction = DirectionOutbound
	case kw&catalog.NDISKeywordReceivePath != 0:
		p.Direction = DirectionInbound
	}
	comment := append(c.comment[:0], "PID="...)
	comment = strconv.AppendUint(comment, uint64(ev.ProcessID), 10)
	comment = append(comment, " TID="...)
	comment = strconv.AppendUint(comment, uint64(ev.ThreadID), 10)
	switch {
	case key.vmswitch:
		comment = append(comment, " VlanId="...)
		comment = strconv.AppendUint(comment, uint64(vms.vlan), 10)
		comment = append(comment, " SrcPortId="...)
		comment = strconv.AppendUint(comment, uint64(vms.port), 10)
		comment = append(comment, " SrcNicType="...)
		comment = append(comment, vms.nicTyp...)
		comment = append(comment, " SrcNicName="...)
		comment = append(comment, vms.nicName...)
		comment = append(comment, " SrcPortName="...)
		comment = append(comment, vms.portName...)
		if vms.destinations > 0 {
			comment = append(comment, " DstNicCount="...)
			comment = strconv.AppendUint(comment, vms.destinations, 10)
		}
		comment = fmt.Appendf(comment, " HashValue=%08x", vms.hash)
	default:
		if m, ok := c.wlan[key.lower]; ok {
			delete(c.wlan, key.lower)
			phy := "Unknown"
			if m.phyID < uint32(len(phyTypeNames)) {
				phy = phyTypeNames[m.phyID]
			}
			comment = fmt.Appendf(comment, " Packet Metadata: ReceiveFlags:0x%x, PhyType:%s, CenterCh:%d, NumMPDUsReceived:%d, RSSI:%d, DataRate:%d",
				m.receiveFlags, phy, m.centerFreq, m.mpdus, m.rssi, m.dataRate)
		}
	}
	c.comment = comment
	p.Comment = string(comment)
	if err := c.write(&p); err != nil {
		return err
	}
	c.stats.NDISPackets++
	return nil
}

// inferLength returns the original length of an NDIS packet of length
// bytes logged (all fragments): ndiscap does not log the length of the
// packets it truncates, so, as etl2pcapng does, it is taken from the IP
// header when that says more (IPv4 total length, IPv6 payload length +
// 40, plus the 14-byte Ethernet header on Ethernet). Large-send packets
// carry no IP length: the logged length stands.
func inferLength(link LinkType, data []byte, length int) int {
	ip := data
	hdr := 0
	switch link {
	case LinkTypeEthernet:
		if len(data) < 14 {
			return length
		}
		switch binary.BigEndian.Uint16(data[12:]) {
		case 0x0800, 0x86DD:
		default:
			return length
		}
		ip, hdr = data[14:], 14
	case LinkTypeRaw:
	default:
		return length
	}
	inferred := 0
	switch {
	case len(ip) >= 20 && ip[0]>>4 == 4:
		inferred = int(binary.BigEndian.Uint16(ip[2:])) + hdr
	case len(ip) >= 40 && ip[0]>>4 == 6:
		inferred = int(binary.BigEndian.Uint16(ip[4:])) + 40 + hdr
	}
	return max(inferred, length)
}
