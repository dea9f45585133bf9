package compress

import (
	"encoding/binary"
	"math/bits"
)

// Margins of decodeLZ77Fast: it decodes an item only while at least
// fastSrcMargin input bytes and fastDstMargin output bytes remain, so that
// a flag word, a literal run moved in 8-byte words (at most 32 bytes) or
// the longest match header it decodes (2 bytes, a length nibble and a
// length byte) can be read, and a literal run or a match of up to 32 bytes
// written in 8-byte words, without further checks (a longer match is
// checked against the room left).
const (
	fastSrcMargin = 4 + 32 + 4
	fastDstMargin = 32 + 32
)

// decodeLZ77Fast decodes the items of a Plain LZ77 stream that lie well
// inside src and dst, from the decoder state of DecompressLZ77 (input and
// output offsets, unread flag bits, the pending shared length nibble), and
// returns the state after them. It stops at an item boundary before
// anything it leaves to DecompressLZ77: the last bytes of src or dst, a
// 16- or 32-bit match length, a match that reaches before the output,
// and a long match that would end within 8 bytes of its end, which
// DecompressLZ77 then decodes or reports with its own checks. It never fails, so the result does not depend on it.
//
// Literal runs and matches with offsets of 8 or more are moved 8 bytes at
// a time; the bytes written past an item are rewritten by the items after
// it or lie beyond the count DecompressLZ77 returns. A match with offset
// 8 or more never reads a byte it has not yet written, so word moves
// repeat the pattern as byte moves would.
func decodeLZ77Fast(dst, src []byte, in, out int, flags uint32, nflags, half int) (int, int, uint32, int, int) {
	// The unread flags in the top nflags bits of f, followed by a 1 bit:
	// f's leading zeros never run past the flags, and f is 1<<63 when
	// none are left.
	f := uint64(flags)<<32 | 1<<(63-nflags)
	src, dst = src[:len(src):len(src)], dst[:len(dst):len(dst)]
	inEnd, outEnd := len(src)-fastSrcMargin, len(dst)-fastDstMargin
	for in <= inEnd && out <= outEnd {
		// Windows of the margins' fixed lengths: their constant
		// indexes need no bounds checks.
		s := src[in : in+fastSrcMargin : in+fastSrcMargin]
		d := dst[out : out+fastDstMargin : out+fastDstMargin]
		if f == 1<<63 {
			f = uint64(binary.LittleEndian.Uint32(s))<<32 | 1<<31
			in += 4
			continue
		}

		// A run of literals: at most 32 bytes, within both margins.
		if int64(f) >= 0 {
			n := bits.LeadingZeros64(f)
			binary.LittleEndian.PutUint64(d, binary.LittleEndian.Uint64(s))
			if n > 8 {
				binary.LittleEndian.PutUint64(d[8:], binary.LittleEndian.Uint64(s[8:]))
				binary.LittleEndian.PutUint64(d[16:], binary.LittleEndian.Uint64(s[16:]))
				binary.LittleEndian.PutUint64(d[24:], binary.LittleEndian.Uint64(s[24:]))
			}
			in += n
			out += n
			f <<= uint(n)
			continue
		}

		// A match; the state moves past it only once it is copied.
		mb := int(binary.LittleEndian.Uint16(s))
		offset := mb>>3 + 1
		if offset > out {
			break // before the start of dst
		}
		length := mb&7 + 3
		used, nextHalf := 2, half
		if length == 7+3 {
			if half < 0 {
				length = int(s[2] & 15)
				nextHalf = in + 2
				used = 3
			} else {
				length = int(src[half] >> 4)
				nextHalf = -1
			}
			if length == 15 {
				length = int(s[used])
				if length == 255 {
					break // a 16- or 32-bit length
				}
				used++
				length += 15
			}
			length += 7 + 3
			if length > len(dst)-out-8 {
				break // the end of dst
			}
		}
		in += used
		half = nextHalf
		f <<= 1
		from := out - offset
		// The first and third cases repeat copyMatch's first two on
		// purpose; sharing them cost instructions (stats of
		// net.4.5.2.x64.etl under cachegrind, session 11): a call to
		// copyMatch for them 747M -> 803M in all (+7.5 %), and an inlined
		// helper for the two 8-byte moves, shared with copyMatch, +1.7M
		// in this function (+1.15 %, as in BenchmarkDecompressLZ77): the
		// compiler keeps an inline-mark NOP per inlined call for
		// tracebacks (golang/go#29571), two more per short match.
		switch {
		case offset >= 8 && length <= 16:
			w := dst[from : out+16]
			binary.LittleEndian.PutUint64(d, binary.LittleEndian.Uint64(w))
			binary.LittleEndian.PutUint64(d[8:], binary.LittleEndian.Uint64(w[8:]))
		case offset >= 8 && length <= 32:
			w := dst[from : out+32]
			binary.LittleEndian.PutUint64(d, binary.LittleEndian.Uint64(w))
			binary.LittleEndian.PutUint64(d[8:], binary.LittleEndian.Uint64(w[8:]))
			binary.LittleEndian.PutUint64(d[16:], binary.LittleEndian.Uint64(w[16:]))
			binary.LittleEndian.PutUint64(d[24:], binary.LittleEndian.Uint64(w[24:]))
		case offset >= length:
			copy(dst[out:out+length], dst[from:out])
		default:
			copyMatch(dst, out, offset, length)
		}
		out += length
	}
	// The lowest 1 bit of f is the one after the flags.
	return in, out, uint32(f & (f - 1) >> 32), 63 - bits.TrailingZeros64(f), half
}
