package pcapng

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"net/netip"
	"time"
	"unicode/utf8"

	"github.com/etwkit/etw/netcap"
)

// Block types.
const (
	blockSHB = 0x0A0D0D0A // section header
	blockIDB = 0x00000001 // interface description
	blockEPB = 0x00000006 // enhanced packet
)

// byteOrderMagic is the section header's byte-order magic.
const byteOrderMagic = 0x1A2B3C4D

// Option codes.
const (
	optEndOfOpt = 0
	optComment  = 1

	optSHBHardware = 2
	optSHBOS       = 3
	optSHBUserAppl = 4

	optIfName        = 2
	optIfDescription = 3
	optIfIPv4Addr    = 4
	optIfIPv6Addr    = 5
	optIfMACAddr     = 6
	optIfTSResol     = 9
	optIfOS          = 12
	optIfHardware    = 15

	optEPBFlags    = 2
	optEPBPacketID = 5
	optEPBVerdict  = 7
)

// LinkType is a pcapng link type (LINKTYPE_* of the tcpdump.org list).
type LinkType uint16

// Link types the converters write.
const (
	LinkTypeEthernet  LinkType = 1   // IEEE 802.3 Ethernet
	LinkTypeRaw       LinkType = 101 // raw IP: IPv4 or IPv6, from the version nibble
	LinkTypeIEEE80211 LinkType = 105 // IEEE 802.11 without radio header
	LinkTypeIPv4      LinkType = 228 // raw IPv4
	LinkTypeIPv6      LinkType = 229 // raw IPv6
)

// String returns the link type's LINKTYPE_ name ("ETHERNET").
func (l LinkType) String() string {
	switch l {
	case LinkTypeEthernet:
		return "ETHERNET"
	case LinkTypeRaw:
		return "RAW"
	case LinkTypeIEEE80211:
		return "IEEE802_11"
	case LinkTypeIPv4:
		return "IPV4"
	case LinkTypeIPv6:
		return "IPV6"
	}
	return fmt.Sprintf("LINKTYPE_%d", uint16(l))
}

// MaxCaptureLength is the largest captured length the writer writes:
// Wireshark's limit for these link types (262,144 bytes). Longer packets
// are truncated to it; their original length is kept.
const MaxCaptureLength = 262144

// maxOption is the largest option value (the length field is 16 bits).
const maxOption = 0xFFFF &^ 3

// TSResol is the time-stamp resolution every interface is written with
// (if_tsresol 7: 10^-7 s, the 100 ns of ETW's FILETIME timestamps).
const TSResol = 7

// SectionOptions are the optional strings of the section header.
type SectionOptions struct {
	Hardware    string // shb_hardware
	OS          string // shb_os
	Application string // shb_userappl
	Comment     string // opt_comment
}

// Interface describes one capture interface (an Interface Description
// Block). Every interface is written with a 100 ns time-stamp
// resolution ([TSResol]).
type Interface struct {
	LinkType LinkType
	// SnapLen is the largest captured length of the interface's packets;
	// 0 means [MaxCaptureLength].
	SnapLen     uint32
	Name        string // if_name
	Description string // if_description
	// MAC is the interface's 6-byte (EUI-48) hardware address
	// (if_MACaddr); other lengths are not written.
	MAC []byte
	// Addresses are the interface's IPv4 addresses with their masks
	// (if_IPv4addr) and IPv6 addresses with their prefix lengths
	// (if_IPv6addr).
	Addresses []netip.Prefix
	Hardware  string // if_hardware
	OS        string // if_os
	Comment   string // opt_comment
	// TSResol is the time-stamp resolution read back from a file
	// (if_tsresol: bit 7 clear, 10^-n s; set, 2^-n s). The writer
	// ignores it and writes [TSResol].
	TSResol uint8
}

// Direction is the packet direction of epb_flags (bits 0-1): package
// netcap's, whose values are those bits.
type Direction = netcap.Direction

// Directions.
const (
	DirectionUnknown  = netcap.DirectionUnknown
	DirectionInbound  = netcap.DirectionInbound
	DirectionOutbound = netcap.DirectionOutbound
)

// Verdict types of epb_verdict.
const (
	VerdictHardware = 0 // hardware or firmware verdict, opaque bytes
	VerdictLinuxTC  = 1 // Linux eBPF TC (TC_ACT_*)
	VerdictXDP      = 2 // Linux eBPF XDP (XDP_*)
)

// Verdict is one epb_verdict option: the type byte and a 64-bit value
// (the form eBPF TC and XDP verdicts take).
type Verdict struct {
	Type  uint8
	Value uint64
}

// XDPDrop is the verdict the converters give dropped packets (eBPF XDP
// verdict 1, XDP_DROP), as microsoft/etl2pcapng does: Wireshark shows it
// and filters it with frame.verdict.
var XDPDrop = []Verdict{{Type: VerdictXDP, Value: 1}}

// Packet is one captured packet (an Enhanced Packet Block).
type Packet struct {
	// Interface is the id [Writer.AddInterface] returned.
	Interface int
	// Time is the capture time; it is written in 100 ns units since
	// 1970-01-01 UTC (earlier times are written as 1970-01-01).
	Time time.Time
	// Data holds the captured bytes.
	Data []byte
	// OriginalLength is the packet's length on the wire; less than
	// len(Data) (0 in particular) means len(Data).
	OriginalLength int
	// Direction and Flags make up epb_flags (Flags without bits 0-1),
	// written when either is non-zero.
	Direction Direction
	Flags     uint32
	// Comment is written as opt_comment when not empty (UTF-8).
	Comment string
	// PacketID is written as epb_packetid when HasPacketID is set.
	PacketID    uint64
	HasPacketID bool
	// Verdicts are written as epb_verdict options.
	Verdicts []Verdict
}

// Writer writes a pcapng stream: one section header, then interfaces and
// packets as they come. An interface must be added before the first
// packet that uses it, and may be added at any point before that: the
// writer holds no packets back, so memory does not grow with the capture.
type Writer struct {
	bw      *bufio.Writer
	opts    []byte   // option scratch
	head    []byte   // block header and fixed body
	tail    []byte   // padding, options and trailing length
	epb     [20]byte // EPB fixed body
	ifaces  []uint32 // snap length per interface id
	packets int64
	err     error
}

// NewWriter writes a section header to w and returns a Writer for its
// interfaces and packets. Output is buffered: call [Writer.Flush] (or
// [Writer.Close]) at the end.
func NewWriter(w io.Writer, opts *SectionOptions) (*Writer, error) {
	pw := &Writer{bw: bufio.NewWriterSize(w, 64<<10)}
	var o SectionOptions
	if opts != nil {
		o = *opts
	}
	body := binary.LittleEndian.AppendUint32(nil, byteOrderMagic)
	body = binary.LittleEndian.AppendUint16(body, 1) // major
	body = binary.LittleEndian.AppendUint16(body, 0) // minor
	body = binary.LittleEndian.AppendUint64(body, ^uint64(0))
	var op []byte
	op = appendStringOption(op, optComment, o.Comment)
	op = appendStringOption(op, optSHBHardware, o.Hardware)
	op = appendStringOption(op, optSHBOS, o.OS)
	op = appendStringOption(op, optSHBUserAppl, o.Application)
	pw.writeBlock(blockSHB, body, nil, endOptions(op))
	return pw, pw.err
}

// AddInterface writes an interface description and returns the
// interface's id, for [Packet].Interface.
func (w *Writer) AddInterface(ifc *Interface) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	snap := ifc.SnapLen
	if snap == 0 || snap > MaxCaptureLength {
		snap = MaxCaptureLength
	}
	body := binary.LittleEndian.AppendUint16(nil, uint16(ifc.LinkType))
	body = binary.LittleEndian.AppendUint16(body, 0)
	body = binary.LittleEndian.AppendUint32(body, snap)
	var op []byte
	op = appendStringOption(op, optComment, ifc.Comment)
	op = appendStringOption(op, optIfName, ifc.Name)
	op = appendStringOption(op, optIfDescription, ifc.Description)
	for _, a := range ifc.Addresses {
		switch {
		case a.Addr().Is4():
			v := a.Addr().As4()
			mask := net4Mask(a.Bits())
			op = appendOption(op, optIfIPv4Addr, append(v[:], mask[:]...))
		case a.Addr().Is6():
			v := a.Addr().As16()
			op = appendOption(op, optIfIPv6Addr, append(v[:], byte(max(a.Bits(), 0))))
		}
	}
	if len(ifc.MAC) == 6 {
		op = appendOption(op, optIfMACAddr, ifc.MAC)
	}
	op = appendOption(op, optIfTSResol, []byte{TSResol})
	op = appendStringOption(op, optIfOS, ifc.OS)
	op = appendStringOption(op, optIfHardware, ifc.Hardware)
	w.writeBlock(blockIDB, body, nil, endOptions(op))
	if w.err != nil {
		return 0, w.err
	}
	w.ifaces = append(w.ifaces, snap)
	return len(w.ifaces) - 1, nil
}

// net4Mask returns the IPv4 netmask of a prefix length (all ones for an
// invalid one).
func net4Mask(bits int) [4]byte {
	if bits < 0 || bits > 32 {
		bits = 32
	}
	m := ^uint32(0) << (32 - bits)
	if bits == 0 {
		m = 0
	}
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], m)
	return b
}

// ErrUnknownInterface is returned for a packet whose interface was not
// added.
var ErrUnknownInterface = errors.New("pcapng: packet of an interface not added")

// WritePacket writes an enhanced packet block. Data longer than the
// interface's snap length is truncated to it (the original length says
// how long the packet was).
func (w *Writer) WritePacket(p *Packet) error {
	if w.err != nil {
		return w.err
	}
	if p.Interface < 0 || p.Interface >= len(w.ifaces) {
		return fmt.Errorf("%w: interface %d of %d", ErrUnknownInterface, p.Interface, len(w.ifaces))
	}
	data := p.Data
	if snap := w.ifaces[p.Interface]; uint32(len(data)) > snap {
		data = data[:snap]
	}
	orig := max(p.OriginalLength, len(p.Data))
	ts := timestamp(p.Time)
	body := w.epb[:]
	binary.LittleEndian.PutUint32(body[0:], uint32(p.Interface))
	binary.LittleEndian.PutUint32(body[4:], uint32(ts>>32))
	binary.LittleEndian.PutUint32(body[8:], uint32(ts))
	binary.LittleEndian.PutUint32(body[12:], uint32(len(data)))
	binary.LittleEndian.PutUint32(body[16:], uint32(min(orig, 0xFFFFFFFF)))

	op := w.opts[:0]
	op = appendStringOption(op, optComment, p.Comment)
	if flags := p.Flags&^3 | uint32(p.Direction&3); flags != 0 {
		op = appendUint32Option(op, optEPBFlags, flags)
	}
	if p.HasPacketID {
		op = appendUint64Option(op, optEPBPacketID, p.PacketID)
	}
	for _, v := range p.Verdicts {
		op = binary.LittleEndian.AppendUint16(op, optEPBVerdict)
		op = binary.LittleEndian.AppendUint16(op, 9)
		op = append(op, v.Type)
		op = binary.LittleEndian.AppendUint64(op, v.Value)
		op = append(op, 0, 0, 0)
	}
	op = endOptions(op)
	w.opts = op
	w.writeBlock(blockEPB, body, data, op)
	if w.err == nil {
		w.packets++
	}
	return w.err
}

// timestamp returns t in 100 ns units since 1970-01-01 UTC, 0 for
// earlier times.
func timestamp(t time.Time) uint64 {
	s := t.Unix()
	switch {
	case s < 0:
		return 0
	case uint64(s) > (math.MaxUint64-1e7)/uint64(1e7):
		return math.MaxUint64 // saturated: a damaged record's time
	}
	return uint64(s)*1e7 + uint64(t.Nanosecond()/100)
}

// writeBlock writes a block: fixed body, then data (padded to 4), then
// the encoded options.
func (w *Writer) writeBlock(typ uint32, body, data, options []byte) {
	if w.err != nil {
		return
	}
	pad := (4 - len(data)%4) % 4
	total := uint32(12 + len(body) + len(data) + pad + len(options))
	head := binary.LittleEndian.AppendUint32(w.head[:0], typ)
	head = binary.LittleEndian.AppendUint32(head, total)
	head = append(head, body...)
	w.head = head
	tail := append(w.tail[:0], "\x00\x00\x00"[:pad]...)
	tail = append(tail, options...)
	tail = binary.LittleEndian.AppendUint32(tail, total)
	w.tail = tail
	if _, err := w.bw.Write(head); err != nil {
		w.err = err
		return
	}
	if _, err := w.bw.Write(data); err != nil {
		w.err = err
		return
	}
	if _, err := w.bw.Write(tail); err != nil {
		w.err = err
	}
}

// Flush writes the buffered blocks to the underlying writer.
func (w *Writer) Flush() error {
	if w.err != nil {
		return w.err
	}
	w.err = w.bw.Flush()
	return w.err
}

// Close flushes the writer. It does not close the underlying writer.
func (w *Writer) Close() error { return w.Flush() }

// Interfaces returns the number of interfaces added.
func (w *Writer) Interfaces() int { return len(w.ifaces) }

// Packets returns the number of packets written.
func (w *Writer) Packets() int64 { return w.packets }

// appendOption appends one option, its value padded to 4 bytes and cut
// to the largest option length.
func appendOption[T []byte | string](dst []byte, code uint16, v T) []byte {
	if len(v) > maxOption {
		v = v[:maxOption]
	}
	dst = binary.LittleEndian.AppendUint16(dst, code)
	dst = binary.LittleEndian.AppendUint16(dst, uint16(len(v)))
	dst = append(dst, v...)
	for i := len(v); i%4 != 0; i++ {
		dst = append(dst, 0)
	}
	return dst
}

// appendStringOption appends a UTF-8 string option, if s is not empty;
// invalid UTF-8 is replaced and a string too long for an option is cut
// at a character boundary.
func appendStringOption(dst []byte, code uint16, s string) []byte {
	if s == "" {
		return dst
	}
	if !utf8.ValidString(s) {
		s = toValidUTF8(s)
	}
	if len(s) > maxOption {
		n := maxOption
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		s = s[:n]
	}
	return appendOption(dst, code, s)
}

func toValidUTF8(s string) string {
	b := make([]byte, 0, len(s))
	for len(s) > 0 {
		r, n := utf8.DecodeRuneInString(s)
		b = utf8.AppendRune(b, r)
		s = s[n:]
	}
	return string(b)
}

func appendUint32Option(dst []byte, code uint16, v uint32) []byte {
	dst = binary.LittleEndian.AppendUint16(dst, code)
	dst = binary.LittleEndian.AppendUint16(dst, 4)
	return binary.LittleEndian.AppendUint32(dst, v)
}

func appendUint64Option(dst []byte, code uint16, v uint64) []byte {
	dst = binary.LittleEndian.AppendUint16(dst, code)
	dst = binary.LittleEndian.AppendUint16(dst, 8)
	return binary.LittleEndian.AppendUint64(dst, v)
}

// endOptions ends an option list with opt_endofopt; an empty list stays
// empty (no options at all).
func endOptions(op []byte) []byte {
	if len(op) == 0 {
		return op
	}
	return append(op, 0, 0, 0, 0)
}
