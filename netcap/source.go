package netcap

import (
	"github.com/etwkit/etw/catalog"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/tdh"
)

// Options select the packets a [Source] gives. The zero value gives what
// pktmon's "etl2pcap" writes by default: every packet except PktMon's
// drops.
type Options struct {
	// DropOnly keeps only the packets PktMon reports as dropped (pktmon
	// etl2pcap --drop-only). NDIS captures report no drops: none of
	// their packets pass.
	DropOnly bool
	// IncludeDrops keeps PktMon's drops along with the other packets
	// (pktmon has no such option: it writes drops only with
	// --drop-only).
	IncludeDrops bool
	// Components keeps only the PktMon packets seen by these component
	// ids (pktmon etl2pcap --component-id). NDIS packets have no
	// component: none pass when it is set.
	Components []uint16
	// KeepUnsupported gives the PktMon packets of a type that has no link
	// type here too (PacketType Unknown and HTTP), with Link 0 and
	// Interface -1 (no interface): to count them, not to write them.
	KeepUnsupported bool
}

// Stats counts what a [Source] did.
type Stats struct {
	// Events is the number of events given to Add.
	Events int64
	// Packets is the number of packets given to the callback and taken
	// (it returned nil): PktMonPackets + NDISPackets. Drops is how many
	// of them are PktMon drops.
	Packets, PktMonPackets, NDISPackets, Drops int64
	// Interfaces is the number of interfaces numbered.
	Interfaces int
	// Filtered counts the packets the options left out.
	Filtered int64
	// Unsupported counts PktMon packets of a type that has no link type
	// here (PacketType Unknown and HTTP); with KeepUnsupported they are
	// given (and counted in Packets) too.
	Unsupported int64
	// Undecodable counts packet events whose payload does not fit their
	// schema (a damaged or foreign record).
	Undecodable int64
	// Incomplete counts NDIS packets whose fragments did not all arrive:
	// a packet that a new one interrupts, a continuation without its
	// start, fragments still waiting when the input ends.
	Incomplete int64
	// OverLimit counts packets left out because their interface would be
	// past the most interfaces one output may have ([MaxInterfaces]).
	OverLimit int64
}

// MaxInterfaces bounds the interfaces a [Source] numbers (a pcapng
// interface id is 32-bit, but tools stop far earlier).
const MaxInterfaces = 1 << 16

// Link is the link layer a packet starts with.
type Link uint8

// Link layers.
const (
	LinkEthernet  Link = iota + 1 // IEEE 802.3 Ethernet
	LinkIEEE80211                 // IEEE 802.11 without radio header
	LinkRawIP                     // IPv4 or IPv6, from the version nibble
)

// String returns "Ethernet", "802.11" or "IP".
func (l Link) String() string {
	switch l {
	case LinkEthernet:
		return "Ethernet"
	case LinkIEEE80211:
		return "802.11"
	case LinkRawIP:
		return "IP"
	}
	return "unknown"
}

// Direction is a packet's direction as the capture saw it. Its values
// are the direction bits of pcapng's epb_flags.
type Direction uint8

// Directions.
const (
	DirectionUnknown  Direction = 0
	DirectionInbound  Direction = 1
	DirectionOutbound Direction = 2
)

// String returns "inbound", "outbound" or "unknown".
func (d Direction) String() string {
	switch d {
	case DirectionInbound:
		return "inbound"
	case DirectionOutbound:
		return "outbound"
	}
	return "unknown"
}

// Kind says which provider a packet came from.
type Kind uint8

// Kinds.
const (
	KindPktMon Kind = iota + 1 // Microsoft-Windows-PktMon
	KindNDIS                   // Microsoft-Windows-NDIS-PacketCapture
)

// Packet is one packet of a trace. Its slices and pointers are valid only
// during the callback that receives it.
type Packet struct {
	Kind Kind
	// Interface numbers the packet's interface in order of first use
	// (0, 1, …; -1 for a packet of no link type, see
	// [Options].KeepUnsupported); NewInterface is set on its first packet. A PktMon
	// interface is a component and link type; an NDIS one a kind (plain
	// or Hyper-V switch), LowerIfIndex, link type, and for the switch
	// its source port and VLAN.
	Interface    int
	NewInterface bool
	// Link is the link layer the packet starts with; 0 when the trace
	// gives none ([Options].KeepUnsupported).
	Link Link
	// Time is the event's (of the last fragment, for NDIS) UTC FILETIME.
	Time int64
	// Data holds the packet's bytes (at most [MaxLength]); OriginalLength
	// is its length on the wire as far as the trace says.
	Data           []byte
	OriginalLength int
	// Length is the number of bytes logged, also those past MaxLength.
	Length    int
	Direction Direction
	// Event is the event that carried the packet (the last fragment's).
	Event *etl.Event

	// PktMon: the packet event's id and fields.
	EventID               uint16
	Component             uint16
	PacketID              uint64 // PktGroupId
	HasPacketID           bool   // the event has PktGroupId (not the short forms)
	PktNumber, Appearance uint64
	Edge, Filter          uint64
	DirTag, PacketType    uint64
	Drop                  bool
	DropReason            string // DropReason as the schema renders it (drops only)
	DropLocation          uint64

	// NDIS: the interface indexes, the switch's data (Hyper-V switch
	// events) and the 802.11 receive metadata that preceded the packet.
	LowerIfIndex, MiniportIfIndex uint32
	VMSwitch                      *VMSwitch
	WLAN                          *WLANMetadata
}

// MaxLength is the most bytes of one packet a [Packet] holds: Wireshark's
// limit for these link types (262,144 bytes). Longer NDIS packets are
// cut to it; their Length and OriginalLength are kept.
const MaxLength = 262144

// Source turns packet events into packets. It streams: memory holds only
// the interface and component tables and the NDIS packets being
// reassembled (bounded).
//
// Property values are read by name from the decoded events, so the
// schemas the trace carries, the built-in ones (NDIS) or imported ones
// all work; PktMon events with no schema (a trace recorded without
// pktmon's relogging) are decoded with PktMon's fixed layouts.
type Source struct {
	opts  Options
	stats Stats

	components   map[uint16]*Component
	pktmonIfaces map[pktmonIfaceKey]int
	ndisIfaces   map[ndisIfaceKey]int
	pending      map[ndisIfaceKey]*ndisPending
	pendingSeq   uint64
	sawStart     bool // an NDIS fragment with PacketStart was seen
	free         []*ndisPending
	wlan         map[uint32]WLANMetadata

	fallback *tdh.Registry
	dec      tdh.Decoder
	pkt      Packet
	vms      VMSwitch
	meta     WLANMetadata
}

// NewSource returns a Source giving the packets opts select (nil: the
// zero Options).
func NewSource(opts *Options) *Source {
	s := &Source{
		components: map[uint16]*Component{}, pktmonIfaces: map[pktmonIfaceKey]int{},
		ndisIfaces: map[ndisIfaceKey]int{}, pending: map[ndisIfaceKey]*ndisPending{}, wlan: map[uint32]WLANMetadata{},
		fallback: fallbackRegistry(),
	}
	if opts != nil {
		s.opts = *opts
		s.opts.Components = append([]uint16(nil), opts.Components...)
	}
	return s
}

// fallbackRegistry holds the layouts used for events without a schema.
func fallbackRegistry() *tdh.Registry {
	r := tdh.NewRegistry()
	r.Add(catalog.PktMon()...)
	r.Add(catalog.NDISPacketCapture()...)
	return r
}

// IsPacketEvent reports whether ev is an event a [Source] turns into
// packets (or uses for them): PktMon's packet, drop and component events,
// NDIS-PacketCapture's fragments and 802.11 metadata.
func IsPacketEvent(ev *etl.Event) bool {
	if ev.Header != etl.HeaderEvent32 && ev.Header != etl.HeaderEvent64 {
		return false
	}
	switch ev.ProviderID {
	case catalog.PktMonGUID:
		return isPktMonPacket(ev.Descriptor.ID) || isPktMonRundown(ev.Descriptor.ID)
	case catalog.NDISPacketCaptureGUID:
		switch ev.Descriptor.ID {
		case catalog.NDISEventPacketFragment, catalog.NDISEventPacketMetadata, catalog.NDISEventVMSwitchPacketFragment:
			return true
		}
	}
	return false
}

// IsRundown reports whether ev is one of PktMon's component-list events,
// which [Source.Learn] reads.
func IsRundown(ev *etl.Event) bool {
	return ev.ProviderID == catalog.PktMonGUID && isPktMonRundown(ev.Descriptor.ID) &&
		(ev.Header == etl.HeaderEvent32 || ev.Header == etl.HeaderEvent64)
}

func isPktMonRundown(id uint16) bool {
	switch id {
	case catalog.PktMonComponent, catalog.PktMonPropUint32, catalog.PktMonPropIPv4, catalog.PktMonPropIPv6, catalog.PktMonPropMAC:
		return true
	}
	return false
}

// decoded returns ev's properties: res's when its schema fits the
// payload, else the fallback layout's, else nil.
func (s *Source) decoded(ev *etl.Event, res *decode.Result) *tdh.Decoded {
	if res != nil && res.Schema != nil && res.Err == nil && res.Decoded != nil {
		return res.Decoded
	}
	sc, ok := s.fallback.Lookup(ev.ProviderID, ev.Descriptor.ID, 0)
	if !ok {
		return nil
	}
	d, err := s.dec.Decode(sc, ev.UserData, ev.PointerSize())
	if err != nil {
		return nil
	}
	return d
}

// Learn takes what ev says about interfaces (PktMon's component names,
// addresses and interface indexes) without giving any packet. pktmon logs
// its component list when a capture stops, after the packets: a first
// pass over the trace with Learn lets the interfaces be named when their
// first packet comes. res is the decoder's result for ev, or nil.
func (s *Source) Learn(ev *etl.Event, res *decode.Result) {
	if !IsRundown(ev) {
		return
	}
	if d := s.decoded(ev, res); d != nil {
		s.learnPktMon(ev.Descriptor.ID, d)
	}
}

// Add takes one event: a packet is given to fn, a fragment is kept until
// its packet is complete, and other events are ignored. res is the
// decoder's result for ev, or nil (PktMon and NDIS events are then
// decoded with their known layouts). The error is fn's: the packet is
// not counted.
func (s *Source) Add(ev *etl.Event, res *decode.Result, fn func(*Packet) error) error {
	s.stats.Events++
	if !IsPacketEvent(ev) {
		return nil
	}
	id := ev.Descriptor.ID
	if ev.ProviderID == catalog.PktMonGUID && isPktMonRundown(id) {
		s.Learn(ev, res)
		return nil
	}
	d := s.decoded(ev, res)
	if d == nil {
		s.stats.Undecodable++
		return nil
	}
	if ev.ProviderID == catalog.PktMonGUID {
		return s.addPktMon(ev, d, fn)
	}
	return s.addNDIS(ev, d, fn)
}

// give hands p to fn and counts it.
func (s *Source) give(p *Packet, fn func(*Packet) error) error {
	if err := fn(p); err != nil {
		return err
	}
	s.stats.Packets++
	if p.Kind == KindPktMon {
		s.stats.PktMonPackets++
		if p.Drop {
			s.stats.Drops++
		}
	} else {
		s.stats.NDISPackets++
	}
	return nil
}

// iface returns the number of the interface k of m, numbering it the
// first time, or -1 past [MaxInterfaces].
func iface[K comparable](s *Source, m map[K]int, k K) (id int, isNew bool) {
	if id, ok := m[k]; ok {
		return id, false
	}
	if s.stats.Interfaces >= MaxInterfaces {
		return -1, false
	}
	id = s.stats.Interfaces
	m[k] = id
	s.stats.Interfaces++
	return id, true
}

// Close gives up the NDIS packets still waiting for fragments (counted
// as incomplete).
func (s *Source) Close() {
	for k, p := range s.pending {
		s.releasePending(k, p)
	}
}

// Stats returns the counts so far.
func (s *Source) Stats() Stats { return s.stats }
