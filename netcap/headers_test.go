package netcap

import (
	"encoding/binary"
	"net/netip"
	"testing"
)

// ipv4Packet returns an IPv4 header (20 bytes) for proto from src to dst
// followed by payload.
func ipv4Packet(proto byte, src, dst [4]byte, fragOff uint16, payload []byte) []byte {
	b := make([]byte, 20, 20+len(payload))
	b[0] = 0x45
	binary.BigEndian.PutUint16(b[2:], uint16(20+len(payload)))
	binary.BigEndian.PutUint16(b[6:], fragOff)
	b[8], b[9] = 64, proto
	copy(b[12:], src[:])
	copy(b[16:], dst[:])
	return append(b, payload...)
}

func ports(src, dst uint16) []byte {
	b := make([]byte, 8)
	binary.BigEndian.PutUint16(b, src)
	binary.BigEndian.PutUint16(b[2:], dst)
	return b
}

func ether(et uint16, tags int, payload []byte) []byte {
	b := make([]byte, 12)
	for range tags {
		b = binary.BigEndian.AppendUint16(b, etherVLAN)
		b = binary.BigEndian.AppendUint16(b, 7)
	}
	b = binary.BigEndian.AppendUint16(b, et)
	return append(b, payload...)
}

func TestParseHeaders(t *testing.T) {
	a, b := [4]byte{10, 0, 0, 1}, [4]byte{192, 168, 1, 2}
	tcp4 := ipv4Packet(protoTCP, a, b, 0, ports(49152, 443))
	v6 := make([]byte, 40)
	v6[0], v6[6] = 0x60, 60 // destination options, then UDP
	v6[8], v6[39] = 0xFE, 1
	v6 = append(v6, protoUDP, 0, 0, 0, 0, 0, 0, 0) // 8-byte extension
	v6 = append(v6, ports(53, 5353)...)
	dot11 := make([]byte, 26) // QoS data frame, ToDS
	dot11[0], dot11[1] = 0x88, 0x01
	dot11 = append(dot11, 0xAA, 0xAA, 0x03, 0, 0, 0, 0x08, 0x00)
	dot11 = append(dot11, ipv4Packet(protoUDP, a, b, 0, ports(68, 67))...)
	for _, c := range []struct {
		name         string
		link         Link
		data         []byte
		proto        string
		src, dst     string
		sport, dport uint16
		ports        bool
	}{
		{"ethernet tcp", LinkEthernet, ether(etherIPv4, 0, tcp4), "TCP", "10.0.0.1", "192.168.1.2", 49152, 443, true},
		{"vlan tcp", LinkEthernet, ether(etherIPv4, 2, tcp4), "TCP", "10.0.0.1", "192.168.1.2", 49152, 443, true},
		{"raw tcp", LinkRawIP, tcp4, "TCP", "10.0.0.1", "192.168.1.2", 49152, 443, true},
		{"later fragment", LinkRawIP, ipv4Packet(protoUDP, a, b, 100, ports(1, 2)), "UDP", "10.0.0.1", "192.168.1.2", 0, 0, false},
		{"ipv6 ext udp", LinkEthernet, ether(etherIPv6, 0, v6), "UDP", "fe00::", "::1", 53, 5353, true},
		{"802.11 qos udp", LinkIEEE80211, dot11, "UDP", "10.0.0.1", "192.168.1.2", 68, 67, true},
		{"arp", LinkEthernet, ether(etherARP, 0, make([]byte, 28)), "ARP", "invalid IP", "invalid IP", 0, 0, false},
		{"lldp", LinkEthernet, ether(0x88CC, 0, nil), "EtherType 0x88CC", "invalid IP", "invalid IP", 0, 0, false},
		{"cut ip", LinkEthernet, ether(etherIPv4, 0, tcp4[:19]), "IP (header cut short)", "invalid IP", "invalid IP", 0, 0, false},
		{"cut ports", LinkRawIP, tcp4[:22], "TCP", "10.0.0.1", "192.168.1.2", 0, 0, false},
		{"short ethernet", LinkEthernet, make([]byte, 13), "unknown", "invalid IP", "invalid IP", 0, 0, false},
		{"icmp", LinkRawIP, ipv4Packet(protoICMP, a, b, 0, nil), "ICMP", "10.0.0.1", "192.168.1.2", 0, 0, false},
		{"gre", LinkRawIP, ipv4Packet(47, a, b, 0, nil), "IPv4 proto 47", "10.0.0.1", "192.168.1.2", 0, 0, false},
	} {
		h := ParseHeaders(c.link, c.data)
		if h.Protocol() != c.proto || h.Src.String() != c.src || h.Dst.String() != c.dst ||
			h.HasPorts != c.ports || h.SrcPort != c.sport || h.DstPort != c.dport {
			t.Errorf("%s: %+v (%s), want %s %s→%s %d→%d ports %v", c.name, h, h.Protocol(), c.proto, c.src, c.dst, c.sport, c.dport, c.ports)
		}
	}
}

// FuzzParseHeaders: any bytes, any link: no panic, and what is reported
// is consistent (ports only over TCP or UDP of a parsed IP header, whose
// addresses have the header's version).
func FuzzParseHeaders(f *testing.F) {
	a, b := [4]byte{10, 0, 0, 1}, [4]byte{10, 0, 0, 2}
	f.Add(uint8(LinkEthernet), ether(etherIPv4, 1, ipv4Packet(protoTCP, a, b, 0, ports(1, 2))))
	f.Add(uint8(LinkRawIP), ipv4Packet(protoUDP, a, b, 0, ports(1, 2)))
	f.Add(uint8(LinkIEEE80211), append(append(make([]byte, 24), 0xAA, 0xAA, 3, 0, 0, 0, 0x86, 0xDD), make([]byte, 48)...))
	f.Fuzz(func(t *testing.T, link uint8, data []byte) {
		h := ParseHeaders(Link(link), data)
		if h.HasPorts && (h.IPVersion == 0 || h.IPProtocol != protoTCP && h.IPProtocol != protoUDP) {
			t.Fatalf("ports without TCP/UDP: %+v", h)
		}
		if h.IPVersion == 4 && (!h.Src.Is4() || !h.Dst.Is4()) || h.IPVersion == 6 && (!h.Src.Is6() || !h.Dst.Is6()) {
			t.Fatalf("addresses of another version: %+v", h)
		}
		if h.IPVersion == 0 && (h.Src != netip.Addr{} || h.HasPorts) {
			t.Fatalf("addresses without IP: %+v", h)
		}
		_ = h.Protocol()
	})
}
