package pcapng

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"net/netip"
	"time"
)

// Reader reads pcapng streams: section headers (either byte order),
// interface descriptions and enhanced packets, with the options this
// package writes. Other blocks are skipped. It is strict about framing
// (block lengths, alignment, option bounds), so tests use it to check
// what the writer writes.
type Reader struct {
	r       io.Reader
	bo      binary.ByteOrder
	section int
	ifaces  []Interface
	// Section holds the options of the current section header.
	Section SectionOptions
	buf     []byte
	off     int64
}

// NewReader returns a Reader of the pcapng stream r.
func NewReader(r io.Reader) *Reader { return &Reader{r: r} }

// Interfaces returns the interfaces of the current section read so far.
func (r *Reader) Interfaces() []Interface { return r.ifaces }

// ErrFormat is wrapped by the errors of a stream that is not valid
// pcapng.
var ErrFormat = errors.New("pcapng: bad format")

func (r *Reader) errorf(format string, args ...any) error {
	return fmt.Errorf("%w at offset %d: %s", ErrFormat, r.off, fmt.Sprintf(format, args...))
}

// maxBlock bounds the blocks the reader accepts.
const maxBlock = 16 << 20

// Next returns the next packet, reading the interface descriptions and
// section headers before it. It returns io.EOF at the end of the stream.
// The packet's Data is valid until the next call.
func (r *Reader) Next() (*Packet, error) {
	for {
		var hdr [8]byte
		if _, err := io.ReadFull(r.r, hdr[:]); err != nil {
			if err == io.EOF {
				if r.bo == nil {
					return nil, r.errorf("no section header")
				}
				return nil, io.EOF
			}
			return nil, r.errorf("truncated block header: %v", err)
		}
		typ := binary.LittleEndian.Uint32(hdr[:])
		if typ == blockSHB {
			// The byte order comes from the magic that follows.
			var magic [4]byte
			if _, err := io.ReadFull(r.r, magic[:]); err != nil {
				return nil, r.errorf("truncated section header")
			}
			switch binary.LittleEndian.Uint32(magic[:]) {
			case byteOrderMagic:
				r.bo = binary.LittleEndian
			case 0x4D3C2B1A:
				r.bo = binary.BigEndian
			default:
				return nil, r.errorf("bad byte-order magic %x", magic)
			}
			n := r.bo.Uint32(hdr[4:])
			if n < 28 || n%4 != 0 || n > maxBlock {
				return nil, r.errorf("section header length %d", n)
			}
			body, err := r.readBody(int(n) - 16)
			if err != nil {
				return nil, err
			}
			body = append(magic[:], body...)
			if err := r.readSHB(body); err != nil {
				return nil, err
			}
			if err := r.trailer(n); err != nil {
				return nil, err
			}
			r.off += int64(n)
			continue
		}
		if r.bo == nil {
			return nil, r.errorf("block %#x before the section header", typ)
		}
		typ = r.bo.Uint32(hdr[:])
		n := r.bo.Uint32(hdr[4:])
		if n < 12 || n%4 != 0 || n > maxBlock {
			return nil, r.errorf("block %#x length %d", typ, n)
		}
		body, err := r.readBody(int(n) - 12)
		if err != nil {
			return nil, err
		}
		if err := r.trailer(n); err != nil {
			return nil, err
		}
		switch typ {
		case blockIDB:
			if err := r.readIDB(body); err != nil {
				return nil, err
			}
		case blockEPB:
			p, err := r.readEPB(body)
			if err != nil {
				return nil, err
			}
			r.off += int64(n)
			return p, nil
		}
		r.off += int64(n)
	}
}

func (r *Reader) readBody(n int) ([]byte, error) {
	if cap(r.buf) < n {
		r.buf = make([]byte, n)
	}
	b := r.buf[:n]
	if _, err := io.ReadFull(r.r, b); err != nil {
		return nil, r.errorf("truncated block: %v", err)
	}
	return b, nil
}

func (r *Reader) trailer(n uint32) error {
	var t [4]byte
	if _, err := io.ReadFull(r.r, t[:]); err != nil {
		return r.errorf("truncated block trailer")
	}
	if r.bo.Uint32(t[:]) != n {
		return r.errorf("trailing length %d, leading %d", r.bo.Uint32(t[:]), n)
	}
	return nil
}

func (r *Reader) readSHB(b []byte) error {
	if len(b) < 16 {
		return r.errorf("short section header")
	}
	if major := r.bo.Uint16(b[4:]); major != 1 {
		return r.errorf("section version %d", major)
	}
	r.section++
	r.ifaces = r.ifaces[:0]
	r.Section = SectionOptions{}
	return r.options(b[16:], func(code uint16, v []byte) error {
		switch code {
		case optComment:
			r.Section.Comment = string(v)
		case optSHBHardware:
			r.Section.Hardware = string(v)
		case optSHBOS:
			r.Section.OS = string(v)
		case optSHBUserAppl:
			r.Section.Application = string(v)
		}
		return nil
	})
}

func (r *Reader) readIDB(b []byte) error {
	if len(b) < 8 {
		return r.errorf("short interface description")
	}
	ifc := Interface{LinkType: LinkType(r.bo.Uint16(b)), SnapLen: r.bo.Uint32(b[4:]), TSResol: 6}
	err := r.options(b[8:], func(code uint16, v []byte) error {
		switch code {
		case optComment:
			ifc.Comment = string(v)
		case optIfName:
			ifc.Name = string(v)
		case optIfDescription:
			ifc.Description = string(v)
		case optIfIPv4Addr:
			if len(v) != 8 {
				return r.errorf("if_IPv4addr of %d bytes", len(v))
			}
			a := netip.AddrFrom4([4]byte(v[:4]))
			bits := 0
			for _, m := range v[4:] {
				for ; m&0x80 != 0; m <<= 1 {
					bits++
				}
			}
			ifc.Addresses = append(ifc.Addresses, netip.PrefixFrom(a, bits))
		case optIfIPv6Addr:
			if len(v) != 17 {
				return r.errorf("if_IPv6addr of %d bytes", len(v))
			}
			ifc.Addresses = append(ifc.Addresses, netip.PrefixFrom(netip.AddrFrom16([16]byte(v[:16])), int(v[16])))
		case optIfMACAddr:
			if len(v) != 6 {
				return r.errorf("if_MACaddr of %d bytes", len(v))
			}
			ifc.MAC = append([]byte(nil), v...)
		case optIfTSResol:
			if len(v) != 1 {
				return r.errorf("if_tsresol of %d bytes", len(v))
			}
			ifc.TSResol = v[0]
		case optIfOS:
			ifc.OS = string(v)
		case optIfHardware:
			ifc.Hardware = string(v)
		}
		return nil
	})
	if err != nil {
		return err
	}
	r.ifaces = append(r.ifaces, ifc)
	return nil
}

func (r *Reader) readEPB(b []byte) (*Packet, error) {
	if len(b) < 20 {
		return nil, r.errorf("short enhanced packet block")
	}
	id := r.bo.Uint32(b)
	if int(id) >= len(r.ifaces) {
		return nil, r.errorf("packet of interface %d, %d described", id, len(r.ifaces))
	}
	ts := uint64(r.bo.Uint32(b[4:]))<<32 | uint64(r.bo.Uint32(b[8:]))
	capLen := r.bo.Uint32(b[12:])
	origLen := r.bo.Uint32(b[16:])
	padded := (uint64(capLen) + 3) &^ 3
	if padded > uint64(len(b)-20) {
		return nil, r.errorf("captured length %d beyond the block", capLen)
	}
	if origLen < capLen {
		return nil, r.errorf("original length %d below captured length %d", origLen, capLen)
	}
	p := &Packet{Interface: int(id), Data: b[20 : 20+capLen], OriginalLength: int(origLen)}
	p.Time = fromTimestamp(ts, r.ifaces[id].TSResol)
	err := r.options(b[20+padded:], func(code uint16, v []byte) error {
		switch code {
		case optComment:
			if p.Comment != "" {
				p.Comment += "\n"
			}
			p.Comment += string(v)
		case optEPBFlags:
			if len(v) != 4 {
				return r.errorf("epb_flags of %d bytes", len(v))
			}
			f := r.bo.Uint32(v)
			p.Direction, p.Flags = Direction(f&3), f&^3
		case optEPBPacketID:
			if len(v) != 8 {
				return r.errorf("epb_packetid of %d bytes", len(v))
			}
			p.PacketID, p.HasPacketID = r.bo.Uint64(v), true
		case optEPBVerdict:
			if len(v) < 1 {
				return r.errorf("empty epb_verdict")
			}
			vd := Verdict{Type: v[0]}
			if len(v) == 9 {
				vd.Value = r.bo.Uint64(v[1:])
			}
			p.Verdicts = append(p.Verdicts, vd)
		}
		return nil
	})
	return p, err
}

// options walks an option list, which must end with opt_endofopt when
// present and hold nothing after it but padding.
func (r *Reader) options(b []byte, f func(code uint16, v []byte) error) error {
	for len(b) > 0 {
		if len(b) < 4 {
			return r.errorf("truncated option")
		}
		code, n := r.bo.Uint16(b), int(r.bo.Uint16(b[2:]))
		if code == optEndOfOpt {
			if n != 0 {
				return r.errorf("opt_endofopt of length %d", n)
			}
			return nil
		}
		padded := (n + 3) &^ 3
		if 4+padded > len(b) {
			return r.errorf("option %d of %d bytes beyond the block", code, n)
		}
		if err := f(code, b[4:4+n]); err != nil {
			return err
		}
		b = b[4+padded:]
	}
	return nil
}

// fromTimestamp converts a timestamp in an interface's resolution.
func fromTimestamp(ts uint64, resol uint8) time.Time {
	if resol&0x80 == 0 {
		exp := int(resol)
		if exp <= 9 {
			unit := uint64(math.Pow10(9 - exp)) // ns per unit
			sec := ts / uint64(math.Pow10(exp))
			frac := ts % uint64(math.Pow10(exp))
			return time.Unix(int64(sec), int64(frac*unit)).UTC()
		}
		div := uint64(math.Pow10(min(exp, 19) - 9))
		return time.Unix(0, int64(ts/div)).UTC()
	}
	exp := min(int(resol&0x7F), 63)
	sec := ts >> exp
	frac := ts & (1<<exp - 1)
	return time.Unix(int64(sec), int64(float64(frac)/float64(uint64(1)<<exp)*1e9)).UTC()
}
