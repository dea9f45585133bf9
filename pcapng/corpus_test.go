package pcapng

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/etltest"
)

// The PktMon captures of the corpus, with the packet events pktmon's
// etl2pcap exports by default (flows: event 160), with --drop-only
// (drops: 170) and with both.
var pktmonCaptures = []struct {
	path               string
	flows, drops       int
	components         int // components seen by packets
	someComponent      uint16
	someComponentFlows int
}{
	{"Kesiya24+final-project/PktMon.etl", 0, 0, 0, 7, 0},
	{"NeoChenjf+Finguard/PktMon.etl", 378, 28, 9, 12, 38},
	{"nathaniel-security+microsoft-pktmon-VPN-capture-traffic/history/508f5bc135c8effceef0879693c6de45f2a92012/PktMon.etl", 3646, 0, 12, 79, 291},
}

func openCorpus(t testing.TB, rel string) *etl.File {
	t.Helper()
	p := filepath.Join(etltest.CorpusDir(t), rel)
	f, err := etl.Open(p)
	if err != nil {
		t.Fatalf("corpus file: %v", err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// rawPacket is a PktMon packet event read with the fixed layout of
// events 160 and 170 (PktGroupId u64, PktNumber, AppearanceCount, DirTag,
// PacketType, ComponentId, EdgeId, FilterId u16, DropReason,
// DropLocation u32, OriginalPayloadSize, LoggedPayloadSize u16, Payload),
// independently of the decoder.
type rawPacket struct {
	group     uint64
	dir, kind uint16
	component uint16
	orig      int
	payload   []byte
	drop      bool
}

// rawPackets returns the PktMon packet events of f in time order.
func rawPackets(t testing.TB, f *etl.File) []rawPacket {
	t.Helper()
	r := etl.NewReader([]*etl.File{f}, nil)
	defer r.Close()
	var out []rawPacket
	for r.Next() {
		ev := r.Event()
		if ev.ProviderID != PktMonGUID || (ev.Descriptor.ID != 160 && ev.Descriptor.ID != 170) {
			continue
		}
		b := ev.UserData
		if len(b) < 34 {
			t.Fatalf("short packet event: %d bytes", len(b))
		}
		le := binary.LittleEndian
		n := int(le.Uint16(b[32:]))
		if 34+n != len(b) {
			t.Fatalf("packet event of %d bytes says %d logged", len(b), n)
		}
		out = append(out, rawPacket{group: le.Uint64(b), dir: le.Uint16(b[12:]), kind: le.Uint16(b[14:]), component: le.Uint16(b[16:]),
			orig: int(le.Uint16(b[30:])), payload: append([]byte(nil), b[34:]...), drop: ev.Descriptor.ID == 170})
	}
	if errs := r.Errors(); len(errs) > 0 {
		t.Fatalf("corpus file damaged: %v", errs[0])
	}
	return out
}

// Every PktMon capture of the corpus converts, with each of pktmon's
// options, to as many packets as there are packet events pktmon exports
// with that option; each packet's bytes, captured and original lengths,
// packet id, direction and interface are its event's; Wireshark reads
// every output with no error or warning and sees the same frames.
func TestCorpusPktMon(t *testing.T) {
	for _, c := range pktmonCaptures {
		t.Run(strings.SplitN(c.path, "/", 2)[0], func(t *testing.T) {
			f := openCorpus(t, c.path)
			raws := rawPackets(t, f)
			comps := map[uint16]bool{}
			for _, p := range raws {
				comps[p.component] = true
				if p.kind < 1 || p.kind > 3 {
					t.Errorf("packet of type %d in the corpus", p.kind)
				}
			}
			if len(comps) != c.components {
				t.Errorf("%d components, want %d", len(comps), c.components)
			}
			for _, o := range []struct {
				name string
				opts Options
				keep func(rawPacket) bool
				want int
			}{
				{"default", Options{}, func(p rawPacket) bool { return !p.drop }, c.flows},
				{"drop-only", Options{DropOnly: true}, func(p rawPacket) bool { return p.drop }, c.drops},
				{"include-drops", Options{IncludeDrops: true}, func(p rawPacket) bool { return true }, c.flows + c.drops},
				{fmt.Sprintf("component-%d", c.someComponent), Options{Components: []uint16{c.someComponent}},
					func(p rawPacket) bool { return !p.drop && p.component == c.someComponent }, c.someComponentFlows},
			} {
				t.Run(o.name, func(t *testing.T) {
					var want []rawPacket
					for _, p := range raws {
						if o.keep(p) {
							want = append(want, p)
						}
					}
					if len(want) != o.want {
						t.Errorf("%d packet events, want %d", len(want), o.want)
					}
					var out bytes.Buffer
					st, err := Convert(&out, []*etl.File{f}, &ConvertOptions{Options: o.opts})
					if err != nil {
						t.Fatal(err)
					}
					if st.Packets != int64(len(want)) || st.Undecodable != 0 || st.Unsupported != 0 || len(st.Errors) != 0 {
						t.Errorf("stats %+v, want %d packets", st, len(want))
					}
					pkts, ifaces, _ := readAll(t, out.Bytes())
					if len(pkts) != len(want) {
						t.Fatalf("%d packets read back, want %d", len(pkts), len(want))
					}
					for i, p := range pkts {
						w := want[i]
						ifc := ifaces[p.Interface]
						if !bytes.Equal(p.Data, w.payload) || p.OriginalLength != w.orig || p.PacketID != w.group || !p.HasPacketID ||
							p.Direction != dirTagDirection(w.dir) || (len(p.Verdicts) > 0) != w.drop ||
							!strings.Contains(ifc.Comment, fmt.Sprintf("PktMon component %d ", w.component)) ||
							!strings.Contains(p.Comment, fmt.Sprintf("Component %d,", w.component)) {
							t.Fatalf("packet %d: %+v on %+v, want %+v", i, p, ifc, w)
						}
						if ifc.Name == "" || strings.HasPrefix(ifc.Name, "PktMon component") {
							t.Errorf("interface of component %d not named: %+v", w.component, ifc)
						}
					}
					path := writeTemp(t, "pktmon.pcapng", out.Bytes())
					if !tsharkClean(t, path) {
						return
					}
					frames := tsharkFrames(t, path)
					if len(frames) != len(want) {
						t.Fatalf("tshark reads %d frames, want %d", len(frames), len(want))
					}
					for i, fr := range frames {
						w := want[i]
						if fr.Len != w.orig || fr.CapLen != len(w.payload) || !bytes.Equal(fr.Raw, w.payload) {
							t.Fatalf("tshark frame %d: len %d caplen %d, want %d %d (bytes equal %v)", i+1, fr.Len, fr.CapLen, w.orig, len(w.payload), bytes.Equal(fr.Raw, w.payload))
						}
					}
					t.Logf("%d packets, %d interfaces; tshark: %d frames, no error or warning", len(pkts), len(ifaces), len(frames))
				})
			}
		})
	}
}

// dirTagDirection is the direction of a PktMon DirTag, read
// independently of the converter: None, In, Out, Rx, Tx, Ingress, Egress.
func dirTagDirection(tag uint16) Direction {
	dirs := [...]Direction{DirectionUnknown, DirectionInbound, DirectionOutbound, DirectionInbound, DirectionOutbound, DirectionInbound, DirectionOutbound}
	if int(tag) < len(dirs) {
		return dirs[tag]
	}
	return DirectionUnknown
}
