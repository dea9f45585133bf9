package pcapng

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net/netip"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// readAll reads every packet of a pcapng stream with the package's
// Reader (which checks the framing strictly), copying the data.
func readAll(t testing.TB, b []byte) ([]Packet, []Interface, SectionOptions) {
	t.Helper()
	r := NewReader(bytes.NewReader(b))
	var pkts []Packet
	for {
		p, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("reading back: %v", err)
		}
		q := *p
		q.Data = append([]byte(nil), p.Data...)
		pkts = append(pkts, q)
	}
	return pkts, r.Interfaces(), r.Section
}

func writeTemp(t testing.TB, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// A section with interfaces and packets using every option the writer
// writes reads back identically, with this package's reader and with
// tshark.
func TestWriterRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, &SectionOptions{Application: "etwkit test", OS: "Linux", Hardware: "x86_64", Comment: "section"})
	if err != nil {
		t.Fatal(err)
	}
	eth := Interface{LinkType: LinkTypeEthernet, Name: "eth:5:0", Description: "LWF over IfIndex 5", MAC: []byte{0, 0x15, 0x5d, 1, 2, 3},
		Addresses: []netip.Prefix{netip.MustParsePrefix("192.168.0.115/24"), netip.MustParsePrefix("fe80::1/64")},
		Hardware:  "Intel(R) Ethernet", OS: "Windows", Comment: "interface comment"}
	wifi := Interface{LinkType: LinkTypeIEEE80211, Name: "wifi:9", SnapLen: 100}
	raw := Interface{LinkType: LinkTypeRaw}
	for i, ifc := range []*Interface{&eth, &wifi, &raw} {
		if id, err := w.AddInterface(ifc); err != nil || id != i {
			t.Fatalf("interface %d: id %d, %v", i, id, err)
		}
	}
	when := time.Date(2021, 6, 1, 16, 10, 57, 976239700, time.UTC)
	frame := bytes.Repeat([]byte{0xAB}, 61) // odd length: padding
	pkts := []Packet{
		{Interface: 0, Time: when, Data: frame, OriginalLength: 179, Direction: DirectionInbound, Comment: "PktGroupId 1, Direction Rx",
			PacketID: 562949953421313, HasPacketID: true},
		{Interface: 1, Time: when.Add(100), Data: bytes.Repeat([]byte{1}, 150), Direction: DirectionOutbound, Verdicts: XDPDrop},
		{Interface: 2, Time: when.Add(time.Hour), Data: []byte{0x45, 0, 0, 20}, Comment: "ü ünicode"},
		{Interface: 0, Time: time.Date(1960, 1, 1, 0, 0, 0, 0, time.UTC), Data: nil},
	}
	for i := range pkts {
		if err := w.WritePacket(&pkts[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.WritePacket(&Packet{Interface: 3}); !errors.Is(err, ErrUnknownInterface) {
		t.Errorf("packet of an unknown interface: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if w.Packets() != 4 || w.Interfaces() != 3 {
		t.Errorf("counts %d packets %d interfaces", w.Packets(), w.Interfaces())
	}
	if buf.Len()%4 != 0 {
		t.Errorf("stream of %d bytes, not a multiple of 4", buf.Len())
	}

	got, ifaces, sec := readAll(t, buf.Bytes())
	if sec != (SectionOptions{Application: "etwkit test", OS: "Linux", Hardware: "x86_64", Comment: "section"}) {
		t.Errorf("section %+v", sec)
	}
	eth.SnapLen, eth.TSResol = MaxCaptureLength, TSResol
	wifi.TSResol = TSResol
	raw.SnapLen, raw.TSResol = MaxCaptureLength, TSResol
	if !reflect.DeepEqual(ifaces, []Interface{eth, wifi, raw}) {
		t.Errorf("interfaces:\n%+v\nwant\n%+v", ifaces, []Interface{eth, wifi, raw})
	}
	want := pkts
	want[1].Data = want[1].Data[:100] // the interface's snap length
	want[1].OriginalLength = 150
	want[2].OriginalLength = 4
	want[3].Time, want[3].Data = time.Unix(0, 0).UTC(), []byte{}
	for i := range want {
		g, w := got[i], want[i]
		if g.Interface != w.Interface || !g.Time.Equal(w.Time) || !bytes.Equal(g.Data, w.Data) || g.OriginalLength != max(w.OriginalLength, len(w.Data)) ||
			g.Direction != w.Direction || g.Comment != w.Comment || g.PacketID != w.PacketID || g.HasPacketID != w.HasPacketID ||
			!reflect.DeepEqual(g.Verdicts, w.Verdicts) {
			t.Errorf("packet %d:\n%+v\nwant\n%+v", i, g, w)
		}
	}

	path := writeTemp(t, "roundtrip.pcapng", buf.Bytes())
	if !tsharkClean(t, path) {
		return
	}
	rows := tsharkFields(t, path, "frame.interface_name", "frame.len", "frame.cap_len", "frame.time_epoch",
		"frame.packet_flags_direction", "frame.comment", "frame.packet_id", "frame.verdict.ebpf_xdp", "frame.interface_description")
	wantRows := [][]string{
		{"eth:5:0", "179", "61", "1622563857.976239700", "0x00000001", "PktGroupId 1, Direction Rx", "562949953421313", "", "LWF over IfIndex 5"},
		{"wifi:9", "150", "100", "1622563857.976239800", "0x00000002", "", "", "1", ""},
		{"unknown", "4", "4", "1622567457.976239700", "", "ü ünicode", "", "", ""},
		{"eth:5:0", "0", "0", "0.000000000", "", "", "", "", "LWF over IfIndex 5"},
	}
	if !reflect.DeepEqual(rows, wantRows) {
		t.Errorf("tshark fields:\n%q\nwant\n%q", rows, wantRows)
	}
}

// Options that do not fit are cut (at a character boundary), invalid
// UTF-8 is replaced, and a packet past the largest capture length is
// truncated to it.
func TestWriterLimits(t *testing.T) {
	var buf bytes.Buffer
	w, _ := NewWriter(&buf, nil)
	long := strings.Repeat("é", 40000) // 80,000 bytes
	if _, err := w.AddInterface(&Interface{LinkType: LinkTypeEthernet, Name: long, MAC: []byte{1, 2, 3}}); err != nil {
		t.Fatal(err)
	}
	big := make([]byte, MaxCaptureLength+10)
	if err := w.WritePacket(&Packet{Data: big, Comment: "bad \xff utf-8"}); err != nil {
		t.Fatal(err)
	}
	w.Close()
	pkts, ifaces, _ := readAll(t, buf.Bytes())
	if n := len(ifaces[0].Name); n > 0xFFFF || n < 0xFFF0 || !strings.HasPrefix(long, ifaces[0].Name) {
		t.Errorf("long name cut to %d bytes", n)
	}
	if ifaces[0].MAC != nil {
		t.Errorf("a 3-byte MAC was written: %x", ifaces[0].MAC)
	}
	if len(pkts[0].Data) != MaxCaptureLength || pkts[0].OriginalLength != MaxCaptureLength+10 {
		t.Errorf("big packet: %d of %d", len(pkts[0].Data), pkts[0].OriginalLength)
	}
	if pkts[0].Comment != "bad \uFFFD utf-8" {
		t.Errorf("comment %q", pkts[0].Comment)
	}
	tsharkClean(t, writeTemp(t, "limits.pcapng", buf.Bytes()))
}

// The reader rejects damaged framing instead of reading garbage.
func TestReaderRejects(t *testing.T) {
	var buf bytes.Buffer
	w, _ := NewWriter(&buf, nil)
	w.AddInterface(&Interface{LinkType: LinkTypeEthernet})
	w.WritePacket(&Packet{Data: []byte{1, 2, 3}})
	w.Close()
	good := buf.Bytes()
	for name, b := range map[string][]byte{
		"empty":       nil,
		"truncated":   good[:len(good)-2],
		"bad trailer": append(append([]byte(nil), good[:len(good)-4]...), 1, 0, 0, 0),
		"no section":  good[28:],
		"bad magic":   append(append(append([]byte(nil), good[:8]...), 1, 2, 3, 4), good[12:]...),
		// SHB: 28 bytes; IDB at 28: 32 bytes (if_tsresol at 44); EPB at 60.
		"cap beyond":      patch(good, 80, 0x100),
		"orig below cap":  patch(good, 84, 1),
		"unknown iface":   patch(good, 68, 7),
		"odd block":       patch(good, 64, 21),
		"huge block":      patch(good, 64, 1<<30),
		"option overflow": patch(good, 46, 0xFFFF),
	} {
		r := NewReader(bytes.NewReader(b))
		var err error
		for err == nil {
			_, err = r.Next()
		}
		if err == io.EOF || !errors.Is(err, ErrFormat) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// patch returns b with the little-endian uint32 at off replaced (uint16
// when the value fits and off is an option length).
func patch(b []byte, off int, v uint32) []byte {
	c := append([]byte(nil), b...)
	if off+4 <= len(c) {
		if v <= 0xFFFF && off%4 == 2 {
			binary.LittleEndian.PutUint16(c[off:], uint16(v))
		} else {
			binary.LittleEndian.PutUint32(c[off:], v)
		}
	}
	return c
}
