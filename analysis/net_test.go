package analysis_test

import (
	"bytes"
	"testing"

	"github.com/etwkit/etw/analysis"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/capfixture"
)

// TestNetStatsFixture: the NDIS and PktMon packets of the capture fixture
// (written by the session emulator with the providers' layouts), counted
// as the fixture says pcapng must write them: the packets, their bytes
// on the wire, the drops, the PktMon packet of no link type and the NDIS
// packets that did not all arrive.
func TestNetStatsFixture(t *testing.T) {
	for _, is32 := range []bool{false, true} {
		fx, err := capfixture.NDIS(is32)
		if err != nil {
			t.Fatal(err)
		}
		f, err := etl.NewFile(bytes.NewReader(fx.ETL), int64(len(fx.ETL)))
		if err != nil {
			t.Fatal(err)
		}
		files := []*etl.File{f}
		m, err := analysis.Build(files, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		t0, t1 := m.TimeRange()
		axis := analysis.TimeAxis{Start: t0, Width: max(t1-t0, 1), Buckets: 1}
		s := analysis.NewNetStats(axis)
		dec := decode.New()
		r := etl.NewReader(files, nil)
		for r.Next() {
			ev := r.Event()
			s.Observe(ev, dec.Decode(ev))
		}
		r.Close()
		sum := s.Summary(100)
		var bytes, dropBytes, ndis int64
		for _, w := range fx.Packets {
			bytes += int64(w.Original)
			if w.PacketID == 0 && w.Comment != "" && w.Comment[:4] == "PID=" {
				ndis++
			}
		}
		for _, w := range fx.Drops {
			dropBytes += int64(w.Original)
		}
		if sum == nil || sum.Packets != int64(len(fx.Packets)) || sum.Bytes != bytes || sum.Drops != int64(len(fx.Drops)) ||
			sum.DropBytes != dropBytes || sum.NDIS != ndis || sum.PktMon != sum.Packets-ndis ||
			sum.Unsupported != int64(fx.Unsupported) || sum.Incomplete != int64(fx.Incomplete) {
			t.Fatalf("32-bit %v: %+v; want %d packets (%d bytes, %d NDIS), %d drops (%d bytes), %d unsupported, %d incomplete",
				is32, sum, len(fx.Packets), bytes, ndis, len(fx.Drops), dropBytes, fx.Unsupported, fx.Incomplete)
		}
		var series, reasons int64
		for _, se := range sum.Series {
			if se.Name != "drops" {
				series += se.Packets[0]
			}
		}
		for _, d := range sum.DropReasons {
			reasons += d.Packets
			if d.Location != "0xE0004500" || d.Component != "101 tcpip.sys" {
				t.Errorf("drop %+v", d)
			}
		}
		for _, e := range sum.Endpoints {
			if (e.Port != 0 && e.Protocol == "") || (e.Protocol != "" && e.Protocol != "TCP" && e.Protocol != "UDP") {
				t.Errorf("endpoint %+v: a port of no protocol, or a protocol of ports not TCP or UDP", e)
			}
		}
		if series != sum.Packets || reasons != sum.Drops || len(sum.Endpoints) == 0 {
			t.Errorf("series %d, drops by reason %d, %d endpoints", series, reasons, len(sum.Endpoints))
		}
	}
}
