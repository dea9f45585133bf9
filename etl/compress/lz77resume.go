package compress

import (
	"encoding/binary"
	"math/bits"
)

// LZ77History is how far back a Plain LZ77 match reaches at most: a
// match's offset is 13 bits plus one ([MS-XCA] section 2.4.4), so 8,192
// bytes of earlier output are all a decoder resuming mid-stream needs.
const LZ77History = 1 << 13

// LZ77Decoder decodes a Plain LZ77 stream (see [DecompressLZ77]) in parts:
// each call to [LZ77Decoder.Decode] writes as much output as its
// destination holds and stops, in the middle of an item if need be, so
// that a caller can hold a few KiB of a large output at a time. Decoding a
// stream in parts yields the bytes, count and error DecompressLZ77 yields
// for the whole, whatever the parts (FuzzLZ77Resume checks this).
//
// The zero value is not ready: call [LZ77Decoder.Reset] first.
type LZ77Decoder struct {
	in, out int    // input offset and output offset (of the whole stream)
	size    int    // the whole output's length, as len(dst) for DecompressLZ77
	flags   uint32 // unread flag bits, the next one in bit 31
	nflags  int    // how many of the bits in flags are unread flags
	half    int    // input offset of the byte whose high nibble is the next shared length nibble, or -1
	mOff    int    // offset of a match cut off by the end of a part
	mLeft   int    // its bytes left to copy, or 0
	done    bool   // the input ended at an item boundary, or an error was returned
}

// Reset starts decoding a new stream whose whole output is size bytes long
// (the len(dst) of [DecompressLZ77]: more output is [ErrOutputOverflow]).
func (d *LZ77Decoder) Reset(size int) {
	*d = LZ77Decoder{size: size, half: -1}
}

// Out returns how many output bytes the decoder has written so far.
func (d *LZ77Decoder) Out() int { return d.out }

// InputFrom returns the first input offset the decoder reads again: the
// bytes of src before it are not read by later calls to Decode (a caller
// reading the input again may leave them out).
func (d *LZ77Decoder) InputFrom() int {
	if d.half >= 0 {
		return min(d.half, d.in)
	}
	return d.in
}

// Done reports whether the stream has ended: its input ran out at an item
// boundary (Out is then its length), or Decode returned an error.
func (d *LZ77Decoder) Done() bool { return d.done }

// Decode continues decoding the whole compressed stream src (the same
// bytes at every call) and returns how many bytes it wrote to
// dst[hist:]. dst[:hist] must hold the last hist output bytes written
// before this call, where hist is at least min(Out(), [LZ77History]) (at
// the first call, 0). It stops when dst is full, when the stream ends
// (Done is then true), or at an error, which is DecompressLZ77's for the
// same stream and names the same offsets; the count then covers the
// output written before the fault, as DecompressLZ77's does. Bytes of dst
// past hist plus the count may have been overwritten.
func (d *LZ77Decoder) Decode(dst []byte, hist int, src []byte) (int, error) {
	if d.done {
		return 0, nil
	}
	if hist < 0 || hist > len(dst) || hist > d.out || hist < min(d.out, LZ77History) {
		d.done = true
		return 0, corruptf("xpress: resuming at output offset %d with %d bytes of history", d.out, hist)
	}
	// The output never runs past the whole stream's length, so the
	// checked loop's overflow tests need only the room left in dst.
	dst = dst[:min(len(dst), hist+d.size-d.out)]
	start := d.out
	in, out, base := d.in, hist, d.out-hist // out is dst's offset; base+out the stream's
	flags, nflags, half := d.flags, d.nflags, d.half
	suspend := func() (int, error) {
		d.in, d.out, d.flags, d.nflags, d.half = in, base+out, flags, nflags, half
		return d.out - start, nil
	}
	fail := func(err error) (int, error) {
		d.out, d.done = base+out, true
		return d.out - start, err
	}
	if d.mLeft > 0 {
		c := min(d.mLeft, len(dst)-out)
		out = copyMatch(dst, out, d.mOff, c)
		d.mLeft -= c
		if d.mLeft > 0 {
			return suspend()
		}
	}
	for {
		if len(src)-in >= fastSrcMargin && len(dst)-out >= fastDstMargin {
			in, out, flags, nflags, half = decodeLZ77Fast(dst, src, in, out, flags, nflags, half)
		}
		if out == len(dst) && out-hist < d.size-d.out {
			return suspend() // dst full; the whole output is not
		}
		if nflags == 0 {
			if len(src)-in < 4 {
				if in == len(src) {
					d.done = true
					return suspend()
				}
				return fail(corruptf("xpress: flag word at input offset %d truncated after %d bytes", in, len(src)-in))
			}
			flags = binary.LittleEndian.Uint32(src[in:])
			in += 4
			nflags = 32
		}

		if n := bits.LeadingZeros32(flags); n != 0 {
			n = min(n, nflags)
			k := min(n, len(src)-in)
			if left := d.size - (base + out); k > left {
				return fail(overflowf("xpress: literal at input offset %d would be output byte %d of %d", in+left, d.size+1, d.size))
			}
			if c := len(dst) - out; k > c {
				// dst ends within the run: take what fits, the
				// rest's flags stay unread.
				copy(dst[out:], src[in:in+c])
				in += c
				out += c
				flags <<= uint(c)
				nflags -= c
				return suspend()
			}
			copy(dst[out:out+k], src[in:in+k])
			in += k
			out += k
			if k < n {
				d.done = true
				return suspend() // input ended within the literal run
			}
			flags <<= uint(n)
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
				d.done = true
				return suspend()
			}
			return fail(corruptf("xpress: match at input offset %d truncated", at))
		}
		offset, length, err := lz77Match(src, &in, &half, base+out, d.size)
		if err != nil {
			return fail(err)
		}
		if c := len(dst) - out; length > c {
			out = copyMatch(dst, out, offset, c)
			d.mOff, d.mLeft = offset, length-c
			return suspend()
		}
		out = copyMatch(dst, out, offset, length)
	}
}
