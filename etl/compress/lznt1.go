package compress

import (
	"encoding/binary"
	"math/bits"
)

const lznt1ChunkSize = 4096 // uncompressed bytes per LZNT1 chunk

// DecompressLZNT1 decompresses an [MS-XCA] LZNT1 buffer (format [LZNT1],
// COMPRESSION_FORMAT_LZNT1) from src into dst and returns the number of
// bytes written. It follows [MS-XCA] section 2.5: a series of chunks, each
// with a 16-bit header (bit 15: compressed; bits 14-12: signature 3; bits
// 11-0: chunk size minus 3) holding up to 4096 bytes of output, either
// stored or as flag groups of literals and compressed words whose split
// between displacement and length bits widens with the position in the
// chunk (section 2.5.1.4).
//
// Decoding ends at an all-zero chunk header or at the end of the input,
// whichever comes first. Every chunk stands for 4096 bytes of output, so,
// as in Windows (whose behaviour Wine's RtlDecompressBuffer reproduces), a
// chunk that decodes to fewer bytes and is followed by another chunk is
// padded with zeros to 4096 bytes. Malformed chunks (bad signature, size beyond the input, a
// compressed word reaching before the start of its chunk or producing more
// than 4096 bytes) are [ErrCorrupt]; output past len(dst) is
// [ErrOutputOverflow].
//
// Bytes of dst beyond the returned count may have been overwritten.
//
// [MS-XCA]: https://learn.microsoft.com/en-us/openspecs/windows_protocols/ms-xca/a8b7cb0a-92a6-4187-a23b-5e14273b96f8
func DecompressLZNT1(dst, src []byte) (int, error) {
	in, out := 0, 0
	for {
		if len(src)-in < 2 {
			if in == len(src) {
				return out, nil
			}
			return out, corruptf("lznt1: chunk header at input offset %d truncated", in)
		}
		hdr := binary.LittleEndian.Uint16(src[in:])
		if hdr == 0 {
			return out, nil // End_of_buffer
		}
		if hdr&0x7000 != 0x3000 {
			return out, corruptf("lznt1: chunk header %#04x at input offset %d has signature %d, want 3", hdr, in, hdr>>12&7)
		}
		size := int(hdr&0xfff) + 1 // bytes after the header
		if len(src)-in-2 < size {
			return out, corruptf("lznt1: chunk at input offset %d needs %d bytes, only %d left", in, size+2, len(src)-in-2)
		}
		// Every chunk but the first starts on a 4096-byte output boundary.
		if pad := -out & (lznt1ChunkSize - 1); pad != 0 {
			if pad > len(dst)-out {
				return out, overflowf("lznt1: padding before chunk at input offset %d overflows %d-byte output", in, len(dst))
			}
			clear(dst[out : out+pad])
			out += pad
		}
		data := src[in+2 : in+2+size]
		if hdr&0x8000 == 0 {
			if size > len(dst)-out {
				return out, overflowf("lznt1: uncompressed chunk at input offset %d overflows %d-byte output", in, len(dst))
			}
			out += copy(dst[out:], data)
		} else {
			var err error
			if out, err = lznt1Chunk(dst, out, data, in+2); err != nil {
				return out, err
			}
		}
		in += 2 + size
	}
}

// lznt1Chunk decodes the flag groups of one compressed chunk, data, whose
// first byte is at input offset base, into dst[out:] and returns the new
// output position.
func lznt1Chunk(dst []byte, out int, data []byte, base int) (int, error) {
	start := out
	limit := min(len(dst), start+lznt1ChunkSize)
	p := 0
	for p < len(data) {
		flags := data[p]
		p++
		if flags == 0 && len(data)-p >= 8 && limit-out >= 8 {
			// Eight literals.
			copy(dst[out:out+8], data[p:p+8])
			out += 8
			p += 8
			continue
		}
		for range 8 {
			if p >= len(data) {
				break
			}
			if flags&1 == 0 {
				if out >= limit {
					return out, lznt1Overflow(dst, start, out, 1, base+p)
				}
				dst[out] = data[p]
				out++
				p++
			} else {
				if len(data)-p < 2 {
					return out, corruptf("lznt1: compressed word at input offset %d truncated by end of chunk", base+p)
				}
				w := int(binary.LittleEndian.Uint16(data[p:]))
				u := out - start
				// Displacement bits: the largest M in [4,12] with
				// 2^(M-1) < U, else 4 (MS-XCA 2.5.1.4).
				m := min(max(bits.Len(uint(u-1)), 4), 12)
				if u == 0 {
					m = 4
				}
				disp := w>>(16-m) + 1
				length := w&(1<<(16-m)-1) + 3
				if disp > u {
					return out, corruptf("lznt1: compressed word at input offset %d reaches %d bytes back from chunk position %d, before start of chunk", base+p, disp, u)
				}
				if length > limit-out {
					return out, lznt1Overflow(dst, start, out, length, base+p)
				}
				out = copyMatch(dst, out, disp, length)
				p += 2
			}
			flags >>= 1
		}
	}
	return out, nil
}

// lznt1Overflow reports n bytes that do not fit at dst[out:] in the chunk
// starting at dst[start]: past the end of dst, or past the chunk's 4096
// bytes.
func lznt1Overflow(dst []byte, start, out, n, at int) error {
	if out+n > len(dst) {
		return overflowf("lznt1: data element at input offset %d overflows %d-byte output", at, len(dst))
	}
	return corruptf("lznt1: data element at input offset %d decodes past %d bytes of its chunk", at, lznt1ChunkSize)
}
