package compress

import (
	"encoding/binary"
	"sync"
)

const (
	huffSymbols   = 512     // literal bytes 0-255, match symbols 256-511
	huffTableLen  = 256     // 512 4-bit code lengths
	huffMaxBits   = 15      // longest code length a 4-bit field can hold
	huffBlockSize = 1 << 16 // output bytes per block
)

// huffDecoder holds the decoding table of one LZ77+Huffman block. It is
// about 64 KiB, so decoders are recycled through huffPool rather than
// allocated per call.
type huffDecoder struct {
	// table maps the next 15 bits of input to the symbol whose code they
	// start with (low 9 bits) and that code's length (bits 9-12): the
	// decoding table of [MS-XCA] section 2.2.4.
	table [1 << huffMaxBits]uint16
}

var huffPool = sync.Pool{New: func() any { return new(huffDecoder) }}

// DecompressHuffman decompresses an [MS-XCA] LZ77+Huffman stream (format
// [XpressHuffman], COMPRESSION_FORMAT_XPRESS_HUFF) from src into dst and
// returns the number of bytes written. It follows the decoder of [MS-XCA]
// section 2.2.4: the stream is a series of blocks, each a 256-byte table of
// 512 4-bit canonical Huffman code lengths followed by a bit stream, read
// most significant bit first in 16-bit little-endian words, of literals and
// matches that decodes to 65536 bytes of output (except in the last block).
// Each block starts where the previous block's bit reader had read up to.
//
// The format has no length field, so len(dst) must be the exact
// uncompressed size, and decoding ends when dst is full. At that point the
// stream must end too: with the end-of-file symbol 256 that the [MS-XCA]
// encoder appends (any bytes after it are ignored), or with the end of the
// input, or at a block boundary with no further block; if the input holds
// another symbol or block instead, the result is [ErrOutputOverflow], as it
// is for a match reaching past len(dst). Before dst is full, symbol 256 is
// an ordinary match, as in [MS-XCA]. Input that runs out before dst is
// full, a table that is not a complete prefix code, and a match reaching
// before the start of the output are [ErrCorrupt].
//
// Besides the [MS-XCA] length encodings, a 16-bit long length of zero is
// followed by a 32-bit length, as written by the encoder of section
// 2.1.4.3 for matches of 65538 bytes or more.
//
// Bytes of dst beyond the returned count may have been overwritten.
//
// [MS-XCA]: https://learn.microsoft.com/en-us/openspecs/windows_protocols/ms-xca/a8b7cb0a-92a6-4187-a23b-5e14273b96f8
func DecompressHuffman(dst, src []byte) (int, error) {
	d := huffPool.Get().(*huffDecoder)
	n, err := d.decode(dst, src)
	huffPool.Put(d)
	return n, err
}

// build fills d.table from the 256-byte code length table lens, reporting
// false if the lengths do not form a complete prefix code (the two error
// cases of the [MS-XCA] table construction: more or fewer than 2^15 table
// entries).
func (d *huffDecoder) build(lens []byte) bool {
	lens = lens[:huffTableLen]
	var count [huffMaxBits + 1]int
	for _, b := range lens {
		count[b&15]++
		count[b>>4]++
	}
	// Table position of the first code of each length: canonical codes are
	// ordered by length, then by symbol.
	var next [huffMaxBits + 1]int
	pos := 0
	for l := 1; l <= huffMaxBits; l++ {
		next[l] = pos
		pos += count[l] << (huffMaxBits - l)
	}
	if pos != len(d.table) {
		return false
	}
	for sym := range huffSymbols {
		l := int(lens[sym>>1]>>(4*(sym&1))) & 15
		if l == 0 {
			continue
		}
		n := 1 << (huffMaxBits - l)
		e := uint16(sym) | uint16(l)<<9
		t := d.table[next[l] : next[l]+n]
		for i := range t {
			t[i] = e
		}
		next[l] += n
	}
	return true
}

// word reads the 16-bit little-endian word at src[pos:], treating bytes past
// the end of src as zero. The caller detects when such bytes are used.
func word(src []byte, pos int) uint32 {
	if pos >= 0 && pos+2 <= len(src) {
		return uint32(binary.LittleEndian.Uint16(src[pos:]))
	}
	if pos >= 0 && pos < len(src) {
		return uint32(src[pos])
	}
	return 0
}

// errHuffTruncated reports a symbol that used bits past the end of the
// input, which word supplies as zeros. Such phantom words are always the
// last ones loaded, so they are the low 16*ceil((pos-len(src))/2) of the
// 16+extra unread bits in the bit buffer; a word cut in half counts as
// phantom because its missing high byte holds its first bits.
func errHuffTruncated(end int) error {
	return corruptf("xpress huffman: bit stream runs past end of input at offset %d", end)
}

func (d *huffDecoder) decode(dst, src []byte) (int, error) {
	in, out := 0, 0
	table := &d.table
	for {
		if len(src)-in < huffTableLen {
			if out == len(dst) {
				return out, nil
			}
			return out, corruptf("xpress huffman: input ends at offset %d with %d of %d output bytes written, no room for the next %d-byte Huffman table", len(src), out, len(dst), huffTableLen)
		}
		if !d.build(src[in : in+huffTableLen]) {
			return out, corruptf("xpress huffman: Huffman table at input offset %d is not a complete prefix code", in)
		}
		pos := in + huffTableLen
		// bitbuf holds the next 16+extra unread bits, most significant
		// first, as NextBits and ExtraBitCount do in MS-XCA 2.2.4.
		bitbuf := word(src, pos)<<16 | word(src, pos+2)
		pos += 4
		extra := 16
		blockEnd := out + huffBlockSize
		limit := min(blockEnd, len(dst))
		for out < limit {
			e := table[bitbuf>>(32-huffMaxBits)]
			n := int(e >> 9)
			bitbuf <<= uint(n)
			extra -= n
			if extra < 0 {
				bitbuf |= word(src, pos) << uint(-extra)
				extra += 16
				pos += 2
			}
			sym := int(e & (huffSymbols - 1))
			if sym < 256 {
				if pos > len(src) && 16+extra < 16*((pos-len(src)+1)/2) {
					return out, errHuffTruncated(len(src))
				}
				dst[out] = byte(sym)
				out++
			} else {
				at := pos
				sym -= 256
				length := sym & 15
				nb := uint(sym >> 4)
				if length == 15 {
					if pos >= len(src) {
						return out, corruptf("xpress huffman: match length byte at input offset %d is past end of input", pos)
					}
					length = int(src[pos])
					pos++
					if length == 255 {
						if len(src)-pos < 2 {
							return out, corruptf("xpress huffman: 16-bit match length at input offset %d is past end of input", pos)
						}
						length = int(binary.LittleEndian.Uint16(src[pos:]))
						pos += 2
						if length == 0 {
							if len(src)-pos < 4 {
								return out, corruptf("xpress huffman: 32-bit match length at input offset %d is past end of input", pos)
							}
							l32 := binary.LittleEndian.Uint32(src[pos:])
							pos += 4
							if l32 >= 15 && uint64(l32)+3 > uint64(len(dst)-out) {
								return out, overflowf("xpress huffman: match near input offset %d of length %d at output offset %d overflows %d-byte output", at, uint64(l32)+3, out, len(dst))
							}
							length = int(l32) // fits: checked against len(dst) above, or small
						}
						if length < 15 {
							return out, corruptf("xpress huffman: match near input offset %d has invalid long length %d", at, length)
						}
					} else {
						length += 15
					}
				}
				length += 3
				offset := int((uint64(bitbuf) | 1<<32) >> (32 - nb))
				bitbuf <<= nb
				extra -= int(nb)
				if extra < 0 {
					bitbuf |= word(src, pos) << uint(-extra)
					extra += 16
					pos += 2
				}
				if pos > len(src) && 16+extra < 16*((pos-len(src)+1)/2) {
					return out, errHuffTruncated(len(src))
				}
				if offset > out {
					return out, corruptf("xpress huffman: match near input offset %d reaches %d bytes back from output offset %d, before start of output", at, offset, out)
				}
				if length > len(dst)-out {
					return out, overflowf("xpress huffman: match near input offset %d of length %d at output offset %d overflows %d-byte output", at, length, out, len(dst))
				}
				if from := out - offset; offset >= 8 && length <= 16 && len(dst)-out >= 16 {
					// Short match, inline (see copyMatch).
					binary.LittleEndian.PutUint64(dst[out:], binary.LittleEndian.Uint64(dst[from:]))
					binary.LittleEndian.PutUint64(dst[out+8:], binary.LittleEndian.Uint64(dst[from+8:]))
					out += length
				} else {
					out = copyMatch(dst, out, offset, length)
				}
			}
		}
		if out == len(dst) && out < blockEnd {
			return out, huffEnd(table, bitbuf, extra, pos, len(src), len(dst))
		}
		in = pos
	}
}

// huffEnd decides how a stream ends once dst is full inside a block, given
// the bit reader's state: successfully if the next symbol is the
// end-of-file symbol 256 (MS-XCA 2.2.4) or the input holds no further
// symbol, and with ErrOutputOverflow if it holds more data.
func huffEnd(table *[1 << huffMaxBits]uint16, bitbuf uint32, extra, pos, srcLen, dstLen int) error {
	e := table[bitbuf>>(32-huffMaxBits)]
	avail := 16 + extra // unread bits, less those past the end of the input
	if pos > srcLen {
		avail -= 16 * ((pos - srcLen + 1) / 2)
	}
	if sym := int(e & (huffSymbols - 1)); int(e>>9) <= avail && sym != 256 {
		return overflowf("xpress huffman: symbol %d near input offset %d follows the last of %d output bytes", sym, pos, dstLen)
	}
	return nil
}
