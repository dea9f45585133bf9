package compress

import (
	"encoding/binary"
	"math/bits"
)

// DecompressLZ77 decompresses an [MS-XCA] Plain LZ77 stream (format
// [Xpress], COMPRESSION_FORMAT_XPRESS) from src into dst and returns the
// number of bytes written. It follows the decoder of [MS-XCA] section 2.4.4:
// 32-bit little-endian flag words whose bits, most significant first, select
// a literal byte (0) or a 16-bit match (1) made of a 13-bit offset minus one
// and a 3-bit length minus three, with longer lengths continued in a shared
// half byte, then a byte, then 16 or 32 bits.
//
// The format has no end marker: decoding ends successfully when the input
// is exhausted at an item boundary, which for a stream from the [MS-XCA]
// encoder happens at a match flag, since it pads the last flag word with
// ones. A short stream therefore yields a count below len(dst), which the
// caller must check. An item cut off in the middle is [ErrCorrupt], as is
// a match reaching before the start of the output; an item that would
// write past len(dst) is [ErrOutputOverflow].
//
// Bytes of dst beyond the returned count may have been overwritten.
//
// [MS-XCA]: https://learn.microsoft.com/en-us/openspecs/windows_protocols/ms-xca/a8b7cb0a-92a6-4187-a23b-5e14273b96f8
func DecompressLZ77(dst, src []byte) (int, error) {
	return decompressLZ77(dst, src, true)
}

// decompressLZ77 is DecompressLZ77, with decodeLZ77Fast taking the items
// it can when fast is set; without it (the tests' reference) every item
// goes through the checked loop here.
func decompressLZ77(dst, src []byte, fast bool) (int, error) {
	var (
		in, out int
		flags   uint32 // unread flag bits, the next one in bit 31
		nflags  int    // how many of the bits in flags are unread flags
		half    = -1   // input offset of the byte whose high nibble is the next shared length nibble, or -1
	)
	for {
		if fast && len(src)-in >= fastSrcMargin && len(dst)-out >= fastDstMargin {
			in, out, flags, nflags, half = decodeLZ77Fast(dst, src, in, out, flags, nflags, half)
		}
		if nflags == 0 {
			if len(src)-in < 4 {
				if in == len(src) {
					return out, nil
				}
				return out, corruptf("xpress: flag word at input offset %d truncated after %d bytes", in, len(src)-in)
			}
			flags = binary.LittleEndian.Uint32(src[in:])
			in += 4
			nflags = 32
		}

		// A run of literals is a run of leading zero flags.
		if n := bits.LeadingZeros32(flags); n != 0 {
			n = min(n, nflags)
			k := min(n, len(src)-in)
			if k > len(dst)-out {
				return out, overflowf("xpress: literal at input offset %d would be output byte %d of %d", in+len(dst)-out, len(dst)+1, len(dst))
			}
			if k <= 8 && len(src)-in >= 8 && len(dst)-out >= 8 {
				// Move 8 bytes at once; the surplus is rewritten later.
				binary.LittleEndian.PutUint64(dst[out:], binary.LittleEndian.Uint64(src[in:]))
			} else {
				copy(dst[out:out+k], src[in:in+k])
			}
			in += k
			out += k
			if k < n {
				return out, nil // input ended within the literal run
			}
			flags <<= uint(n) // a shift by 32 yields 0
			nflags -= n
			if nflags == 0 {
				continue
			}
		}

		// A match.
		flags <<= 1
		nflags--
		at := in
		if len(src)-in < 2 {
			if in == len(src) {
				return out, nil // MS-XCA 2.4.4: a match flag at the end of input ends the stream
			}
			return out, corruptf("xpress: match at input offset %d truncated", at)
		}
		offset, length, err := lz77Match(src, &in, &half, out, len(dst))
		if err != nil {
			return out, err
		}
		if from := out - offset; offset >= 8 && length <= 16 && len(dst)-out >= 16 {
			// The common short match, inline: two 8-byte moves that
			// never read bytes this match writes (see copyMatch).
			binary.LittleEndian.PutUint64(dst[out:], binary.LittleEndian.Uint64(dst[from:]))
			binary.LittleEndian.PutUint64(dst[out+8:], binary.LittleEndian.Uint64(dst[from+8:]))
			out += length
			continue
		}
		out = copyMatch(dst, out, offset, length)
	}
}

// copyMatch copies length bytes starting offset bytes back from dst[out] to
// dst[out:], byte by byte in effect (so that an offset shorter than the
// length repeats the pattern), and returns out+length. The caller has
// checked 0 < offset <= out and out+length <= len(dst).
func copyMatch(dst []byte, out, offset, length int) int {
	from := out - offset
	end := out + length
	if offset >= 8 && len(dst)-out >= 16 && length <= 16 {
		// Short match, no overlap within 8 bytes: two 8-byte moves. The
		// bytes past end are rewritten later (or lie beyond the result).
		binary.LittleEndian.PutUint64(dst[out:], binary.LittleEndian.Uint64(dst[from:]))
		binary.LittleEndian.PutUint64(dst[out+8:], binary.LittleEndian.Uint64(dst[from+8:]))
		return end
	}
	if offset >= length {
		copy(dst[out:end], dst[from:])
		return end
	}
	if length <= 32 {
		for i := out; i < end; i++ {
			dst[i] = dst[i-offset]
		}
		return end
	}
	// Overlapping: dst[from:out] is one period of the pattern; doubling the
	// copied window keeps every copy a whole number of periods.
	for out < end {
		out += copy(dst[out:end], dst[from:out])
	}
	return end
}

// lz77Match reads the match whose header starts at *in (at least two
// bytes of src left) for output offset out of a size-byte output, and
// checks it: it returns the match's offset and length, *in and *half
// past it, or an error naming the match's input offset when it reaches
// before the output or past its end. The checked loops of
// DecompressLZ77 and LZ77Decoder share it.
func lz77Match(src []byte, in, half *int, out, size int) (offset, length int, err error) {
	at := *in
	mb := int(binary.LittleEndian.Uint16(src[at:]))
	*in += 2
	offset = mb>>3 + 1
	length = mb & 7
	if length == 7 {
		if length, *in, *half, err = lz77LongLength(src, *in, *half, at, out, size); err != nil {
			return 0, 0, err
		}
	}
	length += 3
	if offset > out {
		return 0, 0, corruptf("xpress: match at input offset %d reaches %d bytes back from output offset %d, before start of output", at, offset, out)
	}
	if length > size-out {
		return 0, 0, overflowf("xpress: match at input offset %d of length %d at output offset %d overflows %d-byte output", at, length, out, size)
	}
	return offset, length, nil
}

// lz77LongLength decodes the rest of the length of the match whose 16-bit
// word at input offset at ended at in with the 3-bit length 7: a shared
// half byte, then a byte, then 16 or 32 bits ([MS-XCA] section 2.4.4).
// half is the input offset of the byte whose high nibble is the next
// shared length nibble, or -1; out is the output offset and size the
// output's length, for the error of a 32-bit length that overflows it. It
// returns the length less 3, and in and half past the length.
func lz77LongLength(src []byte, in, half, at, out, size int) (int, int, int, error) {
	var length int
	if half < 0 {
		if in >= len(src) {
			return 0, in, half, corruptf("xpress: match at input offset %d truncated before its length nibble", at)
		}
		length = int(src[in] & 15)
		half = in
		in++
	} else {
		length = int(src[half] >> 4)
		half = -1
	}
	if length == 15 {
		if in >= len(src) {
			return 0, in, half, corruptf("xpress: match at input offset %d truncated before its length byte", at)
		}
		length = int(src[in])
		in++
		if length == 255 {
			if len(src)-in < 2 {
				return 0, in, half, corruptf("xpress: match at input offset %d truncated before its 16-bit length", at)
			}
			length = int(binary.LittleEndian.Uint16(src[in:]))
			in += 2
			if length == 0 {
				if len(src)-in < 4 {
					return 0, in, half, corruptf("xpress: match at input offset %d truncated before its 32-bit length", at)
				}
				l32 := binary.LittleEndian.Uint32(src[in:])
				in += 4
				if l32 >= 15+7 && uint64(l32)+3 > uint64(size-out) {
					return 0, in, half, overflowf("xpress: match at input offset %d of length %d at output offset %d overflows %d-byte output", at, uint64(l32)+3, out, size)
				}
				length = int(l32) // fits: checked against size above, or small
			}
			if length < 15+7 {
				return 0, in, half, corruptf("xpress: match at input offset %d has invalid long length %d", at, length)
			}
			length -= 15 + 7
		}
		length += 15
	}
	return length + 7, in, half, nil
}
