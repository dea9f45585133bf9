package pcapng

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"net/netip"
	"slices"
	"testing"
	"time"

	"github.com/etwkit/etw/catalog"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/capfixture"
	"github.com/etwkit/etw/internal/etltest"
)

func fixture(t testing.TB, is32 bool) *capfixture.Fixture {
	t.Helper()
	fx, err := capfixture.NDIS(is32)
	if err != nil {
		t.Fatal(err)
	}
	return fx
}

func openBytes(t testing.TB, b []byte) *etl.File {
	t.Helper()
	f, err := etl.NewFile(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func convertBytes(t testing.TB, b []byte, o *ConvertOptions) ([]byte, *Stats) {
	t.Helper()
	var out bytes.Buffer
	st, err := Convert(&out, []*etl.File{openBytes(t, b)}, o)
	if err != nil {
		t.Fatal(err)
	}
	return out.Bytes(), st
}

// checkWant compares written packets with the fixture's expectations.
func checkWant(t *testing.T, got []Packet, ifaces []Interface, want []capfixture.Want) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%d packets, want %d", len(got), len(want))
	}
	for i := range min(len(got), len(want)) {
		g, w := got[i], want[i]
		ifc := ifaces[g.Interface]
		if ifc.Name != w.Interface || uint16(ifc.LinkType) != w.LinkType || !bytes.Equal(g.Data, w.Data) || g.OriginalLength != w.Original ||
			int(g.Direction) != w.Direction || g.Comment != w.Comment || g.HasPacketID != (w.PacketID != 0) || g.PacketID != w.PacketID ||
			(len(g.Verdicts) > 0) != w.Drop {
			t.Errorf("packet %d (%s):\n got %s %v %x orig %d dir %d id %d verdicts %v\n  %q\nwant %s %d %x orig %d dir %d id %d drop %v\n  %q",
				i, w.What, ifc.Name, ifc.LinkType, g.Data, g.OriginalLength, g.Direction, g.PacketID, g.Verdicts, g.Comment,
				w.Interface, w.LinkType, w.Data, w.Original, w.Direction, w.PacketID, w.Drop, w.Comment)
		}
	}
}

// The NDIS fixture (written by the session emulator with the event
// layouts of the provider's field list and of etl2pcapng) converts to the
// packets it was built from, with nothing imported: whole frames and
// reassembled fragments, interrupted and orphan fragments given up,
// original lengths of truncated frames, 802.11 metadata, raw IP, the
// Hyper-V switch port and VLAN, 32- and 64-bit out-of-band data; and
// PktMon events whose trace carries no schema.
func TestConvertNDISFixture(t *testing.T) {
	for _, is32 := range []bool{false, true} {
		t.Run(fmt.Sprintf("32bit=%v", is32), func(t *testing.T) {
			fx := fixture(t, is32)
			out, st := convertBytes(t, fx.ETL, nil)
			pkts, ifaces, _ := readAll(t, out)
			checkWant(t, pkts, ifaces, fx.Packets)
			if st.Incomplete != int64(fx.Incomplete) || st.Unsupported != int64(fx.Unsupported) || st.Filtered != int64(len(fx.Drops)) ||
				st.Undecodable != 0 || st.Packets != int64(len(fx.Packets)) || st.Drops != 0 || len(st.Errors) != 0 || st.Interfaces != len(ifaces) {
				t.Errorf("stats %+v", st)
			}
			names := map[string]Interface{}
			for _, ifc := range ifaces {
				if _, dup := names[ifc.Name]; dup {
					t.Errorf("interface %s twice", ifc.Name)
				}
				names[ifc.Name] = ifc
			}
			if d := names["eth:7:0"].Description; d != "LWF over IfIndex 5" {
				t.Errorf("filter interface description %q", d)
			}
			if d := names["eth:5:0"].Description; d != "" {
				t.Errorf("miniport interface description %q", d)
			}
			vnic := names["vNIC:Synthetic:PortA:3:42"]
			if vnic.Description != " VlanID=42" || vnic.Hardware != "vm-one" {
				t.Errorf("switch interface %+v", vnic)
			}
			// The component list comes after the packets; the first pass
			// names PktMon's interfaces.
			e1 := names["e1i68x64.sys"]
			if e1.Description != "Intel(R) Ethernet Connection" || !bytes.Equal(e1.MAC, []byte{0x00, 0x15, 0x5d, 0x01, 0x02, 0x03}) ||
				e1.Comment != "PktMon component 7 (Miniport), IfIndex 14, Ethernet frames" || len(e1.Addresses) != 2 ||
				e1.Addresses[0] != netip.MustParsePrefix("10.0.0.5/32") || e1.Addresses[1] != netip.MustParsePrefix("fe80::1/128") {
				t.Errorf("PktMon interface %+v", e1)
			}
			if c := names["tcpip.sys"].Comment; c != "PktMon component 101 (type 11), IP packets" {
				t.Errorf("component of an unmapped type: %q", c)
			}

			path := writeTemp(t, "ndis.pcapng", out)
			if !tsharkClean(t, path) {
				return
			}
			frames := tsharkFrames(t, path)
			if len(frames) != len(fx.Packets) {
				t.Fatalf("tshark reads %d frames, want %d", len(frames), len(fx.Packets))
			}
			for i, f := range frames {
				w := fx.Packets[i]
				if !bytes.Equal(f.Raw, w.Data) || f.Len != w.Original || f.CapLen != len(w.Data) || f.Interface != w.Interface || f.Comment != w.Comment {
					t.Errorf("tshark frame %d (%s): %+v", i+1, w.What, f)
				}
			}
			// Wireshark dissects what the frames hold: the switch's VLAN
			// is in the interface, the 802.11 frame is no longer
			// "protected" and its body is the LLC/IP datagram.
			rows := tsharkFields(t, path, "wlan.fc.protected", "llc.type", "udp.dstport")
			for i, w := range fx.Packets {
				if w.Interface == "wifi:9" && (rows[i][0] != "False" && rows[i][0] != "0" || rows[i][1] != "0x0800" || rows[i][2] != "51730") {
					t.Errorf("802.11 frame dissected as %q", rows[i])
				}
			}
		})
	}
}

// The options select packets as pktmon's etl2pcap does: no drops by
// default, only drops with --drop-only, one component with
// --component-id (NDIS packets have neither drops nor components).
func TestConvertOptions(t *testing.T) {
	fx := fixture(t, false)
	var drops, compFlows []capfixture.Want
	drops = append(drops, fx.Drops...)
	for _, w := range fx.Packets {
		if w.Interface == "tcpip.sys" {
			compFlows = append(compFlows, w)
		}
	}
	// Everything in time order: the drops come right after the PktMon flow.
	var all []capfixture.Want
	for _, w := range fx.Packets {
		all = append(all, w)
		if w.What == "PktMon flow" {
			all = append(all, fx.Drops...)
		}
	}
	for _, c := range []struct {
		name string
		opts Options
		want []capfixture.Want
	}{
		{"drop-only", Options{DropOnly: true}, drops},
		{"include-drops", Options{IncludeDrops: true}, all},
		{"component 101", Options{Components: []uint16{101}}, compFlows},
		{"component 101 with drops", Options{Components: []uint16{101}, IncludeDrops: true}, append(slices.Clone(drops), compFlows...)},
		{"component 7 drop-only", Options{Components: []uint16{7}, DropOnly: true}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, st := convertBytes(t, fx.ETL, &ConvertOptions{Options: c.opts})
			pkts, ifaces, _ := readAll(t, out)
			checkWant(t, pkts, ifaces, c.want)
			if st.Packets != int64(len(c.want)) {
				t.Errorf("stats %+v", st)
			}
			tsharkClean(t, writeTemp(t, "opts.pcapng", out))
		})
	}
}

// Decoding through decode.New() (the built-in NDIS schemas) and through
// the converter's own layouts (no decoder result) give the same bytes,
// and with nothing imported every NDIS event of the fixture decodes from
// a built-in schema.
func TestConvertWithoutDecoder(t *testing.T) {
	fx := fixture(t, false)
	f := openBytes(t, fx.ETL)
	dec := decode.New()
	conv := func(useDec bool) []byte {
		var buf bytes.Buffer
		w, _ := NewWriter(&buf, nil)
		c := NewConverter(w, &Options{IncludeDrops: true})
		r := etl.NewReader([]*etl.File{f}, nil)
		defer r.Close()
		for r.Next() {
			ev := r.Event()
			c.Learn(ev, nil)
		}
		r2 := etl.NewReader([]*etl.File{f}, nil)
		defer r2.Close()
		for r2.Next() {
			ev := r2.Event()
			var res *decode.Result
			if useDec {
				res = dec.Decode(ev)
				if ev.ProviderID == catalog.NDISPacketCaptureGUID && (res.Schema == nil || res.Err != nil || res.Origin.Kind != "built-in" || len(res.Decoded.Extra) != 0) {
					t.Errorf("NDIS event %d does not decode from the built-in schema: %+v", ev.Descriptor.ID, res)
				}
			}
			if err := c.Add(ev, res); err != nil {
				t.Fatal(err)
			}
		}
		c.Close()
		return buf.Bytes()
	}
	if a, b := conv(true), conv(false); !bytes.Equal(a, b) {
		t.Error("the decoder's results and the converter's own layouts give different files")
	}
}

// Fed event by event without a first pass, the converter names a PktMon
// interface from what it knows when the first packet comes: here nothing
// (pktmon logs its component list at the end).
func TestConverterStreamingNames(t *testing.T) {
	fx := fixture(t, false)
	f := openBytes(t, fx.ETL)
	var buf bytes.Buffer
	w, _ := NewWriter(&buf, nil)
	c := NewConverter(w, nil)
	r := etl.NewReader([]*etl.File{f}, nil)
	for r.Next() {
		if err := c.Add(r.Event(), nil); err != nil {
			t.Fatal(err)
		}
	}
	r.Close()
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	_, ifaces, _ := readAll(t, buf.Bytes())
	var names []string
	for _, ifc := range ifaces {
		names = append(names, ifc.Name)
	}
	if !slices.Contains(names, "PktMon component 7") || slices.Contains(names, "e1i68x64.sys") {
		t.Errorf("interfaces %q", names)
	}
	if st := c.Stats(); st.Events == 0 || st.Packets != int64(len(fx.Packets)) {
		t.Errorf("stats %+v", st)
	}
}

// A damaged record costs only the packet it held: every other packet is
// written, in order, and the damage is reported with its offset.
func TestConvertDamagedBuffer(t *testing.T) {
	b, err := capfixture.Stream(400, 120)
	if err != nil {
		t.Fatal(err)
	}
	full, st := convertBytes(t, b, nil)
	if st.Packets != 400 || len(st.Errors) != 0 {
		t.Fatalf("undamaged: %+v", st)
	}
	f := openBytes(t, b)
	bufs := f.Buffers()
	if len(bufs) < 6 {
		t.Fatalf("only %d buffers", len(bufs))
	}
	victim := bufs[len(bufs)/2]
	// The packet in the victim buffer's first record: the reader skips
	// that record and resynchronises on the next.
	lost := 0
	r := etl.NewReader([]*etl.File{f}, &etl.ReaderOptions{Order: etl.FileOrder})
	for r.Next() {
		if ev := r.Event(); ev.BufferOffset == victim.FileOffset && ev.RecordOffset == etl.BufferHeaderSize && ev.Descriptor.ID == 1001 {
			lost++
		}
	}
	r.Close()
	if lost == 0 {
		t.Fatal("the chosen buffer holds no packet")
	}
	damaged := append([]byte(nil), b...)
	// A record size running past the buffer's end.
	binary.LittleEndian.PutUint16(damaged[victim.FileOffset+72:], 0xFFF8)
	out, st := convertBytes(t, damaged, nil)
	if len(st.Errors) == 0 {
		t.Fatal("the damage is not reported")
	}
	if want := int64(400 - lost); st.Packets != want {
		t.Errorf("%d packets written, want %d (%d lost with the damaged record)", st.Packets, want, lost)
	}
	fullPkts, _, _ := readAll(t, full)
	gotPkts, _, _ := readAll(t, out)
	j := 0
	for _, p := range gotPkts {
		for j < len(fullPkts) && !bytes.Equal(fullPkts[j].Data, p.Data) {
			j++
		}
		if j == len(fullPkts) {
			t.Fatal("a packet of the damaged file is not in the undamaged file's order")
		}
	}
	tsharkClean(t, writeTemp(t, "damaged.pcapng", out))
	if _, err := Convert(&bytes.Buffer{}, []*etl.File{openBytes(t, damaged)}, &ConvertOptions{Strict: true}); err == nil {
		t.Error("strict conversion of a damaged file succeeded")
	}
}

// The NDIS reassembly rules, event by event: fragments of a trace that
// never marks a start gather up to an end (as etl2pcapng reads them);
// once starts are seen, a fragment without its start is dropped with the
// rest of its packet; an interrupted packet, a continuation from another
// thread, packets past the 256 waiting and packets still waiting at the
// end are given up; a packet past 262,144 bytes is truncated.
func TestNDISReassemblyRules(t *testing.T) {
	var buf bytes.Buffer
	w, _ := NewWriter(&buf, nil)
	c := NewConverter(w, nil)
	add := func(lower uint32, thread uint32, kw uint64, frag []byte) {
		t.Helper()
		p := binary.LittleEndian.AppendUint32(nil, lower)
		p = binary.LittleEndian.AppendUint32(p, lower)
		p = binary.LittleEndian.AppendUint32(p, uint32(len(frag)))
		p = append(p, frag...)
		ev := &etl.Event{Header: etl.HeaderEvent64, ProviderID: catalog.NDISPacketCaptureGUID, ThreadID: thread, Time: 133485408000000000,
			Descriptor: etl.EventDescriptor{ID: 1001, Keyword: kw}, UserData: p}
		if err := c.Add(ev, nil); err != nil {
			t.Fatal(err)
		}
	}
	const start, end = catalog.NDISKeywordPacketStart, catalog.NDISKeywordPacketEnd
	frame := func(b byte, n int) []byte { return bytes.Repeat([]byte{b}, n) }
	var want [][]byte
	incomplete := 0

	add(1, 1, 0, frame('A', 3)) // no start flags anywhere yet: gathered
	add(1, 1, end, frame('B', 2))
	want = append(want, []byte("AAABB"))
	add(1, 1, start|end, frame('C', 4))
	want = append(want, frame('C', 4))
	add(1, 1, 0, frame('D', 3)) // start missing: dropped with its end
	add(1, 1, end, frame('E', 3))
	incomplete++
	add(1, 1, start, frame('F', 3)) // continued from another thread
	add(1, 2, 0, frame('G', 3))
	incomplete += 2
	add(1, 1, start, frame('H', 3))
	add(1, 1, end, frame('I', 3))
	want = append(want, []byte("HHHIII"))
	add(2, 1, start, frame('J', 60<<10)) // 300 KiB in 60 KiB fragments (ETW events stop at 64 KiB): truncated
	for range 3 {
		add(2, 1, 0, frame('J', 60<<10))
	}
	add(2, 1, end, frame('K', 60<<10))
	want = append(want, append(frame('J', 240<<10), frame('K', MaxCaptureLength-240<<10)...))
	for i := range 300 { // more waiting packets than kept
		add(uint32(100+i), 1, start, frame('L', 1))
	}
	incomplete += 300
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	st := c.Stats()
	pkts, _, _ := readAll(t, buf.Bytes())
	if len(pkts) != len(want) || st.Incomplete != int64(incomplete) || st.Truncated != 1 {
		t.Fatalf("%d packets (want %d), stats %+v (want %d incomplete)", len(pkts), len(want), st, incomplete)
	}
	for i, p := range pkts {
		if !bytes.Equal(p.Data, want[i]) {
			t.Errorf("packet %d: %d bytes %.20q, want %d %.20q", i, len(p.Data), p.Data, len(want[i]), want[i])
		}
	}
	if p := pkts[3]; p.OriginalLength != 300<<10 {
		t.Errorf("truncated packet: original length %d", p.OriginalLength)
	}
}

// Packet times from damaged records can be any FILETIME: the pcapng
// timestamp saturates instead of wrapping around.
func TestTimestampExtremes(t *testing.T) {
	for _, c := range []struct {
		ft   int64
		want uint64
	}{
		{math.MinInt64, 0},
		{0, 0}, // 1601, before 1970
		{math.MaxInt64, uint64(math.MaxInt64 - 116444736000000000)},
		{116444736000000000 + 15, 15},
	} {
		if got := timestamp(etl.FiletimeToTime(c.ft)); got != c.want {
			t.Errorf("timestamp(%d) = %d, want %d", c.ft, got, c.want)
		}
	}
	if got := timestamp(time.Unix(math.MaxInt64/2, 0)); got != math.MaxUint64 {
		t.Errorf("a time past 2^64 ticks: %d", got)
	}
}

// pktmon-159.etl (ETL_ATTACK): a PktMon capture with garbage timestamps
// converts without a panic.
func TestConvertExtremeTimestamps(t *testing.T) {
	files := etltest.OpenFiles(t, etltest.AttackFile(t, "pktmon-159.etl"))
	st, _ := Convert(io.Discard, files, nil) // damage is expected
	if st == nil || st.Packets == 0 {
		t.Errorf("stats %+v", st)
	}
}
