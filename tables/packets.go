package tables

import (
	"cmp"
	"slices"

	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/netcap"
)

// packetTable turns the trace's packet events into packets rows through
// package netcap, which gives pcapng its packets (PktMon's packets and
// drops, NDIS's reassembled fragments; pcapng with IncludeDrops writes
// the same packets, in the same order): a row has its interface's name
// (the PktMon component's from pktmon's component list, as pcapng names
// the interface), direction, sizes, and PktMon's component id, drop and
// reason. Memory is the source's (interface tables, NDIS packets being
// reassembled) and the names of the interfaces.
type packetTable struct {
	t     *traceState
	src   *netcap.Source
	names []string // interface number → name
	add   func(*netcap.Packet) error
	n     int64
}

// newPacketTable returns the packets table of trace t.
func newPacketTable(t *traceState) *packetTable {
	p := &packetTable{t: t, src: netcap.NewSource(&netcap.Options{IncludeDrops: true})}
	p.add = p.row
	return p
}

// learn takes the interface names of PktMon's component list.
func (p *packetTable) learn(ev *etl.Event, res *decode.Result) { p.src.Learn(ev, res) }

// event takes one packet event (res may be nil or hold no schema: netcap
// decodes PktMon's and NDIS's events with their fixed layouts).
func (p *packetTable) event(ev *etl.Event, res *decode.Result) error {
	return p.src.Add(ev, res, p.add)
}

// close gives up the NDIS packets still waiting for fragments and
// returns the number of rows written.
func (p *packetTable) close() int64 {
	p.src.Close()
	return p.n
}

// row writes the row of one packet.
func (p *packetTable) row(pk *netcap.Packet) error {
	if pk.NewInterface && pk.Interface == len(p.names) {
		p.names = append(p.names, p.src.Interface(pk).Name)
	}
	row := PacketRow{Trace: p.t.id, TS: etl.FiletimeUnixNano(pk.Time), Source: "ndis", Size: int64(len(pk.Data)),
		OriginalSize: int64(max(pk.OriginalLength, len(pk.Data))), PacketID: pk.PacketID, Dropped: pk.Drop}
	if pk.Interface >= 0 && pk.Interface < len(p.names) {
		row.Component = p.names[pk.Interface]
	}
	if pk.Direction != netcap.DirectionUnknown {
		row.Direction = pk.Direction.String()
	}
	if pk.Kind == netcap.KindPktMon {
		row.Source = "pktmon"
		row.ComponentID = int32(pk.Component)
		row.DropReason = pk.DropReason
	}
	p.n++
	return p.t.w.packets.add(&row)
}

// sortByID sorts rows by their id.
func sortByID[T any](rows []T, id func(*T) int64) {
	slices.SortFunc(rows, func(a, b T) int { return cmp.Compare(id(&a), id(&b)) })
}
