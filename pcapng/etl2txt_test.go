package pcapng

import (
	"bytes"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/etltest"
)

// etl2txtLine is one packet of pktmon etl2txt's text: the event line and
// the packet summary under it.
type etl2txtLine struct {
	time    time.Time // the machine's local time
	event   string    // "PktGroupId …, LoggedSize 128"
	summary string    // "EC-8E-B5-4A-56-EF > 01-00-5E-7F-FF-FA, ethertype IPv4 …"
}

var (
	txtEvent     = regexp.MustCompile(`^\[\d+\][0-9A-F]{4}\.[0-9A-F]{4}::(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{9}) \[Microsoft-Windows-PktMon\] (PktGroupId .*)$`)
	txtEthernet  = regexp.MustCompile(`^([0-9A-F]{2}(?:-[0-9A-F]{2}){5}) > ([0-9A-F]{2}(?:-[0-9A-F]{2}){5}), ethertype \S+ \(0x([0-9a-f]{4})\), length (\d+): (.*)$`)
	txtWiFi      = regexp.MustCompile(`\b(DA|SA|BSSID):([0-9A-F]{2}(?:-[0-9A-F]{2}){5})`)
	txtAddrs     = regexp.MustCompile(`^(\S+) > (\S+): `)
	txtARPReq    = regexp.MustCompile(`^Request who-has (\S+) tell (\S+), length`)
	txtARPReply  = regexp.MustCompile(`^Reply (\S+) is-at (\S+), length`)
	txtLLCLength = regexp.MustCompile(`, length \d+: (.*)$`)
)

// readEtl2txt reads pktmon etl2txt's UTF-16LE output and returns its
// packets.
func readEtl2txt(t *testing.T, path string) []etl2txtLine {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = uint16(b[2*i]) | uint16(b[2*i+1])<<8
	}
	text := strings.TrimPrefix(string(utf16.Decode(u)), "\uFEFF")
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	var out []etl2txtLine
	for i := 0; i < len(lines); i++ {
		m := txtEvent.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		when, err := time.Parse("2006-01-02 15:04:05.000000000", m[1])
		if err != nil {
			t.Fatal(err)
		}
		l := etl2txtLine{time: when, event: m[2]}
		if i+1 < len(lines) && strings.HasPrefix(lines[i+1], "\t") {
			l.summary = strings.TrimPrefix(lines[i+1], "\t")
			i++
		}
		out = append(out, l)
	}
	return out
}

// mac turns "EC-8E-B5-4A-56-EF" into tshark's "ec:8e:b5:4a:56:ef".
func mac(s string) string { return strings.ToLower(strings.ReplaceAll(s, "-", ":")) }

func sameAddr(a, b string) bool {
	x, err1 := netip.ParseAddr(a)
	y, err2 := netip.ParseAddr(b)
	return err1 == nil && err2 == nil && x == y
}

// pktmon etl2txt's text of the 508f5bc1 capture (PktMon.txt, made on the
// recording machine) and the pcapng of the same capture agree: the same
// packets in the same order, each packet's line equal to its comment
// (pktmon's " , " after mapped values aside), the same original and
// logged sizes, the same time (shifted by the machine's zone), and the
// MAC addresses, IP addresses and ports of every summary line equal to
// what Wireshark dissects from the frame.
func TestCorpusEtl2txt(t *testing.T) {
	dir := filepath.Join(etltest.CorpusDir(t), "nathaniel-security+microsoft-pktmon-VPN-capture-traffic", "history", "508f5bc135c8effceef0879693c6de45f2a92012")
	txt := readEtl2txt(t, filepath.Join(dir, "PktMon.txt"))
	f, err := etl.Open(filepath.Join(dir, "PktMon.etl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out bytes.Buffer
	if _, err := Convert(&out, []*etl.File{f}, nil); err != nil {
		t.Fatal(err)
	}
	pkts, ifaces, _ := readAll(t, out.Bytes())
	if len(txt) != len(pkts) || len(txt) != 3646 {
		t.Fatalf("etl2txt has %d packets, the pcapng %d (want 3646)", len(txt), len(pkts))
	}
	path := writeTemp(t, "508f5bc1.pcapng", out.Bytes())
	fields := []string{"frame.len", "frame.cap_len", "eth.src", "eth.dst", "eth.type", "ip.src", "ip.dst", "ipv6.src", "ipv6.dst",
		"tcp.srcport", "tcp.dstport", "udp.srcport", "udp.dstport", "arp.src.proto_ipv4", "arp.dst.proto_ipv4", "arp.src.hw_mac",
		"wlan.da", "wlan.sa", "wlan.bssid"}
	var rows [][]string
	wireshark := tsharkClean(t, path)
	if wireshark {
		rows = tsharkFields(t, path, fields...)
		if len(rows) != len(pkts) {
			t.Fatalf("tshark reads %d frames, want %d", len(rows), len(pkts))
		}
	}
	col := map[string]int{}
	for i, f := range fields {
		col[f] = i
	}

	// The Ethernet source of each packet group, from its Ethernet
	// appearances, to check the 802.11 source addresses.
	ethSrc := map[uint64]string{}
	for i, p := range pkts {
		if wireshark && ifaces[p.Interface].LinkType == LinkTypeEthernet {
			ethSrc[p.PacketID] = rows[i][col["eth.src"]]
		}
	}

	var offset time.Duration
	var n struct{ lines, sizes, macs, ips, ports, arp, wifi, saMisprinted, saConfirmed, unknown80211 int }
	for i, l := range txt {
		p := pkts[i]
		get := func(f string) string { return rows[i][col[f]] }
		fail := func(what string, got, want any) {
			t.Errorf("packet %d (%s): %s %v, etl2txt says %v\n  %s\n  %s", i+1, p.Comment, what, got, want, l.event, l.summary)
		}
		// The event line: pktmon renders mapped values with a trailing
		// space ("Direction Rx , Type WiFi ,").
		line := strings.TrimSpace(strings.ReplaceAll(l.event, " , ", ", "))
		if line != p.Comment {
			fail("comment", p.Comment, line)
			continue
		}
		n.lines++
		d := p.Time.Sub(l.time)
		if i == 0 {
			offset = d
		} else if d != offset {
			fail("time offset", d, offset)
		}
		orig := regexp.MustCompile(`OriginalSize (\d+), LoggedSize (\d+)$`).FindStringSubmatch(line)
		if strconv.Itoa(p.OriginalLength) != orig[1] || strconv.Itoa(len(p.Data)) != orig[2] ||
			wireshark && (get("frame.len") != orig[1] || get("frame.cap_len") != orig[2]) {
			fail("sizes", strconv.Itoa(p.OriginalLength)+"/"+strconv.Itoa(len(p.Data)), orig[1]+"/"+orig[2])
			continue
		}
		n.sizes++
		if !wireshark {
			continue
		}
		link := ifaces[p.Interface].LinkType
		rest := ""
		switch {
		case l.summary == "unknown 802.11 frame type (3)":
			// Frames pktmon logged as WiFi at a filter's upper edge that
			// hold an Ethernet header: tcpdump cannot read them either.
			if link != LinkTypeIEEE80211 || !strings.Contains(line, "Type WiFi") {
				fail("link type", link, "WiFi")
			}
			n.unknown80211++
			continue
		case txtEthernet.MatchString(l.summary):
			m := txtEthernet.FindStringSubmatch(l.summary)
			if link != LinkTypeEthernet || get("eth.src") != mac(m[1]) || get("eth.dst") != mac(m[2]) || get("eth.type") != "0x0000"+m[3] && get("eth.type") != "0x"+m[3] {
				fail("Ethernet header", get("eth.src")+" > "+get("eth.dst")+" "+get("eth.type"), m[1:4])
				continue
			}
			if m[4] != orig[1] {
				fail("length", m[4], orig[1])
			}
			n.macs++
			rest = m[5]
		case txtWiFi.MatchString(l.summary):
			if link != LinkTypeIEEE80211 {
				fail("link type", link, "WiFi")
				continue
			}
			addr := map[string]string{}
			for _, m := range txtWiFi.FindAllStringSubmatch(l.summary, -1) {
				addr[m[1]] = mac(m[2])
			}
			if get("wlan.da") != addr["DA"] || get("wlan.bssid") != addr["BSSID"] {
				fail("802.11 DA, BSSID", get("wlan.da")+" "+get("wlan.bssid"), addr)
				continue
			}
			if sa := get("wlan.sa"); sa != addr["SA"] {
				// pktmon prints a frame from the distribution system
				// ("DA:… BSSID:… SA:…", FromDS) with its destination as
				// source: the frame's third address (Wireshark's
				// wlan.sa) is the source its Ethernet appearances show.
				if !strings.HasPrefix(l.summary, "DA:") || addr["SA"] != addr["DA"] || ethSrc[p.PacketID] != "" && ethSrc[p.PacketID] != sa {
					fail("802.11 SA", sa, addr["SA"])
					continue
				}
				n.saMisprinted++
				if ethSrc[p.PacketID] == sa {
					n.saConfirmed++
				}
			}
			n.wifi++
			if m := txtLLCLength.FindStringSubmatch(l.summary); m != nil {
				rest = m[1]
			}
		default:
			fail("summary", "", l.summary)
			continue
		}
		switch {
		case rest == "":
		case txtARPReq.MatchString(rest):
			m := txtARPReq.FindStringSubmatch(rest)
			if get("arp.dst.proto_ipv4") != m[1] || get("arp.src.proto_ipv4") != m[2] {
				fail("ARP", get("arp.dst.proto_ipv4")+" "+get("arp.src.proto_ipv4"), m[1:])
			}
			n.arp++
		case txtARPReply.MatchString(rest):
			m := txtARPReply.FindStringSubmatch(rest)
			if get("arp.src.proto_ipv4") != m[1] || get("arp.src.hw_mac") != mac(m[2]) {
				fail("ARP", get("arp.src.proto_ipv4")+" "+get("arp.src.hw_mac"), m[1:])
			}
			n.arp++
		case txtAddrs.MatchString(rest) && !isAddr(txtAddrs.FindStringSubmatch(rest)[1]):
			// "192.168.0.115.51730 > 239.255.255.250.1900: UDP": address.port
			m := txtAddrs.FindStringSubmatch(rest)
			m = append([]string{m[0]}, append(splitPort(m[1]), splitPort(m[2])...)...)
			src, dst := get("ip.src"), get("ip.dst")
			if src == "" {
				src, dst = get("ipv6.src"), get("ipv6.dst")
			}
			sport, dport := get("tcp.srcport"), get("tcp.dstport")
			if sport == "" {
				sport, dport = get("udp.srcport"), get("udp.dstport")
			}
			if !sameAddr(src, m[1]) || !sameAddr(dst, m[3]) {
				fail("addresses", src+" > "+dst, m[1]+" > "+m[3])
				continue
			}
			n.ips++
			if sport != m[2] || dport != m[4] {
				fail("ports", sport+" > "+dport, m[2]+" > "+m[4])
				continue
			}
			n.ports++
		case txtAddrs.MatchString(rest):
			m := txtAddrs.FindStringSubmatch(rest)
			if !sameAddr(get("ip.src"), m[1]) || !sameAddr(get("ip.dst"), m[2]) {
				fail("addresses", get("ip.src")+" > "+get("ip.dst"), m[1]+" > "+m[2])
				continue
			}
			n.ips++
		default:
			fail("unparsed summary", rest, "")
		}
	}
	if offset%time.Minute != 0 {
		t.Errorf("the text's times are %v from the events', not a zone offset", offset)
	}
	t.Logf("%d packets: %d event lines equal to the comments, %d sizes, time offset %v (the machine's zone); summaries: %d Ethernet (MAC pairs), %d 802.11 (DA, BSSID, SA; %d SA misprinted by pktmon, %d of them confirmed by the packet's Ethernet appearance), %d unknown 802.11 frame type; %d IP address pairs, %d port pairs, %d ARP",
		len(txt), n.lines, n.sizes, -offset, n.macs, n.wifi, n.saMisprinted, n.saConfirmed, n.unknown80211, n.ips, n.ports, n.arp)
	if !wireshark {
		t.Skip("the summaries' addresses and ports were not compared: tshark is not installed")
	}
}

func isAddr(s string) bool {
	_, err := netip.ParseAddr(s)
	return err == nil
}

// splitPort splits tcpdump's "address.port".
func splitPort(s string) []string {
	i := strings.LastIndexByte(s, '.')
	if i < 0 {
		return []string{s, ""}
	}
	return []string{s[:i], s[i+1:]}
}
