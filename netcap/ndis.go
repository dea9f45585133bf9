package netcap

import (
	"encoding/binary"

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
// A Source numbers one interface per kind, LowerIfIndex, medium and, for
// the switch, source port and VLAN, when its first packet comes.

// ndisIfaceKey identifies an NDIS interface.
type ndisIfaceKey struct {
	vmswitch bool
	lower    uint32
	link     Link
	vlan     uint16
	port     uint32
}

// ndisPending is a packet whose fragments are being gathered.
type ndisPending struct {
	data     []byte
	length   int // bytes of all fragments, also those past MaxLength
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

// WLANMetadata is the 802.11 receive context (DOT11_EXTSTA_RECV_CONTEXT)
// of an NDIS 1002 event, for the next packet of its interface.
type WLANMetadata struct {
	ReceiveFlags uint32
	PhyID        uint32
	CenterFreq   uint32
	MPDUs        uint16
	RSSI         int32
	DataRate     uint8
}

// DOT11_PHY_TYPE names (windot11.h), as etl2pcapng prints them.
var phyTypeNames = [...]string{"Unknown", "Fhss", "Dsss", "IrBaseband", "802.11a", "802.11b", "802.11g", "802.11n",
	"802.11ac", "802.11ad", "802.11ax"}

// PhyName returns the DOT11_PHY_TYPE name of PhyID ("802.11n"), or
// "Unknown".
func (m *WLANMetadata) PhyName() string {
	if m.PhyID < uint32(len(phyTypeNames)) {
		return phyTypeNames[m.PhyID]
	}
	return "Unknown"
}

// ndisLink returns the medium of an NDIS capture event's keywords.
func ndisLink(kw uint64) Link {
	switch {
	case kw&catalog.NDISKeywordNative80211 != 0:
		return LinkIEEE80211
	case kw&catalog.NDISKeywordWirelessWAN != 0:
		return LinkRawIP
	}
	return LinkEthernet
}

// VMSwitch is what a Hyper-V switch fragment (event 1003) says beyond the
// fragment.
type VMSwitch struct {
	Port                       uint32
	PortName, NICName, NICType string
	Destinations               uint64
	VLAN                       uint16
	Hash                       uint32
}

// addNDIS handles one NDIS-PacketCapture event.
func (s *Source) addNDIS(ev *etl.Event, d *tdh.Decoded, fn func(*Packet) error) error {
	lower, ok1 := d.Uint("LowerIfIndex")
	miniport, ok2 := d.Uint("MiniportIfIndex")
	if !ok1 || !ok2 {
		s.stats.Undecodable++
		return nil
	}
	if ev.Descriptor.ID == catalog.NDISEventPacketMetadata {
		s.ndisMetadata(uint32(lower), d)
		return nil
	}
	frag, ok := d.Bytes("Fragment")
	if !ok {
		s.stats.Undecodable++
		return nil
	}
	kw := ev.Descriptor.Keyword
	key := ndisIfaceKey{lower: uint32(lower), link: ndisLink(kw)}
	vms := &s.vms
	*vms = VMSwitch{}
	if ev.Descriptor.ID == catalog.NDISEventVMSwitchPacketFragment {
		vmswitchFields(vms, d, ev.PointerSize())
		key.vmswitch, key.vlan, key.port = true, vms.VLAN, vms.Port
	}
	start, end := kw&catalog.NDISKeywordPacketStart != 0, kw&catalog.NDISKeywordPacketEnd != 0
	if start {
		s.sawStart = true
	}
	pend := s.pending[key]
	if pend != nil && (start || pend.thread != ev.ThreadID) {
		// A new packet begins before the last one ended, or a fragment
		// comes from another thread than the packet's start (fragments
		// of one packet come from one thread): the last packet is lost.
		s.releasePending(key, pend)
		pend = nil
	}
	if pend == nil && !start && s.sawStart {
		// A fragment whose start is missing (a damaged buffer, or a
		// trace that began mid-packet): drop it and the rest of its
		// packet. Producers that never set PacketStart (none known) are
		// read as etl2pcapng reads them: fragments gather up to an end.
		s.stats.Incomplete++
		if !end {
			pend = s.addPending(key, ev.ThreadID, uint32(miniport))
			pend.orphan = true
		}
		return nil
	}
	if pend != nil && pend.orphan {
		if end {
			s.deletePending(key, pend)
		}
		return nil
	}
	if end && pend == nil {
		// The usual case since Windows 8.1: the whole packet in one event.
		return s.giveNDIS(ev, key, uint32(miniport), frag[:min(len(frag), MaxLength)], len(frag), fn)
	}
	if pend == nil {
		pend = s.addPending(key, ev.ThreadID, uint32(miniport))
	}
	room := MaxLength - len(pend.data)
	pend.data = append(pend.data, frag[:min(len(frag), max(room, 0))]...)
	pend.length += len(frag)
	if !end {
		return nil
	}
	err := s.giveNDIS(ev, key, pend.miniport, pend.data, pend.length, fn)
	s.deletePending(key, pend)
	return err
}

// addPending starts gathering a packet's fragments.
func (s *Source) addPending(key ndisIfaceKey, thread, miniport uint32) *ndisPending {
	if len(s.pending) >= maxPendingPackets {
		s.dropOldestPending()
	}
	p := s.newPending()
	p.thread, p.miniport, p.orphan = thread, miniport, false
	s.pendingSeq++
	p.seq = s.pendingSeq
	s.pending[key] = p
	return p
}

func (s *Source) newPending() *ndisPending {
	if n := len(s.free); n > 0 {
		p := s.free[n-1]
		s.free = s.free[:n-1]
		return p
	}
	return &ndisPending{}
}

func (s *Source) recycle(p *ndisPending) {
	p.data, p.length = p.data[:0], 0
	if cap(p.data) > 64<<10 || len(s.free) >= 8 {
		return // let big and surplus buffers go
	}
	s.free = append(s.free, p)
}

// deletePending forgets a packet that was given or dropped.
func (s *Source) deletePending(key ndisIfaceKey, p *ndisPending) {
	delete(s.pending, key)
	s.recycle(p)
}

// releasePending gives up an unfinished packet, counting it as
// incomplete (an orphan's fragments were counted when they came).
func (s *Source) releasePending(key ndisIfaceKey, p *ndisPending) {
	if !p.orphan {
		s.stats.Incomplete++
	}
	s.deletePending(key, p)
}

func (s *Source) dropOldestPending() {
	var oldest ndisIfaceKey
	var op *ndisPending
	for k, p := range s.pending {
		if op == nil || p.seq < op.seq {
			oldest, op = k, p
		}
	}
	if op != nil {
		s.releasePending(oldest, op)
	}
}

// ndisMetadata keeps the 802.11 receive context of a 1002 event for the
// next packet of its interface. DOT11_EXTSTA_RECV_CONTEXT (windot11.h,
// natural alignment): header (4), uReceiveFlags @4, uPhyId @8,
// uChCenterFrequency @12, usNumberOfMPDUsReceived @16, lRSSI @20,
// ucDataRate @24, then the media-specific pointer and a timestamp.
func (s *Source) ndisMetadata(lower uint32, d *tdh.Decoded) {
	b, ok := d.Bytes("Metadata")
	if !ok || len(b) < 25 {
		s.stats.Undecodable++
		return
	}
	if len(s.wlan) >= maxPendingPackets {
		clear(s.wlan)
	}
	le := binary.LittleEndian
	s.wlan[lower] = WLANMetadata{ReceiveFlags: le.Uint32(b[4:]), PhyID: le.Uint32(b[8:]), CenterFreq: le.Uint32(b[12:]),
		MPDUs: le.Uint16(b[16:]), RSSI: int32(le.Uint32(b[20:])), DataRate: b[24]}
}

// vmswitchFields reads the switch's source port and NIC, the destination
// count and, from the out-of-band data (NDIS_NET_BUFFER_LIST_INFO
// pointer-sized slots), the 802.1Q VLAN id (slot 4, bits 4-15) and the
// RSS hash (slot 8).
func vmswitchFields(v *VMSwitch, d *tdh.Decoded, ptr int) {
	port, _ := d.Uint("SourcePortId")
	v.Port = uint32(port)
	v.PortName, _ = d.String("SourcePortName")
	v.NICName, _ = d.String("SourceNicName")
	v.NICType, _ = d.String("SourceNicType")
	v.Destinations, _ = d.Uint("DestinationCount")
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
	v.VLAN = uint16(slot(4) >> 4 & 0xFFF)
	v.Hash = uint32(slot(8))
}

// giveNDIS gives a reassembled NDIS packet: data holds the first
// MaxLength bytes of length.
func (s *Source) giveNDIS(ev *etl.Event, key ndisIfaceKey, miniport uint32, data []byte, length int, fn func(*Packet) error) error {
	if s.opts.DropOnly || len(s.opts.Components) > 0 {
		s.stats.Filtered++
		return nil
	}
	id, isNew := iface(s, s.ndisIfaces, key)
	if id < 0 {
		s.stats.OverLimit++
		return nil
	}
	p := &s.pkt
	*p = Packet{Kind: KindNDIS, Interface: id, NewInterface: isNew, Link: key.link, Time: ev.Time, Data: data,
		OriginalLength: inferLength(key.link, data, length), Length: length, Event: ev,
		LowerIfIndex: key.lower, MiniportIfIndex: miniport}
	kw := ev.Descriptor.Keyword
	switch {
	case kw&catalog.NDISKeywordSendPath != 0:
		p.Direction = DirectionOutbound
	case kw&catalog.NDISKeywordReceivePath != 0:
		p.Direction = DirectionInbound
	}
	if key.vmswitch {
		p.VMSwitch = &s.vms
	} else if m, ok := s.wlan[key.lower]; ok {
		delete(s.wlan, key.lower)
		s.meta = m
		p.WLAN = &s.meta
	}
	return s.give(p, fn)
}

// inferLength returns the original length of an NDIS packet of length
// bytes logged (all fragments): ndiscap does not log the length of the
// packets it truncates, so, as etl2pcapng does, it is taken from the IP
// header when that says more (IPv4 total length, IPv6 payload length +
// 40, plus the 14-byte Ethernet header on Ethernet). Large-send packets
// carry no IP length: the logged length stands.
func inferLength(link Link, data []byte, length int) int {
	ip := data
	hdr := 0
	switch link {
	case LinkEthernet:
		if len(data) < 14 {
			return length
		}
		switch binary.BigEndian.Uint16(data[12:]) {
		case 0x0800, 0x86DD:
		default:
			return length
		}
		ip, hdr = data[14:], 14
	case LinkRawIP:
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
