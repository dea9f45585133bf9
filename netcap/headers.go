package netcap

import (
	"encoding/binary"
	"fmt"
	"net/netip"
	"strconv"
)

// Headers is what [ParseHeaders] reads of a packet's link, network and
// transport headers.
type Headers struct {
	// EtherType is the Ethernet (or 802.11 LLC/SNAP) type of the
	// payload after any VLAN tags: 0x0800 IPv4, 0x86DD IPv6, 0x0806 ARP;
	// 0 when the link layer says none (raw IP, an 802.11 frame that is
	// not data, a header cut short).
	EtherType uint16
	// IPVersion is 4 or 6 when an IP header was read, else 0.
	IPVersion uint8
	// IPProtocol is the transport protocol number (6 TCP, 17 UDP, 1 ICMP,
	// 58 ICMPv6; for IPv6 after the extension headers) when IPVersion is
	// set.
	IPProtocol uint8
	// Src and Dst are the IP addresses (valid when IPVersion is set).
	Src, Dst netip.Addr
	// SrcPort and DstPort are the TCP or UDP ports when HasPorts (not in
	// a fragment after the first).
	SrcPort, DstPort uint16
	HasPorts         bool
}

// Protocol numbers and EtherTypes named by [Headers.Protocol].
const (
	etherIPv4 = 0x0800
	etherARP  = 0x0806
	etherVLAN = 0x8100
	etherQinQ = 0x88A8
	etherIPv6 = 0x86DD

	protoICMP   = 1
	protoTCP    = 6
	protoUDP    = 17
	protoICMPv6 = 58
)

// Protocol names the packet's highest protocol read: "TCP", "UDP",
// "ICMP", "ICMPv6", "IPv4 proto 47", "ARP", "EtherType 0x88CC", or
// "unknown".
func (h *Headers) Protocol() string {
	if h.IPVersion != 0 {
		switch h.IPProtocol {
		case protoTCP:
			return "TCP"
		case protoUDP:
			return "UDP"
		case protoICMP:
			return "ICMP"
		case protoICMPv6:
			return "ICMPv6"
		}
		return "IPv" + strconv.Itoa(int(h.IPVersion)) + " proto " + strconv.Itoa(int(h.IPProtocol))
	}
	switch h.EtherType {
	case 0:
		return "unknown"
	case etherARP:
		return "ARP"
	case etherIPv4, etherIPv6:
		return "IP (header cut short)"
	}
	return fmt.Sprintf("EtherType 0x%04X", h.EtherType)
}

// ParseHeaders reads the headers of a packet that starts with link:
// Ethernet (with up to two VLAN tags), 802.11 data frames (LLC/SNAP) or
// raw IP; then IPv4 or IPv6 (extension headers skipped) and the TCP or
// UDP ports. The bytes are untrusted: every field is read only when the
// packet holds it, and what cannot be read is left zero.
func ParseHeaders(link Link, data []byte) Headers {
	var h Headers
	var ip []byte
	switch link {
	case LinkEthernet:
		if len(data) < 14 {
			return h
		}
		et, off := binary.BigEndian.Uint16(data[12:]), 14
		for i := 0; i < 2 && (et == etherVLAN || et == etherQinQ); i++ {
			if len(data) < off+4 {
				return h
			}
			et, off = binary.BigEndian.Uint16(data[off+2:]), off+4
		}
		h.EtherType, ip = et, data[off:]
	case LinkIEEE80211:
		et, rest, ok := dot11Payload(data)
		if !ok {
			return h
		}
		h.EtherType, ip = et, rest
	case LinkRawIP:
		if len(data) == 0 {
			return h
		}
		switch data[0] >> 4 {
		case 4:
			h.EtherType = etherIPv4
		case 6:
			h.EtherType = etherIPv6
		default:
			return h
		}
		ip = data
	default:
		return h
	}
	var l4 []byte
	first := true
	switch h.EtherType {
	case etherIPv4:
		l4, first = h.ipv4(ip)
	case etherIPv6:
		l4, first = h.ipv6(ip)
	default:
		return h
	}
	if h.IPVersion != 0 && first && (h.IPProtocol == protoTCP || h.IPProtocol == protoUDP) && len(l4) >= 4 {
		h.SrcPort, h.DstPort, h.HasPorts = binary.BigEndian.Uint16(l4), binary.BigEndian.Uint16(l4[2:]), true
	}
	return h
}

// dot11Payload returns the EtherType and payload of an 802.11 data
// frame's LLC/SNAP header.
func dot11Payload(b []byte) (uint16, []byte, bool) {
	if len(b) < 24 {
		return 0, nil, false
	}
	fc0, fc1 := b[0], b[1]
	if fc0>>2&3 != 2 || fc0&0x40 != 0 { // not data, or a null (no body) subtype
		return 0, nil, false
	}
	n := 24
	if fc1&3 == 3 { // ToDS and FromDS: a fourth address
		n += 6
	}
	if fc0&0x80 != 0 { // QoS data
		n += 2
		if fc1&0x80 != 0 { // +HTC
			n += 4
		}
	}
	if len(b) < n+8 {
		return 0, nil, false
	}
	llc := b[n:]
	if llc[0] != 0xAA || llc[1] != 0xAA || llc[2] != 0x03 {
		return 0, nil, false
	}
	return binary.BigEndian.Uint16(llc[6:]), llc[8:], true
}

// ipv4 reads an IPv4 header; it returns the payload and whether this is
// the first (or only) fragment.
func (h *Headers) ipv4(b []byte) ([]byte, bool) {
	if len(b) < 20 || b[0]>>4 != 4 {
		return nil, false
	}
	ihl := int(b[0]&0xF) * 4
	if ihl < 20 || len(b) < ihl {
		return nil, false
	}
	h.IPVersion, h.IPProtocol = 4, b[9]
	h.Src = netip.AddrFrom4([4]byte(b[12:16]))
	h.Dst = netip.AddrFrom4([4]byte(b[16:20]))
	first := binary.BigEndian.Uint16(b[6:])&0x1FFF == 0
	return b[ihl:], first
}

// maxIPv6Extensions bounds the extension headers walked.
const maxIPv6Extensions = 8

// ipv6 reads an IPv6 header and its extension headers; it returns the
// payload and whether this is the first (or only) fragment.
func (h *Headers) ipv6(b []byte) ([]byte, bool) {
	if len(b) < 40 || b[0]>>4 != 6 {
		return nil, false
	}
	h.IPVersion = 6
	h.Src = netip.AddrFrom16([16]byte(b[8:24]))
	h.Dst = netip.AddrFrom16([16]byte(b[24:40]))
	next, rest, first := b[6], b[40:], true
	for range maxIPv6Extensions {
		var n int
		switch next {
		case 0, 43, 60: // hop-by-hop, routing, destination options
			if len(rest) < 2 {
				h.IPProtocol = next
				return nil, false
			}
			n = (int(rest[1]) + 1) * 8
		case 44: // fragment
			if len(rest) < 8 {
				h.IPProtocol = next
				return nil, false
			}
			n = 8
			first = binary.BigEndian.Uint16(rest[2:])&0xFFF8 == 0
		case 51: // authentication header
			if len(rest) < 2 {
				h.IPProtocol = next
				return nil, false
			}
			n = (int(rest[1]) + 2) * 4
		default:
			h.IPProtocol = next
			return rest, first
		}
		if len(rest) < n {
			h.IPProtocol = next
			return nil, false
		}
		next, rest = rest[0], rest[n:]
	}
	h.IPProtocol = next
	return nil, false
}
