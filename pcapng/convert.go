package pcapng

import (
	"errors"
	"fmt"
	"io"

	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/netcap"
)

// Options select the packets a [Converter] writes. The zero value writes
// what pktmon's "etl2pcap" writes by default: every packet except PktMon's
// drops.
type Options = netcap.Options

// Stats counts what a conversion did: the counts of package netcap's
// source that read the packets (its Packets are the packets written, its
// Interfaces the interfaces written), and the writer's.
type Stats struct {
	netcap.Stats
	// Truncated counts packets longer than [MaxCaptureLength], written
	// cut to it.
	Truncated int64
	// Errors are the damaged buffers and records of the input ([Convert]):
	// the packets they held are lost, the rest is written.
	Errors etl.ErrorList
}

// Converter turns the packet events of ETW traces into pcapng packets:
// Microsoft-Windows-PktMon's packet and drop events and
// Microsoft-Windows-NDIS-PacketCapture's packet fragments, as package
// netcap reads them. It streams: each interface is written when its first
// packet comes, packets as their events come, and memory holds only the
// interface tables and the NDIS packets being reassembled (bounded).
type Converter struct {
	w         *Writer
	src       *netcap.Source
	write     func(*netcap.Packet) error
	truncated int64

	comment  []byte
	buf80211 []byte
}

// NewConverter returns a Converter writing to w.
func NewConverter(w *Writer, opts *Options) *Converter {
	c := &Converter{w: w, src: netcap.NewSource(opts)}
	c.write = c.writePacket
	return c
}

// IsPacketEvent reports whether ev is an event the converter turns into
// packets (or uses for them): PktMon's packet, drop and component events,
// NDIS-PacketCapture's fragments and 802.11 metadata.
func IsPacketEvent(ev *etl.Event) bool { return netcap.IsPacketEvent(ev) }

// Learn takes what ev says about interfaces (PktMon's component names,
// addresses and interface indexes) without writing anything. pktmon logs
// its component list when a capture stops, after the packets: a first
// pass over the trace with Learn lets the interfaces be named when their
// first packet is written. res is the decoder's result for ev, or nil.
func (c *Converter) Learn(ev *etl.Event, res *decode.Result) { c.src.Learn(ev, res) }

// Add converts one event: a packet is written (after its interface, the
// first time), a fragment is kept until its packet is complete, and
// other events are ignored. res is the decoder's result for ev, or nil
// (PktMon and NDIS events are then decoded with their known layouts).
// The error is the writer's.
func (c *Converter) Add(ev *etl.Event, res *decode.Result) error { return c.src.Add(ev, res, c.write) }

// writePacket writes the interface of a packet's first one, then the
// packet.
func (c *Converter) writePacket(np *netcap.Packet) error {
	if np.NewInterface {
		d := c.src.Interface(np)
		ifc := Interface{LinkType: linkType(np.Link), Name: d.Name, Description: d.Description, MAC: d.MAC,
			Addresses: d.Addrs, Hardware: d.Hardware, Comment: d.Comment}
		id, err := c.w.AddInterface(&ifc)
		if err != nil {
			return err
		}
		if id != np.Interface {
			return fmt.Errorf("pcapng: interface %d written as %d", np.Interface, id)
		}
	}
	p := Packet{Interface: np.Interface, Time: etl.FiletimeToTime(np.Time), Data: np.Data, OriginalLength: np.OriginalLength,
		Direction: np.Direction}
	if np.Kind == netcap.KindPktMon {
		p.Comment = c.pktmonComment(np)
		p.PacketID, p.HasPacketID = np.PacketID, np.HasPacketID
		if np.Drop {
			p.Verdicts = XDPDrop
		}
	} else {
		p.Data = c.ndisData(np)
		p.Comment = c.ndisComment(np)
	}
	if len(p.Data) > MaxCaptureLength || p.OriginalLength > MaxCaptureLength && len(p.Data) == MaxCaptureLength {
		c.truncated++
	}
	return c.w.WritePacket(&p)
}

// linkType returns the pcapng link type of a packet's link layer.
func linkType(l netcap.Link) LinkType {
	switch l {
	case netcap.LinkIEEE80211:
		return LinkTypeIEEE80211
	case netcap.LinkRawIP:
		return LinkTypeRaw
	}
	return LinkTypeEthernet
}

// Close gives up the NDIS packets still waiting for fragments (counted
// as incomplete) and flushes the writer. It does not close the writer's
// destination.
func (c *Converter) Close() error {
	c.src.Close()
	return c.w.Flush()
}

// Stats returns the counts so far.
func (c *Converter) Stats() Stats {
	s := Stats{Stats: c.src.Stats(), Truncated: c.truncated}
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
		if netcap.IsRundown(ev) {
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
