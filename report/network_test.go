package report_test

import (
	"io"
	"path/filepath"
	"testing"

	"github.com/etwkit/etw/catalog"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/etltest"
	"github.com/etwkit/etw/pcapng"
	"github.com/etwkit/etw/report"
)

// The shared PktMon captures of the corpus.
var pktmonCaptures = []string{
	"Kesiya24+final-project/PktMon.etl",
	"NeoChenjf+Finguard/PktMon.etl",
	"nathaniel-security+microsoft-pktmon-VPN-capture-traffic/history/508f5bc135c8effceef0879693c6de45f2a92012/PktMon.etl",
}

// TestNetworkMatchesPcapng: on every PktMon capture of the corpus, the
// report's network.packets is the number of packets pcapng writes (by
// default), its drops the number pcapng writes with --drop-only, and the
// drops by reason add up to the PktMon events that carry a drop (counted
// here from the events' ids, without package netcap).
func TestNetworkMatchesPcapng(t *testing.T) {
	for _, rel := range pktmonCaptures {
		t.Run(filepath.Base(filepath.Dir(rel)), func(t *testing.T) {
			f, err := etl.Open(filepath.Join(etltest.CorpusDir(t), rel))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			files := []*etl.File{f}
			dec := decode.New()
			_ = dec.Prescan(files)
			d, err := report.Build(files, dec, nil)
			if err != nil {
				t.Fatal(err)
			}
			st, err := pcapng.Convert(io.Discard, files, nil)
			if err != nil {
				t.Fatal(err)
			}
			dropSt, err := pcapng.Convert(io.Discard, files, &pcapng.ConvertOptions{Options: pcapng.Options{DropOnly: true}})
			if err != nil {
				t.Fatal(err)
			}
			dropEvents := 0
			r := etl.NewReader(files, nil)
			for r.Next() {
				ev := r.Event()
				if ev.ProviderID == catalog.PktMonGUID && (ev.Header == etl.HeaderEvent32 || ev.Header == etl.HeaderEvent64) {
					switch ev.Descriptor.ID {
					case catalog.PktMonDrop, catalog.PktMonDuplicateDrop, catalog.PktMonDropV4, catalog.PktMonDropV6:
						dropEvents++
					}
				}
			}
			r.Close()
			n := d.Network
			if n == nil {
				if st.Packets != 0 || dropEvents != 0 {
					t.Fatalf("no network section; pcapng writes %d packets, %d drop events", st.Packets, dropEvents)
				}
				return
			}
			if n.Packets != st.Packets || n.Drops != dropSt.Packets || n.Drops != int64(dropEvents) {
				t.Errorf("network: %d packets, %d drops; pcapng writes %d packets, %d with --drop-only; %d drop events",
					n.Packets, n.Drops, st.Packets, dropSt.Packets, dropEvents)
			}
			var byReason, byDir, byComp, byProto, series int64
			for _, r := range n.DropReasons {
				byReason += r.Packets
			}
			for _, g := range n.ByDirection {
				byDir += g.Packets
			}
			for _, g := range n.ByComponent {
				byComp += g.Packets
			}
			for _, g := range n.ByProtocol {
				byProto += g.Packets
			}
			for _, s := range n.Series {
				if s.Name != "drops" {
					for _, v := range s.Packets {
						series += v
					}
				}
			}
			if byReason != int64(dropEvents) || byDir != n.Packets || byComp != n.Packets || byProto != n.Packets || series != n.Packets {
				t.Errorf("breakdowns: %d drops by reason (want %d), packets by direction %d, component %d, protocol %d, over time %d (want %d)",
					byReason, dropEvents, byDir, byComp, byProto, series, n.Packets)
			}
			t.Logf("%d packets, %d drops in %d reasons, %d endpoints", n.Packets, n.Drops, len(n.DropReasons), len(n.Endpoints))
		})
	}
}
