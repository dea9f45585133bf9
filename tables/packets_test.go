package tables

import (
	"bytes"
	"strings"
	"testing"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/capfixture"
)

// The packets table has a row for every packet pcapng writes with the
// drops (IncludeDrops), in the same order, with its interface's name as
// component: the fixture's NDIS packets and its PktMon packets, which
// the trace logs without PktMon's schema (package netcap decodes them
// with PktMon's fixed layouts).
func TestFixturePackets(t *testing.T) {
	fx, err := capfixture.NDIS(false)
	if err != nil {
		t.Fatal(err)
	}
	f, err := etl.NewFile(bytes.NewReader(fx.ETL), int64(len(fx.ETL)))
	if err != nil {
		t.Fatal(err)
	}
	w, outs := memWriter(t, nil)
	st, err := w.Add("ndiscap.etl", []*etl.File{f}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rows := readRows[PacketRow](t, outs["packets"])
	var flows, drops []PacketRow
	for _, r := range rows {
		if r.Dropped {
			drops = append(drops, r)
		} else {
			flows = append(flows, r)
		}
	}
	if st.Packets != int64(len(rows)) {
		t.Errorf("stats say %d packets, the table has %d", st.Packets, len(rows))
	}
	pktmon := 0
	for _, c := range []struct {
		name string
		got  []PacketRow
		want []capfixture.Want
	}{{"flows", flows, fx.Packets}, {"drops", drops, fx.Drops}} {
		if len(c.got) != len(c.want) {
			t.Errorf("%s: %d rows, pcapng writes %d packets", c.name, len(c.got), len(c.want))
			continue
		}
		for i, g := range c.got {
			w := c.want[i]
			source, dir, reason, comp := "ndis", [...]string{"", "inbound", "outbound"}[w.Direction], "", int32(0)
			if strings.Contains(w.Comment, "Component ") {
				source, comp = "pktmon", map[string]int32{"e1i68x64.sys": 7, "tcpip.sys": 101}[w.Interface]
				pktmon++
			}
			if w.Drop {
				reason = "8"
			}
			if g.Source != source || g.Component != w.Interface || g.Direction != dir || g.Size != int64(len(w.Data)) ||
				g.OriginalSize != int64(w.Original) || g.PacketID != w.PacketID || g.DropReason != reason || g.ComponentID != comp {
				t.Errorf("%s %d (%s): %+v", c.name, i, w.What, g)
			}
		}
	}
	if pktmon != 4 {
		t.Errorf("%d PktMon packets compared, want the fixture's 4", pktmon)
	}
}
