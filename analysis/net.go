package analysis

import (
	"cmp"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/netcap"
)

// NetStats aggregates a trace's packet captures (PktMon, NDIS) as
// package netcap reads them, the reader package pcapng writes from:
// packets and bytes over time, by component (PktMon) or interface (NDIS),
// direction and protocol, PktMon's drops by reason and location, and the
// endpoints (address, port) that sent or received the most. Memory is
// bounded: the tables of groups and endpoints stop growing at
// maxNetGroups, later keys going to an "(other)" row.
type NetStats struct {
	src   *netcap.Source
	axis  TimeAxis
	fn    func(*netcap.Packet) error
	sum   NetSummary
	seen  bool
	comps map[netGroupKey]*NetGroup
	dirs  [3]NetGroup
	proto map[netProtoKey]*NetGroup
	drops map[netDropKey]*NetDrop
	ends  map[netEndpointKey]*NetEndpoint
	other NetEndpoint
}

// maxNetGroups bounds each table of NetStats (components, protocols,
// drop reasons, endpoints).
const maxNetGroups = 1 << 16

type netGroupKey struct {
	kind netcap.Kind
	id   uint32 // PktMon component, NDIS LowerIfIndex
}

type netProtoKey struct {
	ether     uint16
	ipVersion uint8
	proto     uint8
}

type netDropKey struct {
	reason    string
	location  uint64
	component uint16
}

type netEndpointKey struct {
	addr  netip.Addr
	port  uint16
	proto uint8
	ports bool
}

// NetSummary is the network section of a trace: what [NetStats] gives.
type NetSummary struct {
	// Packets counts the packets that are not drops and have a link type:
	// the packets "tracerpt-go pcapng" writes by default. Bytes are their
	// lengths on the wire (the original lengths).
	Packets int64 `json:"packets"`
	Bytes   int64 `json:"bytes"`
	// Drops counts PktMon's dropped packets (all, whatever their type);
	// DropBytes their lengths.
	Drops     int64 `json:"drops"`
	DropBytes int64 `json:"drop_bytes"`
	// PktMon and NDIS split Packets by provider.
	PktMon int64 `json:"pktmon"`
	NDIS   int64 `json:"ndis"`
	// Unsupported counts PktMon packets (not drops) of no link type
	// (PacketType Unknown or HTTP), which pcapng leaves out.
	Unsupported int64 `json:"unsupported"`
	// Undecodable counts packet events whose payload fits no layout;
	// Incomplete, NDIS packets whose fragments did not all arrive.
	Undecodable int64 `json:"undecodable"`
	Incomplete  int64 `json:"incomplete"`
	// BucketSec is the width of a bucket of Series (the trace's time
	// axis); Series are the packets and bytes per bucket by direction
	// (inbound, outbound, unknown; those with packets), then the drops.
	BucketSec float64     `json:"bucket_sec"`
	Series    []NetSeries `json:"series"`
	// ByComponent, ByDirection and ByProtocol break Packets (and Drops)
	// down, most packets first.
	ByComponent []NetGroup `json:"by_component"`
	ByDirection []NetGroup `json:"by_direction"`
	ByProtocol  []NetGroup `json:"by_protocol"`
	// DropReasons are the drops by reason, location and component, most
	// first; their Packets add up to Drops.
	DropReasons []NetDrop `json:"drop_reasons"`
	// Endpoints are the addresses and ports that sent or received the
	// most bytes (each packet counts for its source and its
	// destination), drops left out.
	Endpoints []NetEndpoint `json:"endpoints"`
}

// NetSeries is one direction's packets and bytes (or the drops) per
// bucket of time.
type NetSeries struct {
	Name    string  `json:"name"`
	Packets []int64 `json:"packets"`
	Bytes   []int64 `json:"bytes"`
}

// NetGroup is the traffic of one component, direction or protocol.
type NetGroup struct {
	Name    string `json:"name"`
	Packets int64  `json:"packets"`
	Bytes   int64  `json:"bytes"`
	Drops   int64  `json:"drops"`
}

// NetDrop is the drops of one reason at one location of one component.
type NetDrop struct {
	Reason    string `json:"reason"`
	Location  string `json:"location"` // hexadecimal, as pktmon prints it
	Component string `json:"component"`
	Packets   int64  `json:"packets"`
	Bytes     int64  `json:"bytes"`
}

// NetEndpoint is the traffic from and to one address and port.
type NetEndpoint struct {
	Address  string `json:"address"`
	Port     int    `json:"port,omitempty"`
	Protocol string `json:"protocol,omitempty"`
	Packets  int64  `json:"packets"`
	Bytes    int64  `json:"bytes"`
}

// NewNetStats returns an empty aggregate whose series use axis (the
// zero axis keeps none).
func NewNetStats(axis TimeAxis) *NetStats {
	s := &NetStats{src: netcap.NewSource(&netcap.Options{IncludeDrops: true, KeepUnsupported: true}), axis: axis,
		comps: map[netGroupKey]*NetGroup{}, proto: map[netProtoKey]*NetGroup{}, drops: map[netDropKey]*NetDrop{},
		ends: map[netEndpointKey]*NetEndpoint{}}
	s.fn = s.add
	return s
}

// series returns the series of index i (0 inbound, 1 outbound, 2
// unknown, 3 drops), made with the first packet; nil without a time axis.
func (s *NetStats) series(i int) *NetSeries {
	if s.sum.Series == nil {
		a := s.axis
		if !a.hasBuckets() {
			return nil
		}
		s.sum.BucketSec = float64(a.Width) / 1e7
		for _, n := range [...]string{"inbound", "outbound", "unknown", "drops"} {
			s.sum.Series = append(s.sum.Series, NetSeries{Name: n, Packets: make([]int64, a.Buckets), Bytes: make([]int64, a.Buckets)})
		}
	}
	return &s.sum.Series[i]
}

// Observe takes one event, decoded (res may be nil), in time order.
func (s *NetStats) Observe(ev *etl.Event, res *decode.Result) {
	if netcap.IsPacketEvent(ev) {
		s.seen = true
		_ = s.src.Add(ev, res, s.fn) // add returns no error
	}
}

func (s *NetStats) add(p *netcap.Packet) error {
	n := int64(max(p.OriginalLength, len(p.Data)))
	series := 3
	switch {
	case p.Drop:
		s.sum.Drops++
		s.sum.DropBytes += n
		d := group(s.drops, netDropKey{p.DropReason, p.DropLocation, p.Component}, netDropKey{reason: "(other)"})
		d.Packets++
		d.Bytes += n
	case p.Link == 0:
		s.sum.Unsupported++
		return nil
	default:
		s.sum.Packets++
		s.sum.Bytes += n
		if p.Kind == netcap.KindPktMon {
			s.sum.PktMon++
		} else {
			s.sum.NDIS++
		}
		switch p.Direction {
		case netcap.DirectionInbound:
			series = 0
		case netcap.DirectionOutbound:
			series = 1
		default:
			series = 2
		}
	}
	if se := s.series(series); se != nil {
		b := s.axis.Bucket(p.Time)
		se.Packets[b]++
		se.Bytes[b] += n
	}
	count := func(g *NetGroup) {
		if p.Drop {
			g.Drops++
			return
		}
		g.Packets++
		g.Bytes += n
	}
	k := netGroupKey{kind: p.Kind, id: uint32(p.Component)}
	if p.Kind == netcap.KindNDIS {
		k.id = p.LowerIfIndex
	}
	count(group(s.comps, k, netGroupKey{}))
	count(&s.dirs[min(int(p.Direction), 2)])
	h := netcap.ParseHeaders(p.Link, p.Data)
	count(group(s.proto, netProtoKey{h.EtherType, h.IPVersion, h.IPProtocol}, netProtoKey{}))
	if !p.Drop && h.IPVersion != 0 {
		s.endpoint(h.Src, h.SrcPort, &h, n)
		s.endpoint(h.Dst, h.DstPort, &h, n)
	}
	return nil
}

// group returns m's value of k, made when missing, or the shared value of
// other when m is full.
func group[K comparable, V any](m map[K]*V, k, other K) *V {
	g := m[k]
	if g == nil {
		if len(m) >= maxNetGroups {
			k = other
			if g = m[k]; g != nil {
				return g
			}
		}
		g = new(V)
		m[k] = g
	}
	return g
}

func (s *NetStats) endpoint(a netip.Addr, port uint16, h *netcap.Headers, n int64) {
	k := netEndpointKey{addr: a, port: port, proto: h.IPProtocol, ports: h.HasPorts}
	e := s.ends[k]
	if e == nil {
		if len(s.ends) >= maxNetGroups {
			e = &s.other
		} else {
			e = &NetEndpoint{}
			s.ends[k] = e
		}
	}
	e.Packets++
	e.Bytes += n
}

// Summary returns the network section with at most maxRows rows per
// table; nil when the trace has no packet events.
func (s *NetStats) Summary(maxRows int) *NetSummary {
	if !s.seen {
		return nil
	}
	s.src.Close()
	st := s.src.Stats()
	sum := s.sum
	sum.Undecodable, sum.Incomplete = st.Undecodable, st.Incomplete
	var series []NetSeries
	for _, se := range sum.Series {
		for _, v := range se.Packets {
			if v > 0 {
				series = append(series, se)
				break
			}
		}
	}
	sum.Series = series
	for k, g := range s.comps {
		g.Name = s.componentName(k)
		sum.ByComponent = append(sum.ByComponent, *g)
	}
	for i, name := range [...]string{"unknown", "inbound", "outbound"} {
		if g := s.dirs[i]; g.Packets+g.Drops > 0 {
			g.Name = name
			sum.ByDirection = append(sum.ByDirection, g)
		}
	}
	for k, g := range s.proto {
		h := netcap.Headers{EtherType: k.ether, IPVersion: k.ipVersion, IPProtocol: k.proto}
		g.Name = h.Protocol()
		if len(s.proto) >= maxNetGroups && k == (netProtoKey{}) {
			g.Name = "(other)"
		}
		sum.ByProtocol = append(sum.ByProtocol, *g)
	}
	byPackets := func(a, b NetGroup) int {
		return cmp.Or(cmp.Compare(b.Packets+b.Drops, a.Packets+a.Drops), cmp.Compare(b.Bytes, a.Bytes), strings.Compare(a.Name, b.Name))
	}
	for _, t := range []*[]NetGroup{&sum.ByComponent, &sum.ByDirection, &sum.ByProtocol} {
		slices.SortFunc(*t, byPackets)
		*t = (*t)[:min(len(*t), maxRows)]
	}
	for k, d := range s.drops {
		d.Reason, d.Location = k.reason, "0x"+strings.ToUpper(strconv.FormatUint(k.location, 16))
		d.Component = s.componentName(netGroupKey{netcap.KindPktMon, uint32(k.component)})
		sum.DropReasons = append(sum.DropReasons, *d)
	}
	slices.SortFunc(sum.DropReasons, func(a, b NetDrop) int {
		return cmp.Or(cmp.Compare(b.Packets, a.Packets), strings.Compare(a.Reason, b.Reason),
			strings.Compare(a.Location, b.Location), strings.Compare(a.Component, b.Component))
	})
	sum.DropReasons = sum.DropReasons[:min(len(sum.DropReasons), maxRows)]
	for k, e := range s.ends {
		e.Address = k.addr.String()
		if k.ports {
			e.Port = int(k.port)
			// Ports are TCP's or UDP's, which Protocol names whatever
			// the IP version.
			h := netcap.Headers{IPVersion: 4, IPProtocol: k.proto}
			e.Protocol = h.Protocol()
		}
		sum.Endpoints = append(sum.Endpoints, *e)
	}
	if s.other.Packets > 0 {
		o := s.other
		o.Address = "(other)"
		sum.Endpoints = append(sum.Endpoints, o)
	}
	slices.SortFunc(sum.Endpoints, func(a, b NetEndpoint) int {
		return cmp.Or(cmp.Compare(b.Bytes, a.Bytes), cmp.Compare(b.Packets, a.Packets), strings.Compare(a.Address, b.Address),
			cmp.Compare(a.Port, b.Port), strings.Compare(a.Protocol, b.Protocol))
	})
	sum.Endpoints = sum.Endpoints[:min(len(sum.Endpoints), maxRows)]
	return &sum
}

// componentName names a PktMon component from pktmon's component list
// ("79 Microsoft Kernel Debug Network Adapter") or an NDIS interface
// ("NDIS IfIndex 12").
func (s *NetStats) componentName(k netGroupKey) string {
	id := strconv.FormatUint(uint64(k.id), 10)
	switch k.kind {
	case 0:
		return "(other)"
	case netcap.KindNDIS:
		return "NDIS IfIndex " + id
	}
	if c, ok := s.src.Component(uint16(k.id)); ok && c.Name != "" {
		return id + " " + c.Name
	}
	return "component " + id
}
