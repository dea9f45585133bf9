package compress

import (
	"encoding/binary"
	"math/bits"
)

// Margins of decodeLZ77Fast: it decodes a step (a run of literals, then
// the match after it) only while at least fastSrcMargin input bytes and
// fastDstMargin output bytes remain, so that a run of up to 32 literals
// moved in 16-byte words, then a flag word or the longest match header it
// decodes (2 bytes, a length nibble and a length byte, read as one 4-byte
// word), can be read, and the run and a match of up to 32 bytes written in
// 8-byte words, without further checks (a longer match is checked against
// the room left).
const (
	fastSrcMargin = 32 + 8
	fastDstMargin = 32 + 32
	// fastMaxLen bounds the parts of src and dst decodeLZ77Fast works on,
	// so that its offsets fit in 32 bits.
	fastMaxLen = 1<<31 - 1
)

// Patterns of the matches whose offset o is below 8 (a byte repeated, a
// pair of bytes, ...): the first 8 bytes of such a match are its o bytes
// before the output, the low 8*o bits of a little-endian word read there
// (fastPatternMask[o]), repeated every 8*o bits, which one multiplication
// by fastPatternMul[o] does (its terms do not overlap, so nothing
// carries).
var fastPatternMask, fastPatternMul [8]uint64

func init() {
	for o := 1; o < 8; o++ {
		fastPatternMask[o] = 1<<(8*o) - 1
		for k := 0; k < 8; k += o {
			fastPatternMul[o] |= 1 << (8 * k)
		}
	}
}

// decodeLZ77Fast decodes the items of a Plain LZ77 stream that lie well
// inside src and dst, from the decoder state of DecompressLZ77 (input and
// output offsets, unread flag bits, the pending shared length nibble), and
// returns the state after them. It stops at an item boundary before
// anything it leaves to DecompressLZ77: the last bytes of src or dst, a
// 16- or 32-bit match length, a match that reaches before the output,
// and a long match that would end within 32 bytes of its end, which
// DecompressLZ77 then decodes or reports with its own checks. It never
// fails, so the result does not depend on it.
//
// Each step takes a run of literals (maybe none) and the match after it.
// Literal runs are moved 16 bytes at a time (one move for up to 16, the
// most common: with 8-byte moves and a test at 8, BenchmarkDecompressLZ77
// took 1/0.945 of the time), matches 8 bytes at a time; the bytes written
// past an item are rewritten by the items after it or lie beyond the count
// DecompressLZ77 returns. A match with offset 8 or more never reads a
// byte it has not yet written, so word moves repeat the pattern as byte
// moves would (up to 64 bytes of them; a longer match is copied with
// copy, or copyMatch when it overlaps itself); a shorter match of up to
// 8 bytes is its pattern, made in one word (fastPatternMul).
func decodeLZ77Fast(dst, src []byte, in0, out0 int, flags uint32, nflags, half int) (int, int, uint32, int, int) {
	// The offsets are held in 32 bits (src and dst cut to fastMaxLen):
	// adding the margins to them cannot overflow, so the compiler needs
	// no bounds checks for the windows beyond the loop's margin tests.
	ls, ld := min(len(src), fastMaxLen), min(len(dst), fastMaxLen)
	src, dst = src[:ls:ls], dst[:ld:ld]
	if in0 < 0 || out0 < 0 || in0 > len(src) || out0 > len(dst) {
		return in0, out0, flags, nflags, half
	}
	in, out := uint32(in0), uint32(out0)
	// The unread flags, the next one in bit 0 (the flag word's bits
	// reversed), then a 1 bit: f is 1 when none are left, and f's
	// trailing zeros in its low 32 bits never run past the flags.
	f := uint64(bits.Reverse32(flags))&(1<<nflags-1) | 1<<nflags
	for uint(in)+fastSrcMargin <= uint(len(src)) && uint(out)+fastDstMargin <= uint(len(dst)) {
		// Windows of the margins' fixed lengths: their constant
		// indexes, and indexes below 32 past them, need no bounds
		// checks.
		s := src[uint(in) : uint(in)+fastSrcMargin : uint(in)+fastSrcMargin]
		d := dst[uint(out) : uint(out)+fastDstMargin : uint(out)+fastDstMargin]

		// A run of n literals: at most 32 bytes, within both margins.
		n := uint(bits.TrailingZeros32(uint32(f)))
		*(*[16]byte)(d) = *(*[16]byte)(s)
		if n > 16 {
			*(*[16]byte)(d[16:]) = *(*[16]byte)(s[16:])
		}
		f >>= n
		in += uint32(n)
		out += uint32(n)
		h := binary.LittleEndian.Uint32(s[n:])
		if f == 1 {
			// The flags ran out: the next flag word.
			f = uint64(bits.Reverse32(h)) | 1<<32
			in += 4
			continue
		}

		// A match; the state moves past it only once it is copied.
		offset := h&0xffff>>3 + 1
		if offset > out {
			break // before the start of dst
		}
		length := h&7 + 3
		used, nextHalf := uint32(2), half
		if length == 7+3 {
			if half < 0 {
				length = h >> 16 & 15
				nextHalf = int(in) + 2
				used = 3
			} else {
				length = uint32(src[half] >> 4)
				nextHalf = -1
			}
			if length == 15 {
				length = h >> (8 * used) & 0xff
				if length == 255 {
					break // a 16- or 32-bit length
				}
				used++
				length += 15
			}
			length += 7 + 3
			if uint(length) > uint(len(dst))-uint(out)-32 {
				break // the end of dst
			}
		}
		in += used
		half = nextHalf
		f >>= 1
		from := out - offset
		m := d[n : n+32 : n+32]
		switch {
		case offset >= 8 && length <= 16:
			w := dst[uint(from) : uint(from)+16 : uint(from)+16]
			binary.LittleEndian.PutUint64(m, binary.LittleEndian.Uint64(w))
			binary.LittleEndian.PutUint64(m[8:], binary.LittleEndian.Uint64(w[8:]))
		case offset >= 8 && length <= 32:
			w := dst[uint(from) : uint(from)+32 : uint(from)+32]
			binary.LittleEndian.PutUint64(m, binary.LittleEndian.Uint64(w))
			binary.LittleEndian.PutUint64(m[8:], binary.LittleEndian.Uint64(w[8:]))
			binary.LittleEndian.PutUint64(m[16:], binary.LittleEndian.Uint64(w[16:]))
			binary.LittleEndian.PutUint64(m[24:], binary.LittleEndian.Uint64(w[24:]))
		case offset < 8 && length <= 8:
			w := dst[uint(from) : uint(from)+8 : uint(from)+8]
			o := offset & 7
			binary.LittleEndian.PutUint64(m, binary.LittleEndian.Uint64(w)&fastPatternMask[o]*fastPatternMul[o])
		case offset >= 8 && length <= 64:
			// The room test above left 64 bytes (length is over 32).
			w := dst[uint(from) : uint(from)+64 : uint(from)+64]
			v := dst[uint(out) : uint(out)+64 : uint(out)+64]
			binary.LittleEndian.PutUint64(v, binary.LittleEndian.Uint64(w))
			binary.LittleEndian.PutUint64(v[8:], binary.LittleEndian.Uint64(w[8:]))
			binary.LittleEndian.PutUint64(v[16:], binary.LittleEndian.Uint64(w[16:]))
			binary.LittleEndian.PutUint64(v[24:], binary.LittleEndian.Uint64(w[24:]))
			binary.LittleEndian.PutUint64(v[32:], binary.LittleEndian.Uint64(w[32:]))
			binary.LittleEndian.PutUint64(v[40:], binary.LittleEndian.Uint64(w[40:]))
			binary.LittleEndian.PutUint64(v[48:], binary.LittleEndian.Uint64(w[48:]))
			binary.LittleEndian.PutUint64(v[56:], binary.LittleEndian.Uint64(w[56:]))
		case offset >= length:
			copy(dst[uint(out):uint(out)+uint(length)], dst[uint(from):uint(out)])
		default:
			copyMatch(dst, int(out), int(offset), int(length))
		}
		out += length
	}
	// The flags below f's highest 1 bit, the next one back in bit 31.
	nflags = bits.Len64(f) - 1
	return int(in), int(out), bits.Reverse32(uint32(f ^ 1<<nflags)), nflags, half
}
