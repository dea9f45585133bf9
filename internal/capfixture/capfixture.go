// Package capfixture writes packet-capture traces through the ETW session
// emulator (package session) for the tests of package pcapng and of the
// command line: NDIS packet captures (Microsoft-Windows-NDIS-PacketCapture,
// what "netsh trace start capture=yes" records), of which no real file is
// at hand, and PktMon events in a trace that carries no PktMon schema.
// Payloads follow the provider's public field lists (see package catalog,
// ndiscap.go, and PktMon's manifest); the files are deterministic.
package capfixture

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"unicode/utf16"

	"github.com/google/uuid"

	"github.com/etwkit/etw/catalog"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/session"
)

// PktMonGUID is Microsoft-Windows-PktMon's provider GUID.
var PktMonGUID = catalog.PktMonGUID

// Want is a packet a converter must write for the fixture, in order.
type Want struct {
	What      string // what the packet covers
	Interface string // if_name
	LinkType  uint16
	Data      []byte // the frame as it must be written
	Original  int    // original length
	Direction int    // epb_flags direction: 0 unknown, 1 in, 2 out
	Comment   string // the whole comment
	Drop      bool
	PacketID  uint64 // 0: none
}

// Fixture is a written trace and what it holds.
type Fixture struct {
	ETL []byte
	// Packets are the packets of a conversion with the default options
	// (no PktMon drops), in order; Drops the PktMon drops.
	Packets, Drops []Want
	// Incomplete is the number of NDIS packets whose fragments do not
	// all arrive; Unsupported the PktMon packets of a type with no link
	// type.
	Incomplete, Unsupported int
}

// Frames used by the fixture.
var (
	macA = []byte{0x00, 0x15, 0x5d, 0x01, 0x02, 0x03}
	macB = []byte{0x3c, 0x84, 0x6a, 0x01, 0xea, 0x8b}
)

// ethernet returns an Ethernet II frame.
func ethernet(dst, src []byte, etherType uint16, payload []byte) []byte {
	b := append(append(append([]byte(nil), dst...), src...), byte(etherType>>8), byte(etherType))
	return append(b, payload...)
}

// ipv4UDP returns an IPv4 UDP datagram (checksums zero) whose total
// length field says totalLen (0: its real length).
func ipv4UDP(src, dst [4]byte, sport, dport uint16, data []byte, totalLen int) []byte {
	n := 28 + len(data)
	if totalLen == 0 {
		totalLen = n
	}
	b := []byte{0x45, 0, byte(totalLen >> 8), byte(totalLen), 0, 1, 0, 0, 64, 17, 0, 0}
	b = append(b, src[:]...)
	b = append(b, dst[:]...)
	b = binary.BigEndian.AppendUint16(b, sport)
	b = binary.BigEndian.AppendUint16(b, dport)
	b = binary.BigEndian.AppendUint16(b, uint16(8+len(data)))
	b = append(b, 0, 0)
	return append(b, data...)
}

// ipv6TCP returns an IPv6 TCP SYN segment (checksum zero).
func ipv6TCP(src, dst [16]byte, sport, dport uint16) []byte {
	tcp := binary.BigEndian.AppendUint16(nil, sport)
	tcp = binary.BigEndian.AppendUint16(tcp, dport)
	tcp = append(tcp, 0, 0, 0, 1, 0, 0, 0, 0, 0x50, 0x02, 0xff, 0xff, 0, 0, 0, 0)
	b := []byte{0x60, 0, 0, 0, 0, byte(len(tcp)), 6, 64}
	b = append(b, src[:]...)
	b = append(b, dst[:]...)
	return append(b, tcp...)
}

func bytesN(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = seed + byte(i)
	}
	return b
}

// Payload encoding.
type payload []byte

func (p payload) u8(v uint8) payload     { return append(p, v) }
func (p payload) u16(v uint16) payload   { return binary.LittleEndian.AppendUint16(p, v) }
func (p payload) u32(v uint32) payload   { return binary.LittleEndian.AppendUint32(p, v) }
func (p payload) u64(v uint64) payload   { return binary.LittleEndian.AppendUint64(p, v) }
func (p payload) bytes(b []byte) payload { return append(p, b...) }
func (p payload) ptr(v uint64, is32 bool) payload {
	if is32 {
		return p.u32(uint32(v))
	}
	return p.u64(v)
}
func (p payload) str(s string) payload {
	for _, u := range utf16.Encode([]rune(s)) {
		p = p.u16(u)
	}
	return p.u16(0)
}

// fragment is the payload of event 1001.
func fragment(miniport, lower uint32, frag []byte, gft bool) []byte {
	p := payload(nil).u32(miniport).u32(lower).u32(uint32(len(frag)))
	p = append(p, frag...)
	if gft {
		p = p.u64(0).u64(0)
	}
	return p
}

// NDIS keywords.
const (
	kwStart = catalog.NDISKeywordPacketStart
	kwEnd   = catalog.NDISKeywordPacketEnd
	kwWhole = kwStart | kwEnd
	kwSend  = catalog.NDISKeywordSendPath
	kwRecv  = catalog.NDISKeywordReceivePath
	kwBase  = 0x60000000000 // the events' own keywords
)

// writer writes the fixture's events.
type writer struct {
	sys  *session.System
	ndis *session.Provider
	pkt  *session.Provider
	is32 bool
	err  error
}

func (w *writer) event(p *session.Provider, ctx *session.Context, id uint16, kw uint64, data []byte) {
	if w.err != nil {
		return
	}
	w.sys.Advance(10) // 1 µs
	if err := p.Write(ctx, etl.EventDescriptor{ID: id, Level: 4, Keyword: kw}, data); err != nil {
		w.err = fmt.Errorf("event %d: %w", id, err)
	}
}

var (
	kernel = &session.Context{ProcessID: 4, ThreadID: 100}
	other  = &session.Context{ProcessID: 4, ThreadID: 200}
	app    = &session.Context{ProcessID: 4242, ThreadID: 4343}
)

// NDIS writes a trace of NDIS packet-capture events (and PktMon events
// without their schema) with 64-bit or 32-bit payloads, and says what
// converting it must give.
func NDIS(is32 bool) (*Fixture, error) {
	fs := &session.MemFS{}
	sys := session.New(&session.Options{Processors: 2})
	s, err := sys.StartSession("ndiscap", &session.SessionOptions{Create: fs.Create, BufferSize: 8192, Is32Bit: is32, MaximumBuffers: 64})
	if err != nil {
		return nil, err
	}
	for _, g := range []uuid.UUID{catalog.NDISPacketCaptureGUID, PktMonGUID} {
		if err := s.Enable(g, 0, 0, 0); err != nil {
			return nil, err
		}
	}
	w := &writer{sys: sys, is32: is32}
	opts := &session.ProviderOptions{Is32Bit: is32}
	if w.ndis, err = sys.RegisterProvider(catalog.NDISPacketCaptureGUID, session.Manifest, opts); err != nil {
		return nil, err
	}
	if w.pkt, err = sys.RegisterProvider(PktMonGUID, session.Manifest, opts); err != nil {
		return nil, err
	}
	fx := &Fixture{}
	w.write(fx)
	if w.err != nil {
		return nil, w.err
	}
	if err := s.Stop(); err != nil {
		return nil, err
	}
	fx.ETL = fs.Bytes("ndiscap.etl")
	return fx, nil
}

func pid(ctx *session.Context) string {
	return fmt.Sprintf("PID=%d TID=%d", ctx.ProcessID, ctx.ThreadID)
}

func (w *writer) write(fx *Fixture) {
	add := func(wnt Want) { fx.Packets = append(fx.Packets, wnt) }
	ip4a, ip4b := [4]byte{192, 168, 0, 115}, [4]byte{239, 255, 255, 250}
	var ip6a, ip6b [16]byte
	ip6a[0], ip6a[1], ip6a[15] = 0xfe, 0x80, 1
	ip6b[0], ip6b[1], ip6b[15] = 0xfe, 0x80, 2

	// 1. A received Ethernet frame, whole in one event, on a miniport
	// (LowerIfIndex = MiniportIfIndex), with the Gft fields of newer
	// Windows versions.
	a := ethernet(macB, macA, 0x0800, ipv4UDP(ip4a, ip4b, 51730, 1900, []byte("M-SEARCH * HTTP/1.1\r\n"), 0))
	w.event(w.ndis, kernel, 1001, kwBase|kwWhole|kwRecv|catalog.NDISKeywordEthernet, fragment(5, 5, a, true))
	add(Want{What: "whole received frame", Interface: "eth:5:0", LinkType: 1, Data: a, Original: len(a), Direction: 1, Comment: pid(kernel)})

	// 2. A sent IPv6 frame seen by a filter over the miniport, without
	// the Gft fields (older Windows).
	b := ethernet(macA, macB, 0x86DD, ipv6TCP(ip6a, ip6b, 50000, 443))
	w.event(w.ndis, other, 1001, kwBase|kwWhole|kwSend, fragment(5, 7, b, false))
	add(Want{What: "sent frame on a filter", Interface: "eth:7:0", LinkType: 1, Data: b, Original: len(b), Direction: 2, Comment: pid(other)})

	// 3. A frame in three fragments (Windows before 8.1).
	c := ethernet(macB, macA, 0x0800, ipv4UDP(ip4a, ip4b, 1, 2, bytesN(48, 0x30), 0))
	w.event(w.ndis, kernel, 1001, kwBase|kwStart|kwRecv, fragment(5, 5, c[:20], true))
	w.event(w.ndis, kernel, 1001, kwBase|kwRecv, fragment(5, 5, c[20:40], true))
	w.event(w.ndis, kernel, 1001, kwBase|kwEnd|kwRecv, fragment(5, 5, c[40:], true))
	add(Want{What: "frame of three fragments", Interface: "eth:5:0", LinkType: 1, Data: c, Original: len(c), Direction: 1, Comment: pid(kernel)})

	// 4. A packet that a new one interrupts before its end: given up.
	d := ethernet(macB, macA, 0x0800, ipv4UDP(ip4a, ip4b, 3, 4, bytesN(30, 0x40), 0))
	w.event(w.ndis, kernel, 1001, kwBase|kwStart|kwRecv, fragment(5, 5, d[:25], true))
	e := ethernet(macB, macA, 0x0800, ipv4UDP(ip4a, ip4b, 5, 6, bytesN(10, 0x50), 0))
	w.event(w.ndis, kernel, 1001, kwBase|kwWhole|kwRecv, fragment(5, 5, e, true))
	fx.Incomplete++
	add(Want{What: "frame after an interrupted one", Interface: "eth:5:0", LinkType: 1, Data: e, Original: len(e), Direction: 1, Comment: pid(kernel)})

	// 5. A packet whose start is missing (a middle and an end
	// fragment), then a whole frame on the same interface from another
	// thread: the orphan is given up, its end with it; then an end
	// fragment alone, given up too.
	w.event(w.ndis, other, 1001, kwBase|kwSend, fragment(5, 7, bytesN(17, 0x60), false))
	w.event(w.ndis, other, 1001, kwBase|kwEnd|kwSend, fragment(5, 7, bytesN(9, 0x68), false))
	f := ethernet(macA, macB, 0x0806, bytesN(28, 0x70))
	w.event(w.ndis, kernel, 1001, kwBase|kwWhole|kwSend, fragment(5, 7, f, false))
	fx.Incomplete++
	add(Want{What: "frame after an orphan packet", Interface: "eth:7:0", LinkType: 1, Data: f, Original: len(f), Direction: 2, Comment: pid(kernel)})
	w.event(w.ndis, kernel, 1001, kwBase|kwEnd|kwRecv, fragment(5, 5, bytesN(40, 0x78), true))
	fx.Incomplete++

	// 6. A truncated frame (netsh trace ... packettruncatebytes=64): the
	// original length comes from the IPv4 total length (1500) + 14.
	full := ethernet(macB, macA, 0x0800, ipv4UDP(ip4a, ip4b, 7, 8, bytesN(200, 0x80), 1500))
	g := full[:64]
	w.event(w.ndis, kernel, 1001, kwBase|kwWhole|kwRecv|catalog.NDISKeywordTruncated, fragment(5, 5, g, true))
	add(Want{What: "truncated frame", Interface: "eth:5:0", LinkType: 1, Data: g, Original: 1514, Direction: 1, Comment: pid(kernel)})

	// 7. 802.11 receive metadata, then a native 802.11 frame logged
	// decrypted with the Protected bit set: written with it cleared,
	// with the metadata as comment.
	meta := payload(nil).u8(0x80).u8(1).u16(48).u32(0x2).u32(7).u32(2437).u16(1).u16(0)
	meta = meta.u32(uint32(0xFFFFFFD8)).u8(130).u8(0).u16(0).u32(0)
	meta = meta.u64(0).u64(0x0102030405060708) // pvMediaSpecificInfo (8 bytes with its padding on 32-bit), ullTimestamp
	w.event(w.ndis, kernel, 1002, kwBase, payload(nil).u32(9).u32(9).u32(uint32(len(meta))).bytes(meta))
	wifi := append([]byte{0x08, 0x42, 0, 0}, macB...)
	wifi = append(append(append(wifi, macA...), macB...), 0x10, 0)
	wifi = append(wifi, 0xAA, 0xAA, 0x03, 0, 0, 0, 0x08, 0x00)
	wifi = append(wifi, ipv4UDP(ip4b, ip4a, 1900, 51730, []byte("hi"), 0)...)
	w.event(w.ndis, kernel, 1001, kwBase|kwWhole|kwRecv|catalog.NDISKeywordNative80211, fragment(9, 9, wifi, true))
	clearWifi := append([]byte(nil), wifi...)
	clearWifi[1] &^= 0x40
	add(Want{What: "802.11 frame with metadata", Interface: "wifi:9", LinkType: 105, Data: clearWifi, Original: len(wifi), Direction: 1,
		Comment: pid(kernel) + " Packet Metadata: ReceiveFlags:0x2, PhyType:802.11n, CenterCh:2437, NumMPDUsReceived:1, RSSI:-40, DataRate:130"})

	// 8. Mobile broadband: raw IPv4 and IPv6 packets.
	h := ipv4UDP(ip4a, ip4b, 9, 10, bytesN(12, 0x90), 0)
	w.event(w.ndis, app, 1001, kwBase|kwWhole|kwSend|catalog.NDISKeywordWirelessWAN, fragment(11, 11, h, true))
	add(Want{What: "raw IPv4 (WirelessWAN)", Interface: "mbb:11", LinkType: 101, Data: h, Original: len(h), Direction: 2, Comment: pid(app)})
	i6 := ipv6TCP(ip6b, ip6a, 443, 50000)
	w.event(w.ndis, app, 1001, kwBase|kwWhole|kwRecv|catalog.NDISKeywordWirelessWAN, fragment(11, 11, i6, true))
	add(Want{What: "raw IPv6 (WirelessWAN)", Interface: "mbb:11", LinkType: 101, Data: i6, Original: len(i6), Direction: 1, Comment: pid(app)})

	// 9. Hyper-V switch: a frame from a VM's port, VLAN 42 and an RSS hash
	// in the out-of-band data, two destinations.
	j := ethernet([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, macA, 0x0806, bytesN(28, 0xA0))
	oob := payload(nil)
	for slot := range 16 {
		var v uint64
		switch slot {
		case 4:
			v = 42<<4 | 5 // VlanId 42, priority 5
		case 8:
			v = 0xdeadbeef
		}
		oob = oob.ptr(v, w.is32)
	}
	vms := payload(nil).u32(3).u32(3).u32(0x77).str("PortA").str("vm-one").str("Synthetic").u32(2).u64(0).u64(0)
	vms = vms.u32(uint32(len(j))).bytes(j).u32(uint32(len(oob))).bytes(oob)
	w.event(w.ndis, kernel, 1003, kwBase|kwWhole|kwSend|catalog.NDISKeywordVMSwitch, vms)
	add(Want{What: "Hyper-V switch frame", Interface: "vNIC:Synthetic:PortA:3:42", LinkType: 1, Data: j, Original: len(j), Direction: 2,
		Comment: pid(kernel) + " VlanId=42 SrcPortId=119 SrcNicType=Synthetic SrcNicName=vm-one SrcPortName=PortA DstNicCount=2 HashValue=deadbeef"})

	// 10. PktMon events in a trace without PktMon's schema: a flow, a
	// drop, a duplicate drop, a short IPv4 flow, an HTTP packet (no
	// link type), then the component list, as pktmon logs it at the end.
	k := ethernet(macB, macA, 0x0800, ipv4UDP(ip4a, ip4b, 11, 12, bytesN(20, 0xB0), 0))
	w.event(w.pkt, kernel, 160, 0x10, pktmonPacket(0x2000000000001, 1, 1, 3, 1, 7, 1, 0, 0, 0, k, len(k)+100))
	fx.Packets = append(fx.Packets, Want{What: "PktMon flow", Interface: "e1i68x64.sys", LinkType: 1, Data: k, Original: len(k) + 100, Direction: 1,
		Comment:  fmt.Sprintf("PktGroupId %d, PktNumber 1, Appearance 1, Direction Rx, Type Ethernet, Component 7, Edge 1, Filter 0, OriginalSize %d, LoggedSize %d", 0x2000000000001, len(k)+100, len(k)),
		PacketID: 0x2000000000001})
	l := ipv4UDP(ip4a, ip4b, 13, 14, bytesN(8, 0xC0), 0)
	w.event(w.pkt, kernel, 170, 0x10, pktmonPacket(0x2000000000002, 1, 2, 3, 3, 101, 0, 0, 8, 0xE0004500, l, len(l)))
	fx.Drops = append(fx.Drops, Want{What: "PktMon drop", Interface: "tcpip.sys", LinkType: 101, Data: l, Original: len(l), Direction: 1, Drop: true,
		Comment:  fmt.Sprintf("Drop: PktGroupId %d, PktNumber 1, Appearance 2, Direction Rx, Type IP, Component 101, Filter 0, DropReason 8, DropLocation 0xE0004500, OriginalSize %d, LoggedSize %d", 0x2000000000002, len(l), len(l)),
		PacketID: 0x2000000000002})
	w.event(w.pkt, kernel, 240, 0x10, pktmonPacket(0x2000000000002, 1, 3, 3, 3, 101, 0, 0, 8, 0xE0004500, l, len(l)))
	fx.Drops = append(fx.Drops, Want{What: "PktMon duplicate drop", Interface: "tcpip.sys", LinkType: 101, Data: l, Original: len(l), Direction: 1, Drop: true,
		Comment:  fmt.Sprintf("Duplicate Drop: PktGroupId %d, PktNumber 1, Appearance 3, Direction Rx, Type IP, Component 101, Filter 0, DropReason 8, DropLocation 0xE0004500, OriginalSize %d, LoggedSize %d", 0x2000000000002, len(l), len(l)),
		PacketID: 0x2000000000002})
	m := ipv4UDP(ip4b, ip4a, 15, 16, bytesN(4, 0xD0), 0)
	short := payload(nil).u16(4).u16(3).u16(101).u16(2).u16(0).u32(0).u32(0).bytes(ip4a[:]).bytes(ip4b[:]).u8(17).u16(16).u16(15)
	short = short.u16(uint16(len(m))).u16(uint16(len(m))).bytes(m)
	w.event(w.pkt, app, 200, 0x10, short)
	fx.Packets = append(fx.Packets, Want{What: "PktMon short IPv4 flow", Interface: "tcpip.sys", LinkType: 101, Data: m, Original: len(m), Direction: 2,
		Comment: fmt.Sprintf("Direction Tx, Type IP, Component 101, Edge 2, Filter 0, OriginalSize %d, LoggedSize %d", len(m), len(m))})
	w.event(w.pkt, kernel, 160, 0x10, pktmonPacket(0x2000000000003, 1, 1, 4, 4, 760, 1, 0, 0, 0, []byte("GET / HTTP/1.1\r\n\r\n"), 18))
	fx.Unsupported++
	w.event(w.pkt, other, 20, 0x2, payload(nil).u16(7).u16(2).str("e1i68x64.sys").str("Intel(R) Ethernet Connection"))
	w.event(w.pkt, other, 20, 0x2, payload(nil).u16(101).u16(11).str("tcpip.sys").str("TCP/IPv4 - L3/L4"))
	w.event(w.pkt, other, 70, 0x2, payload(nil).u16(7).u16(6).u32(6).bytes(macA))
	w.event(w.pkt, other, 65, 0x2, payload(nil).u16(7).u16(13).bytes([]byte{10, 0, 0, 5}))
	w.event(w.pkt, other, 66, 0x2, payload(nil).u16(7).u16(13).bytes(ip6a[:]))
	w.event(w.pkt, other, 30, 0x2, payload(nil).u16(7).u16(1).u32(14))

	// 11. The trace ends in the middle of a packet.
	w.event(w.ndis, app, 1001, kwBase|kwStart|kwSend|catalog.NDISKeywordWirelessWAN, fragment(11, 11, h[:10], true))
	fx.Incomplete++
}

// pktmonPacket is the payload of PktMon events 160, 170 and 240.
func pktmonPacket(group uint64, num, appearance, dir, ptype, comp, edge, filter uint16, reason, location uint32, data []byte, orig int) []byte {
	p := payload(nil).u64(group).u16(num).u16(appearance).u16(dir).u16(ptype).u16(comp).u16(edge).u16(filter)
	p = p.u32(reason).u32(location).u16(uint16(orig)).u16(uint16(len(data)))
	return append(p, data...)
}

// Stream writes n whole Ethernet frames of NDIS packet capture, of
// growing sizes, in 4 KiB buffers on two processors: a trace of many
// buffers, for the damaged-input tests and benchmarks. Frame i carries
// i in its first payload bytes.
func Stream(n, size int) ([]byte, error) {
	fs := &session.MemFS{}
	cpu := 0
	sys := session.New(&session.Options{Processors: 2, CPU: func() uint16 { cpu++; return uint16(cpu % 2) }})
	s, err := sys.StartSession("stream", &session.SessionOptions{Create: fs.Create, BufferSize: 4096, MaximumBuffers: 64})
	if err != nil {
		return nil, err
	}
	if err := s.Enable(catalog.NDISPacketCaptureGUID, 0, 0, 0); err != nil {
		return nil, err
	}
	p, err := sys.RegisterProvider(catalog.NDISPacketCaptureGUID, session.Manifest, nil)
	if err != nil {
		return nil, err
	}
	ip4a, ip4b := [4]byte{10, 0, 0, 1}, [4]byte{10, 0, 0, 2}
	for i := range n {
		data := binary.BigEndian.AppendUint32(nil, uint32(i))
		data = append(data, bytes.Repeat([]byte{byte(i)}, max(size-46, 0))...)
		frame := ethernet(macB, macA, 0x0800, ipv4UDP(ip4a, ip4b, 1000, 2000, data, 0))
		sys.Advance(10)
		if err := p.Write(kernel, etl.EventDescriptor{ID: 1001, Level: 4, Keyword: kwBase | kwWhole | kwRecv}, fragment(5, 5, frame, true)); err != nil {
			return nil, err
		}
	}
	if err := s.Stop(); err != nil {
		return nil, err
	}
	return fs.Bytes("stream.etl"), nil
}
