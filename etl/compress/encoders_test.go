package compress

// Test-only compressors for the three formats, written from the encoder
// descriptions of MS-XCA (sections 2.1.4, 2.3.4 and 2.5). They exist to
// produce valid streams for round-trip tests, fuzz seeds and benchmarks;
// they favour clarity and options that reach every encoding over speed.
// The Plain LZ77 one writes its stream with the lz77Writer of the
// production compressor (lz77enc.go).

import (
	"encoding/binary"
	"math"
	"math/bits"
	"slices"
)

// matcher finds LZ77 matches with greedy hash chains over 3-byte prefixes.
type matcher struct {
	data     []byte
	maxChain int
	head     [1 << 14]int32 // hash -> most recent position + 1
	prev     []int32        // position -> previous position with the same hash + 1
}

func newMatcher(data []byte, maxChain int) *matcher {
	return &matcher{data: data, maxChain: maxChain, prev: make([]int32, len(data))}
}

func (m *matcher) hash(i int) int {
	d := m.data
	v := uint32(d[i]) | uint32(d[i+1])<<8 | uint32(d[i+2])<<16
	return int((v * 2654435761) >> (32 - 14))
}

// insert records position i in the hash chains.
func (m *matcher) insert(i int) {
	if i+3 > len(m.data) {
		return
	}
	h := m.hash(i)
	m.prev[i] = m.head[h]
	m.head[h] = int32(i + 1)
}

// find returns the longest match for position i of at most maxLen bytes,
// at a distance of at most maxDist and not starting before lo. length is 0
// when there is no match of at least 3 bytes.
func (m *matcher) find(i, lo, maxLen, maxDist int) (length, dist int) {
	d := m.data
	maxLen = min(maxLen, len(d)-i)
	if maxLen < 3 || i+3 > len(d) {
		return 0, 0
	}
	chain := m.maxChain
	for p := int(m.head[m.hash(i)]) - 1; p >= 0 && chain > 0; p = int(m.prev[p]) - 1 {
		chain--
		if i-p > maxDist || p < lo {
			break
		}
		if d[p+length] != d[i+length] || d[p] != d[i] {
			continue
		}
		n := 0
		for n < maxLen && d[p+n] == d[i+n] {
			n++
		}
		if n > length {
			length, dist = n, i-p
			if n == maxLen {
				break
			}
		}
	}
	// The chains only hold earlier positions; a run is best found at
	// distance 1, which the hash of position i-1 may have missed.
	if i > lo && length < maxLen && d[i-1] == d[i] {
		n := 0
		for n < maxLen && d[i-1+n] == d[i+n] {
			n++
		}
		if n > length {
			length, dist = n, 1
		}
	}
	if length < 3 {
		return 0, 0
	}
	return length, dist
}

// lz77Stats counts which encodings a Plain LZ77 stream used.
type lz77Stats struct {
	literals, matches                int
	short, nibble, byteLen, u16, u32 int // matches by length encoding
	overlapping                      int // matches with distance < length
	farthest                         int // largest distance
}

// lz77Options tunes lz77Compress.
type lz77Options struct {
	maxChain int // hash chain search depth; 0 means 32
	maxLen   int // longest match to emit; 0 means unlimited
}

// lz77Compress compresses src as MS-XCA Plain LZ77 following the encoder
// of section 2.3.4. Unlike the production [Compressor], whose stream
// writer it shares, it finds matches with the tunable matcher above.
func lz77Compress(src []byte, opt lz77Options) ([]byte, lz77Stats) {
	var st lz77Stats
	if opt.maxChain == 0 {
		opt.maxChain = 32
	}
	if opt.maxLen == 0 {
		opt.maxLen = math.MaxInt
	}
	m := newMatcher(src, opt.maxChain)
	w := lz77Writer{out: make([]byte, LZ77Bound(len(src))), pos: 4, half: -1}
	lit := 0 // start of the pending literals
	for i := 0; i < len(src); {
		length, dist := m.find(i, 0, opt.maxLen, lz77MaxDistance)
		if length == 0 {
			m.insert(i)
			st.literals++
			i++
			continue
		}
		w.literals(src[lit:i])
		w.match(dist, length)
		st.matches++
		st.farthest = max(st.farthest, dist)
		if dist < length {
			st.overlapping++
		}
		switch l := length - 3; {
		case l < 7:
			st.short++
		case l-7 < 15:
			st.nibble++
		case l-7-15 < 255:
			st.byteLen++
		case l < 1<<16:
			st.u16++
		default:
			st.u32++
		}
		for j := i; j < i+length; j++ {
			m.insert(j)
		}
		i += length
		lit = i
	}
	w.literals(src[lit:])
	w.finish() // pads the last flag word with ones; a full one becomes 0xffffffff
	return w.out[:w.pos], st
}

// ---- LZ77+Huffman ----

// huffToken is a literal (length 0) or a match.
type huffToken struct {
	lit          byte
	length, dist int
}

// huffOptions tunes huffCompress.
type huffOptions struct {
	maxChain   int  // 0 means 32
	maxLen     int  // longest match; 0 means unlimited
	crossBlock bool // let matches run across 64 KiB block boundaries
}

// huffStats counts features of a Huffman stream.
type huffStats struct {
	blocks, matches, crossing int
	byteLen, u16, u32         int
	maxCodeLen, farthest      int
}

// huffTokens splits src into LZ77 tokens (section 2.1.4.1), with
// distances up to 65535.
func huffTokens(src []byte, opt huffOptions) []huffToken {
	if opt.maxChain == 0 {
		opt.maxChain = 32
	}
	if opt.maxLen == 0 {
		opt.maxLen = math.MaxInt
	}
	m := newMatcher(src, opt.maxChain)
	var toks []huffToken
	for i := 0; i < len(src); {
		maxLen := opt.maxLen
		if !opt.crossBlock {
			maxLen = min(maxLen, huffBlockSize-i%huffBlockSize)
		}
		length, dist := m.find(i, 0, maxLen, 65535)
		if length == 0 {
			toks = append(toks, huffToken{lit: src[i]})
			m.insert(i)
			i++
			continue
		}
		toks = append(toks, huffToken{length: length, dist: dist})
		for j := i; j < i+length; j++ {
			m.insert(j)
		}
		i += length
	}
	return toks
}

func highBit(v int) int { return bits.Len(uint(v)) - 1 }

// symbol returns the Huffman symbol of a token.
func (t huffToken) symbol() int {
	if t.length == 0 {
		return int(t.lit)
	}
	return 256 + min(t.length-3, 15) + 16*highBit(t.dist)
}

// huffCompress compresses src as MS-XCA LZ77+Huffman: blocks of 65536
// output bytes (or more when a match crosses the boundary, mirroring the
// decoder's BlockEnd rule), each with its own length-limited canonical
// code, the last one ending with the EOF symbol 256.
func huffCompress(src []byte, opt huffOptions) ([]byte, huffStats) {
	toks := huffTokens(src, opt)
	var st huffStats
	var out []byte
	pos, t := 0, 0
	for first := true; first || t < len(toks); first = false {
		// A block holds the tokens that start before 65536 bytes of output.
		end := t
		blockEnd := pos + huffBlockSize
		for end < len(toks) && pos < blockEnd {
			if n := toks[end].length; n > 0 {
				pos += n
			} else {
				pos++
			}
			end++
		}
		if pos > blockEnd {
			st.crossing++
		}
		block := toks[t:end]
		t = end
		last := t == len(toks)
		var freq [huffSymbols]int
		for _, tok := range block {
			freq[tok.symbol()]++
		}
		if last {
			freq[256]++
		}
		lens := huffLengths(freq[:], huffMaxBits)
		out = huffEncodeBlock(out, block, lens, last, &st)
		st.blocks++
	}
	return out, st
}

// huffLengths computes Huffman code lengths of at most maxBits for the
// symbol frequencies, halving frequencies until the limit holds. It always
// returns a complete code: a lone symbol gets a 1-bit partner.
func huffLengths(freq []int, maxBits int) []uint8 {
	f := slices.Clone(freq)
	used := 0
	for _, v := range f {
		if v > 0 {
			used++
		}
	}
	switch used {
	case 0:
		f[0], f[1] = 1, 1
	case 1:
		for s := range f {
			if f[s] == 0 {
				f[s] = 1
				break
			}
		}
	}
	for {
		lens := huffmanTree(f)
		if slices.Max(lens) <= uint8(maxBits) {
			return lens
		}
		for s := range f {
			if f[s] > 0 {
				f[s] = (f[s] + 1) / 2
			}
		}
	}
}

// huffmanTree returns the optimal (unlimited) code lengths for the
// frequencies with the two-queue method.
func huffmanTree(freq []int) []uint8 {
	type node struct{ w, parent int }
	var nodes []node
	var leaves []int
	for s, v := range freq {
		if v > 0 {
			leaves = append(leaves, s)
		}
	}
	slices.SortStableFunc(leaves, func(a, b int) int { return freq[a] - freq[b] })
	for _, s := range leaves {
		nodes = append(nodes, node{w: freq[s], parent: -1})
	}
	q1, q2 := 0, len(leaves) // next leaf, next internal node
	pick := func() int {
		if q1 < len(leaves) && (q2 >= len(nodes) || nodes[q1].w <= nodes[q2].w) {
			q1++
			return q1 - 1
		}
		q2++
		return q2 - 1
	}
	for len(nodes)-q2+len(leaves)-q1 > 1 {
		a, b := pick(), pick()
		nodes = append(nodes, node{w: nodes[a].w + nodes[b].w, parent: -1})
		nodes[a].parent, nodes[b].parent = len(nodes)-1, len(nodes)-1
	}
	lens := make([]uint8, len(freq))
	for i, s := range leaves {
		d := 0
		for p := nodes[i].parent; p >= 0; p = nodes[p].parent {
			d++
		}
		lens[s] = uint8(d)
	}
	return lens
}

// canonicalCodes assigns canonical codes (ordered by length, then symbol).
func canonicalCodes(lens []uint8) []uint32 {
	var count [16]uint32
	for _, l := range lens {
		count[l]++
	}
	count[0] = 0
	var next [16]uint32
	code := uint32(0)
	for l := 1; l < 16; l++ {
		code = (code + count[l-1]) << 1
		next[l] = code
	}
	codes := make([]uint32, len(lens))
	for s, l := range lens {
		if l > 0 {
			codes[s] = next[l]
			next[l]++
		}
	}
	return codes
}

// huffWriter is the bit writer of MS-XCA section 2.1.4.3: 16-bit words
// filled most significant bit first, with one word always reserved ahead so
// that bytes written with writeByte land where the decoder reads them.
type huffWriter struct {
	out      []byte
	freeBits int
	nextWord uint32
	pos1     int // where the word being filled goes
	pos2     int // where the following word goes
}

func (w *huffWriter) start(out []byte) {
	w.out = out
	w.pos1 = len(out)
	w.pos2 = len(out) + 2
	w.out = append(w.out, 0, 0, 0, 0)
	w.freeBits = 16
	w.nextWord = 0
}

func (w *huffWriter) writeBits(n int, v uint32) {
	if w.freeBits >= n {
		w.freeBits -= n
		w.nextWord = w.nextWord<<n | v
		return
	}
	w.nextWord = w.nextWord<<w.freeBits | v>>(n-w.freeBits)
	w.freeBits -= n
	binary.LittleEndian.PutUint16(w.out[w.pos1:], uint16(w.nextWord))
	w.pos1, w.pos2 = w.pos2, len(w.out)
	w.out = append(w.out, 0, 0)
	w.freeBits += 16
	w.nextWord = v
}

func (w *huffWriter) flush() []byte {
	binary.LittleEndian.PutUint16(w.out[w.pos1:], uint16(w.nextWord<<w.freeBits))
	binary.LittleEndian.PutUint16(w.out[w.pos2:], 0)
	return w.out
}

// huffEncodeBlock appends one block: the 256-byte length table and the
// coded tokens, then EOF if last.
func huffEncodeBlock(out []byte, block []huffToken, lens []uint8, last bool, st *huffStats) []byte {
	for s := 0; s < huffSymbols; s += 2 {
		out = append(out, lens[s]|lens[s+1]<<4)
		st.maxCodeLen = max(st.maxCodeLen, int(lens[s]), int(lens[s+1]))
	}
	codes := canonicalCodes(lens)
	var w huffWriter
	w.start(out)
	for _, tok := range block {
		sym := tok.symbol()
		w.writeBits(int(lens[sym]), codes[sym])
		if tok.length == 0 {
			continue
		}
		st.matches++
		st.farthest = max(st.farthest, tok.dist)
		if l := tok.length - 3; l >= 15 {
			switch {
			case l-15 < 255:
				w.out = append(w.out, byte(l-15))
				st.byteLen++
			case l < 1<<16:
				w.out = append(w.out, 255)
				w.out = binary.LittleEndian.AppendUint16(w.out, uint16(l))
				st.u16++
			default:
				w.out = append(w.out, 255, 0, 0)
				w.out = binary.LittleEndian.AppendUint32(w.out, uint32(l))
				st.u32++
			}
		}
		hb := highBit(tok.dist)
		w.writeBits(hb, uint32(tok.dist-1<<hb))
	}
	if last {
		w.writeBits(int(lens[256]), codes[256])
	}
	return w.flush()
}

// huffEncodeLiterals encodes lits as one block using the given code
// lengths (which must give every literal used a code, and symbol 256 one
// if eof), for tests that need a particular code shape.
func huffEncodeLiterals(lits []byte, lens []uint8, eof bool) []byte {
	toks := make([]huffToken, len(lits))
	for i, b := range lits {
		toks[i].lit = b
	}
	var st huffStats
	return huffEncodeBlock(nil, toks, lens, eof, &st)
}

// ---- LZNT1 ----

// lznt1Options tunes lznt1Compress.
type lznt1Options struct {
	maxChain     int              // 0 means 32
	stored       func(i int) bool // store chunk i uncompressed
	noTerminator bool             // omit the End_of_buffer header
}

// lznt1Stats counts features of an LZNT1 buffer.
type lznt1Stats struct {
	chunks, stored int
	words          int
	wordsBySplit   [13]int // compressed words by displacement bit count M
	maxLenBySplit  [13]int // ... that use the longest length of that split
	maxDispBySplit [13]int // ... that use the farthest displacement of that split
	overlapping    int
}

// lznt1Split returns the displacement bit count M for a compressed word at
// chunk position u (MS-XCA 2.5.1.4).
func lznt1Split(u int) int {
	m := 4
	for m < 12 && 1<<m < u { // 2^((m+1)-1) < u
		m++
	}
	return m
}

// lznt1Compress compresses src as LZNT1: 4096-byte chunks, each compressed
// if that makes it smaller, then an End_of_buffer header.
func lznt1Compress(src []byte, opt lznt1Options) ([]byte, lznt1Stats) {
	var st lznt1Stats
	if opt.maxChain == 0 {
		opt.maxChain = 32
	}
	var out []byte
	for c := 0; c*lznt1ChunkSize < len(src); c++ {
		chunk := src[c*lznt1ChunkSize : min(len(src), (c+1)*lznt1ChunkSize)]
		st.chunks++
		var comp []byte
		if opt.stored == nil || !opt.stored(c) {
			comp = lznt1CompressChunk(chunk, opt.maxChain, &st)
		}
		if comp == nil || len(comp) >= len(chunk) {
			st.stored++
			out = binary.LittleEndian.AppendUint16(out, 0x3000|uint16(len(chunk)-1))
			out = append(out, chunk...)
			continue
		}
		out = binary.LittleEndian.AppendUint16(out, 0xb000|uint16(len(comp)-1))
		out = append(out, comp...)
	}
	if !opt.noTerminator {
		out = append(out, 0, 0)
	}
	return out, st
}

func lznt1CompressChunk(chunk []byte, maxChain int, st *lznt1Stats) []byte {
	m := newMatcher(chunk, maxChain)
	var out []byte
	var local lznt1Stats
	flagPos := -1
	for i, k := 0, 0; i < len(chunk); k++ {
		if k%8 == 0 {
			flagPos = len(out)
			out = append(out, 0)
		}
		split := lznt1Split(i)
		maxLen := 1<<(16-split) - 1 + 3
		maxDisp := 1 << split
		length, dist := m.find(i, 0, maxLen, maxDisp)
		if length == 0 {
			out = append(out, chunk[i])
			m.insert(i)
			i++
			continue
		}
		out[flagPos] |= 1 << (k % 8)
		out = binary.LittleEndian.AppendUint16(out, uint16((dist-1)<<(16-split)|(length-3)))
		local.words++
		local.wordsBySplit[split]++
		if length == maxLen {
			local.maxLenBySplit[split]++
		}
		if dist == maxDisp {
			local.maxDispBySplit[split]++
		}
		if dist < length {
			local.overlapping++
		}
		for j := i; j < i+length; j++ {
			m.insert(j)
		}
		i += length
	}
	if len(out) >= len(chunk) {
		return nil
	}
	st.words += local.words
	st.overlapping += local.overlapping
	for s := range local.wordsBySplit {
		st.wordsBySplit[s] += local.wordsBySplit[s]
		st.maxLenBySplit[s] += local.maxLenBySplit[s]
		st.maxDispBySplit[s] += local.maxDispBySplit[s]
	}
	return out
}
