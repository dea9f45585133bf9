package pcapng

import (
	"errors"
	"fmt"
	"io"

	"github.com/etwkit/etw/catalog"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/tdh"
)

// Options select the packets a [Converter] writes. The zero value writes
// what pktmon's "etl2pcap" writes by default: every packet except PktMon's
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
}

// Stats counts what a conversion did.
type Stats struct {
	// Events is the number of events read (Convert) or given to Add.
	Events int64
	// Packets is the number of packets written: PktMonPackets +
	// NDISPackets. Drops is how many of them are PktMon drops.
	Packets, PktMonPackets, NDISPackets, Drops int64
	// Interfaces is the number of interfaces written.
	Interfaces int
	// Filtered counts the packets the options left out.
	Filtered int64
	// Unsupported counts PktMon packets of a type that has no pcapng link
	// type here (PacketType Unknown and HTTP).
	Unsupported int64
	// Undecodable counts packet events whose payload does not fit their
	// schema (a damaged or foreign record).
	Undecodable int64
	// Incomplete counts NDIS packets whose fragments did not all arrive:
	// a packet that a new one interrupts, a continuation without its
	// start, fragments still waiting when the input ends.
	Incomplete int64
	// Truncated counts packets longer than [MaxCaptureLength], written
	// cut to it.
	Truncated int64
	// OverLimit counts packets left out because the output already has
	// the most interfaces one output may have (65,536).
	OverLimit int64
	// Errors are the damaged buffers and records of the input ([Convert]):
	// the packets they held are lost, the rest is written.
	Errors etl.ErrorList
}

// Converter turns the packet events of ETW traces into pcapng packets:
// Microsoft-Windows-PktMon's packet and drop events and
// Microsoft-Windows-NDIS-PacketCapture's packet fragments. It streams:
// each interface is written when its first packet comes, packets as
// their events come, and memory holds only the interface tables and the
// NDIS packets being reassembled (bounded).
//
// Property values are read by name from the decoded events, so the
// schemas the trace carries, the built-in ones (NDIS) or imported ones
// all work; PktMon events with no schema (a trace recorded without
// pktmon's relogging) are decoded with PktMon's fixed layouts.
type Converter struct {
	w     *Writer
	opts  Options
	stats Stats

	components   map[uint16]*component
	pktmonIfaces map[pktmonIfaceKey]int
	ndisIfaces   map[ndisIfaceKey]int
	pending      map[ndisIfaceKey]*ndisPending
	pendingSeq   uint64
	sawStart     bool // an NDIS fragment with PacketStart was seen
	free         []*ndisPending
	wlan         map[uint32]wlanMeta

	fallback *tdh.Registry
	dec      tdh.Decoder
	comment  []byte
	buf80211 []byte
}

// NewConverter returns a Converter writing to w.
func NewConverter(w *Writer, opts *Options) *Converter {
	c := &Converter{
		w: w, components: map[uint16]*component{}, pktmonIfaces: map[pktmonIfaceKey]int{},
		ndisIfaces: map[ndisIfaceKey]int{}, pending: map[ndisIfaceKey]*ndisPending{}, wlan: map[uint32]wlanMeta{},
		fallback: fallbackRegistry(),
	}
	if opts != nil {
		c.opts = *opts
		c.opts.Components = append([]uint16(nil), opts.Components...)
	}
	return c
}

// fallbackRegistry holds the layouts used for events without a schema.
func fallbackRegistry() *tdh.Registry {
	r := tdh.NewRegistry()
	r.Add(catalog.PktMon()...)
	r.Add(catalog.NDISPacketCapture()...)
	return r
}

// IsPacketEvent reports whether ev is an event the converter turns into
// packets (or uses for them): PktMon's packet, drop and component events,
// NDIS-PacketCapture's fragments and 802.11 metadata.
func IsPacketEvent(ev *etl.Event) bool {
	if ev.Header != etl.HeaderEvent32 && ev.Header != etl.HeaderEvent64 {
		return false
	}
	switch ev.ProviderID {
	case PktMonGUID:
		return isPktMonPacket(ev.Descriptor.ID) || isPktMonRundown(ev.Descriptor.ID)
	case catalog.NDISPacketCaptureGUID:
		switch ev.Descriptor.ID {
		case catalog.NDISEventPacketFragment, catalog.NDISEventPacketMetadata, catalog.NDISEventVMSwitchPacketFragment:
			return true
		}
	}
	return false
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
func (c *Converter) decoded(ev *etl.Event, res *decode.Result) *tdh.Decoded {
	if res != nil && res.Schema != nil && res.Err == nil && res.Decoded != nil {
		return res.Decoded
	}
	s, ok := c.fallback.Lookup(ev.ProviderID, ev.Descriptor.ID, 0)
	if !ok {
		return nil
	}
	d, err := c.dec.Decode(s, ev.UserData, ev.PointerSize())
	if err != nil {
		return nil
	}
	return d
}

// Learn takes what ev says about interfaces (PktMon's component names,
// addresses and interface indexes) without writing anything. pktmon logs
// its component list when a capture stops, after the packets: a first
// pass over the trace with Learn lets the interfaces be named when their
// first packet is written. res is the decoder's result for ev, or nil.
func (c *Converter) Learn(ev *etl.Event, res *decode.Result) {
	if ev.ProviderID != PktMonGUID || !isPktMonRundown(ev.Descriptor.ID) ||
		ev.Header != etl.HeaderEvent32 && ev.Header != etl.HeaderEvent64 {
		return
	}
	if d := c.decoded(ev, res); d != nil {
		c.learnPktMon(ev.Descriptor.ID, d)
	}
}

// Add converts one event: a packet is written (after its interface, the
// first time), a fragment is kept until its packet is complete, and
// other events are ignored. res is the decoder's result for ev, or nil
// (PktMon and NDIS events are then decoded with their known layouts).
// The error is the writer's.
func (c *Converter) Add(ev *etl.Event, res *decode.Result) error {
	c.stats.Events++
	if !IsPacketEvent(ev) {
		return nil
	}
	id := ev.Descriptor.ID
	if ev.ProviderID == PktMonGUID && isPktMonRundown(id) {
		c.Learn(ev, res)
		return nil
	}
	d := c.decoded(ev, res)
	if d == nil {
		c.stats.Undecodable++
		return nil
	}
	if ev.ProviderID == PktMonGUID {
		return c.addPktMon(ev, d)
	}
	return c.addNDIS(ev, d)
}

// write writes a packet and counts it.
func (c *Converter) write(p *Packet) error {
	if len(p.Data) > MaxCaptureLength || p.OriginalLength > MaxCaptureLength && len(p.Data) == MaxCaptureLength {
		c.stats.Truncated++
	}
	if err := c.w.WritePacket(p); err != nil {
		return err
	}
	c.stats.Packets++
	return nil
}

// Close gives up the NDIS packets still waiting for fragments (counted
// as incomplete) and flushes the writer. It does not close the writer's
// destination.
func (c *Converter) Close() error {
	for k, p := range c.pending {
		c.releasePending(k, p)
	}
	return c.w.Flush()
}

// Stats returns the counts so far.
func (c *Converter) Stats() Stats {
	s := c.stats
	s.Interfaces = c.w.Interfaces()
	return s
}

// ConvertOptions configure [Convert].
type ConvertOptions struct {
	Options
	// Decoder decodes the events; nil means decode.New() with the
	// schemas the files carry ([decode.Decoder.Prescan]). A Decoder
	// given here should have been prescanned.
	Decoder *decode.Decoder
	// Section holds the section header's strings.
	Section *SectionOptions
	// Workers bounds the buffers read and decompressed at once (0: one
	// per CPU).
	Workers int
	// Strict stops at the first damaged buffer or record and returns it.
	Strict bool
	// Progress, if set, is called after each event with the number of
	// events read so far.
	Progress func(events int64)
}

// ErrDamaged is wrapped by the error of a strict conversion that met a
// damaged buffer or record.
var ErrDamaged = errors.New("pcapng: damaged input")

// Convert writes the packet events of files to w as pcapng: one section,
// an interface per PktMon component and link type or NDIS interface, one
// packet per PktMon packet event or reassembled NDIS packet, in time
// order. It reads the files twice: once for PktMon's component list,
// which pktmon logs after the packets, then for the packets. A damaged
// buffer costs only the packets it held: it is reported in
// [Stats].Errors and the conversion goes on (unless Strict).
func Convert(w io.Writer, files []*etl.File, opts *ConvertOptions) (*Stats, error) {
	var o ConvertOptions
	if opts != nil {
		o = *opts
	}
	dec := o.Decoder
	if dec == nil {
		dec = decode.New()
		// Carried schemas that cannot be used are left out: their events
		// fall back to the built-in and fixed layouts.
		_ = dec.Prescan(files)
	}
	pw, err := NewWriter(w, o.Section)
	if err != nil {
		return nil, err
	}
	c := NewConverter(pw, &o.Options)

	// Pass 1: the component list.
	r := etl.NewReader(files, &etl.ReaderOptions{Order: etl.FileOrder, Workers: o.Workers})
	for r.Next() {
		ev := r.Event()
		if ev.ProviderID == PktMonGUID && isPktMonRundown(ev.Descriptor.ID) {
			c.Learn(ev, dec.Decode(ev))
		}
	}
	r.Close()

	// Pass 2: the packets.
	r = etl.NewReader(files, &etl.ReaderOptions{Order: etl.TimeOrder, Workers: o.Workers})
	defer r.Close()
	var n int64
	for r.Next() {
		if o.Strict && len(r.Errors()) > 0 {
			break
		}
		ev := r.Event()
		var res *decode.Result
		if IsPacketEvent(ev) {
			res = dec.Decode(ev)
		}
		if err := c.Add(ev, res); err != nil {
			return statsWith(c, r), err
		}
		n++
		if o.Progress != nil {
			o.Progress(n)
		}
	}
	if err := c.Close(); err != nil {
		return statsWith(c, r), err
	}
	s := statsWith(c, r)
	if o.Strict && len(s.Errors) > 0 {
		return s, fmt.Errorf("%w: %w", ErrDamaged, s.Errors[0])
	}
	return s, nil
}

func statsWith(c *Converter, r *etl.Reader) *Stats {
	s := c.Stats()
	s.Errors = append(etl.ErrorList(nil), r.Errors()...)
	return &s
}
