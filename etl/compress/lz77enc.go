package compress

import (
	"encoding/binary"
	"math/bits"
	"slices"
	"sync"
)

// Plain LZ77 compressor parameters.
const (
	lz77MaxDistance = 8192 // farthest match: 13 bits of distance-1
	lz77MinMatch    = 3
	lz77MaxMatch    = 1<<31 - 1 // longest match emitted; fits the 32-bit length and an int everywhere

	lz77HashBits   = 14
	lz77WindowMask = lz77MaxDistance - 1

	// lz77MaxChain bounds the hash chain positions tried for each input
	// position; lz77GoodMatch ends the search early.
	lz77MaxChain  = 8
	lz77GoodMatch = 32

	// After a match, the positions it covers are added to the hash chains,
	// but at most the last lz77MaxInsert of them: positions deeper inside
	// a long match are rarely the best reference for later data.
	lz77MaxInsert = 64

	// In data that does not compress, the search moves on faster: after
	// 2^lz77SkipShift positions without a match it tries every second
	// position, then every third, and so on up to every lz77MaxStep-th,
	// until a match is found. This keeps incompressible data (such as
	// encrypted packet payloads) from taking several times as long as
	// event data, at no measurable cost in ratio on real traces.
	lz77SkipShift = 5
	lz77MaxStep   = 8
)

// Compressor compresses data with the [MS-XCA] Plain LZ77 algorithm
// (format [Xpress], COMPRESSION_FORMAT_XPRESS), the format of compressed
// ETW buffers, which [DecompressLZ77] and Windows' RtlDecompressBuffer(Ex)
// decode.
//
// The zero value is ready to use. A Compressor holds hash tables of about
// 96 KiB that are reused between calls, so that compressing allocates
// nothing once dst has room (see [LZ77Bound]). A Compressor is not safe
// for concurrent use; [AppendLZ77] draws Compressors from a pool.
//
// [MS-XCA]: https://learn.microsoft.com/en-us/openspecs/windows_protocols/ms-xca/a8b7cb0a-92a6-4187-a23b-5e14273b96f8
type Compressor struct {
	// head maps the hash of the 3 bytes at a position to the most recent
	// position with that hash, truncated to 32 bits.
	head [1 << lz77HashBits]uint32
	// prev maps a position modulo the window to the previous position with
	// the same hash, truncated to 32 bits.
	prev [lz77MaxDistance]uint32
}

// LZ77Bound returns the largest size of the Plain LZ77 compression of n
// bytes: all literals, plus a 4-byte flag word per 32 of them and a last
// flag word. [Compressor.AppendLZ77] allocates nothing when dst has at
// least this much spare capacity.
func LZ77Bound(n int) int {
	return n + 4*(n/32+1)
}

var compressorPool = sync.Pool{New: func() any { return new(Compressor) }}

// AppendLZ77 appends the [MS-XCA] Plain LZ77 compression of src to dst and
// returns the extended slice, like [Compressor.AppendLZ77] with a
// Compressor taken from a pool. It is safe for concurrent use.
//
// [MS-XCA]: https://learn.microsoft.com/en-us/openspecs/windows_protocols/ms-xca/a8b7cb0a-92a6-4187-a23b-5e14273b96f8
func AppendLZ77(dst, src []byte) []byte {
	c := compressorPool.Get().(*Compressor)
	dst = c.AppendLZ77(dst, src)
	compressorPool.Put(c)
	return dst
}

// AppendLZ77 appends the [MS-XCA] Plain LZ77 compression of src to dst and
// returns the extended slice. The output is at most [LZ77Bound](len(src))
// bytes; it is a complete stream that [DecompressLZ77] decodes to exactly
// src given a destination of len(src) bytes (or more: a Plain LZ77 stream
// ends with its input).
//
// The stream is the one the encoder of [MS-XCA] section 2.3.4 writes: a
// 32-bit flag word before each group of 32 items (literal bytes and
// matches with distances of 1 to 8192 bytes and lengths of 3 bytes or
// more, the longer ones extended with shared half bytes, bytes, and 16- or
// 32-bit lengths), the last flag word padded with one bits, which is also
// how Windows ends it. When the number of items is a multiple of 32 the
// last flag word is 0xFFFFFFFF with nothing after it, and empty input
// compresses to that word alone.
//
// Matches are found greedily, with hash chains over 3-byte prefixes whose
// depth is bounded, so that the time taken is linear in len(src); long
// runs without a match are searched at a growing stride. The output is
// deterministic: it depends on src only, not on earlier calls.
//
// [MS-XCA]: https://learn.microsoft.com/en-us/openspecs/windows_protocols/ms-xca/a8b7cb0a-92a6-4187-a23b-5e14273b96f8
func (c *Compressor) AppendLZ77(dst, src []byte) []byte {
	bound := LZ77Bound(len(src))
	if bound < len(src) {
		panic("compress: AppendLZ77 input too large")
	}
	start := len(dst)
	dst = slices.Grow(dst, bound)
	w := lz77Writer{out: dst[:start+bound], pos: start + 4, flagPos: start, half: -1}
	clear(c.head[:]) // every entry is position 0: a candidate that is checked like any other
	c.compress(&w, src)
	w.finish()
	return w.out[:w.pos]
}

// lz77Hash hashes the low 3 bytes of v.
func lz77Hash(v uint32) uint32 {
	return (v << 8) * 2654435761 >> (32 - lz77HashBits)
}

// compress writes the items of src to w.
func (c *Compressor) compress(w *lz77Writer, src []byte) {
	n := len(src)
	lit := 0    // start of the pending literals
	misses := 0 // positions searched in vain since the last match
	i := 0
	for i+4 <= n {
		v := binary.LittleEndian.Uint32(src[i:])
		h := lz77Hash(v)
		cand := c.head[h]
		c.head[h] = uint32(i)
		c.prev[i&lz77WindowMask] = cand

		// Walk the chain. A position's chain link lives in prev at the
		// position modulo the window and is overwritten by the position
		// one window later, which is why the walk stops at the window's
		// edge. Positions are kept modulo 2^32; whatever a table holds,
		// a candidate is used only if it lies within the window and its
		// bytes match, so the tables affect the ratio, never correctness.
		best, bestDist := lz77MinMatch-1, 0
		maxLen := min(n-i, lz77MaxMatch)
		d := uint32(i) - cand
		window := uint32(min(i, lz77MaxDistance)) // farthest distance allowed
		for depth := lz77MaxChain; d-1 < window; {
			p := i - int(d)
			if src[p+best] == src[i+best] {
				if l := matchLen(src[p:], src[i:i+maxLen]); l > best {
					best, bestDist = l, int(d)
					if l >= lz77GoodMatch || l == maxLen {
						break
					}
				}
			}
			if depth--; depth == 0 || d == window {
				break
			}
			nd := uint32(i) - c.prev[p&lz77WindowMask]
			if nd <= d {
				break // not an older position: a stale link
			}
			d = nd
		}
		if bestDist == 0 {
			misses++
			i += min(1+misses>>lz77SkipShift, lz77MaxStep)
			continue
		}
		misses = 0

		w.literals(src[lit:i])
		w.match(bestDist, best)
		end := i + best
		j := max(i+1, end-lz77MaxInsert)
		for last := min(end, n-3); j < last; j++ {
			h := lz77Hash(binary.LittleEndian.Uint32(src[j:]))
			c.prev[j&lz77WindowMask] = c.head[h]
			c.head[h] = uint32(j)
		}
		i = end
		lit = i
	}
	w.literals(src[lit:])
}

// matchLen returns the length of the common prefix of a and b; len(a) >=
// len(b).
func matchLen(a, b []byte) int {
	n := 0
	for len(b)-n >= 8 {
		if x := binary.LittleEndian.Uint64(a[n:]) ^ binary.LittleEndian.Uint64(b[n:]); x != 0 {
			return n + bits.TrailingZeros64(x)>>3
		}
		n += 8
	}
	for n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// lz77Writer writes the items of a Plain LZ77 stream into out, which has
// room for LZ77Bound of the input.
type lz77Writer struct {
	out     []byte
	pos     int    // next output byte
	flagPos int    // where the current flag word goes
	half    int    // the byte whose high half holds the next shared length nibble, or -1
	flags   uint32 // the flags of the current word so far, the latest in bit 0
	nflags  uint   // how many flags the current word has
}

// literals writes the literal bytes lits.
func (w *lz77Writer) literals(lits []byte) {
	for len(lits) > 0 {
		k := min(uint(len(lits)), 32-w.nflags)
		w.pos += copy(w.out[w.pos:], lits[:k])
		lits = lits[k:]
		w.flags <<= k
		if w.nflags += k; w.nflags == 32 {
			w.nextWord()
		}
	}
}

// nextWord stores the full flag word and reserves the next one.
func (w *lz77Writer) nextWord() {
	binary.LittleEndian.PutUint32(w.out[w.flagPos:], w.flags)
	w.flagPos = w.pos
	w.pos += 4
	w.nflags = 0
}

// match writes a match of length bytes at distance dist, in 1..8192.
func (w *lz77Writer) match(dist, length int) {
	l := length - 3
	if l < 7 {
		binary.LittleEndian.PutUint16(w.out[w.pos:], uint16((dist-1)<<3|l))
		w.pos += 2
	} else {
		w.longMatch(dist, l)
	}
	w.flags = w.flags<<1 | 1
	if w.nflags++; w.nflags == 32 {
		w.nextWord()
	}
}

// longMatch writes the match word and the length fields of a match of
// length l+3 >= 10 (MS-XCA 2.3.4).
func (w *lz77Writer) longMatch(dist, l int) {
	out := w.out
	pos := w.pos
	binary.LittleEndian.PutUint16(out[pos:], uint16((dist-1)<<3|7))
	pos += 2
	nib := min(l-7, 15)
	if w.half < 0 {
		w.half = pos
		out[pos] = byte(nib)
		pos++
	} else {
		out[w.half] |= byte(nib << 4)
		w.half = -1
	}
	if nib == 15 {
		switch r := l - 7 - 15; {
		case r < 255:
			out[pos] = byte(r)
			pos++
		case l < 1<<16:
			out[pos] = 255
			binary.LittleEndian.PutUint16(out[pos+1:], uint16(l))
			pos += 3
		default:
			out[pos], out[pos+1], out[pos+2] = 255, 0, 0
			binary.LittleEndian.PutUint32(out[pos+3:], uint32(l))
			pos += 7
		}
	}
	w.pos = pos
}

// finish writes the last flag word, its unused flags set to one.
func (w *lz77Writer) finish() {
	free := 32 - w.nflags // 32 when the word has no items
	binary.LittleEndian.PutUint32(w.out[w.flagPos:], w.flags<<free|(1<<free-1))
}
