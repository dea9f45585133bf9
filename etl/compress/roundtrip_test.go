package compress

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"
)

// checkDecode decompresses src into a buffer of exactly len(want) bytes and
// compares.
func checkDecode(t *testing.T, f Format, src, want []byte) {
	t.Helper()
	dst := make([]byte, len(want))
	n, err := Decompress(f, dst, src)
	if err != nil {
		t.Fatalf("%v: decompress %d bytes: %v", f, len(src), err)
	}
	if n != len(want) || !bytes.Equal(dst, want) {
		i := 0
		for i < min(n, len(want)) && dst[i] == want[i] {
			i++
		}
		t.Fatalf("%v: got %d bytes, want %d; first difference at %d", f, n, len(want), i)
	}
}

// checkOverflow checks that one byte less than needed is ErrOutputOverflow.
func checkOverflow(t *testing.T, f Format, src, want []byte) {
	t.Helper()
	if len(want) == 0 {
		return
	}
	dst := make([]byte, len(want)-1)
	n, err := Decompress(f, dst, src)
	if !errors.Is(err, ErrOutputOverflow) {
		t.Fatalf("%v: into %d bytes: %d, %v; want ErrOutputOverflow", f, len(dst), n, err)
	}
	if n > len(dst) || !bytes.Equal(dst[:n], want[:n]) {
		t.Fatalf("%v: into %d bytes: bad partial output of %d bytes", f, len(dst), n)
	}
}

// TestLZ77RoundTrip compresses every test input with the test Plain LZ77
// encoder and decodes it exactly, one byte short (overflow) and into a
// larger buffer (stream ends at end of input); together the inputs must use
// every length encoding of MS-XCA 2.3.4.
func TestLZ77RoundTrip(t *testing.T) {
	var total lz77Stats
	for _, in := range testInputs() {
		for _, opt := range []lz77Options{{}, {maxChain: 1}, {maxLen: 9}} {
			src, st := lz77Compress(in.data, opt)
			checkDecode(t, Xpress, src, in.data)
			checkOverflow(t, Xpress, src, in.data)
			big := make([]byte, len(in.data)+100)
			if n, err := DecompressLZ77(big, src); err != nil || n != len(in.data) || !bytes.Equal(big[:n], in.data) {
				t.Fatalf("%s: into a larger buffer: %d, %v", in.name, n, err)
			}
			total.short += st.short
			total.nibble += st.nibble
			total.byteLen += st.byteLen
			total.u16 += st.u16
			total.u32 += st.u32
			total.overlapping += st.overlapping
			total.literals += st.literals
			total.farthest = max(total.farthest, st.farthest)
		}
	}
	t.Logf("coverage: %+v", total)
	if total.short == 0 || total.nibble == 0 || total.byteLen == 0 || total.u16 == 0 || total.u32 == 0 || total.overlapping == 0 || total.literals == 0 || total.farthest != 8192 {
		t.Errorf("round-trip inputs missed an encoding: %+v", total)
	}
}

// TestLZ77SharedHalfByte checks the shared length nibble of MS-XCA 2.4.4:
// two matches of length 10-24 share one byte, the first using its low half
// and the second its high half, even with literals and short matches in
// between.
func TestLZ77SharedHalfByte(t *testing.T) {
	// "abcd" + match(4, 12) + "x" + match(1, 3) + match(4, 20)
	src := []byte{
		0b0000_1011, 0, 0, 0, // flags (little-endian): L L L L M L M M, then ones
		'a', 'b', 'c', 'd',
		(4-1)<<3 | 7, 0, // match offset 4, long length
		12 - 10 | (20-10)<<4, // shared nibble byte: low for this match, high for the later one
		'x',
		0 << 3, 0, // offset 1, length 3
		(4-1)<<3 | 7, 0, // offset 4, length from the high nibble
	}
	// Fix the flag word: bits from the MSB: 0000 1 0 1 1, rest ones.
	flags := uint32(0b0000_1011)<<24 | (1<<24 - 1)
	src[0], src[1], src[2], src[3] = byte(flags), byte(flags>>8), byte(flags>>16), byte(flags>>24)
	want := []byte("abcd")
	for range 12 {
		want = append(want, want[len(want)-4])
	}
	want = append(want, 'x', 'x', 'x', 'x')
	for range 20 {
		want = append(want, want[len(want)-4])
	}
	checkDecode(t, Xpress, src, want)
}

// TestHuffmanRoundTrip compresses every test input with the test
// LZ77+Huffman encoder, with matches confined to their 64 KiB block (as
// Windows does) and crossing blocks (allowed by MS-XCA 2.2.4's BlockEnd
// rule), and decodes it exactly and one byte short.
func TestHuffmanRoundTrip(t *testing.T) {
	var total huffStats
	for _, in := range testInputs() {
		for _, opt := range []huffOptions{{}, {crossBlock: true}, {maxChain: 1, maxLen: 20}} {
			src, st := huffCompress(in.data, opt)
			checkDecode(t, XpressHuffman, src, in.data)
			checkOverflow(t, XpressHuffman, src, in.data)
			total.blocks = max(total.blocks, st.blocks)
			total.crossing += st.crossing
			total.byteLen += st.byteLen
			total.u16 += st.u16
			total.u32 += st.u32
			total.maxCodeLen = max(total.maxCodeLen, st.maxCodeLen)
			total.farthest = max(total.farthest, st.farthest)
		}
	}
	t.Logf("coverage: %+v", total)
	if total.blocks < 10 || total.crossing == 0 || total.byteLen == 0 || total.u16 == 0 || total.u32 == 0 || total.farthest < 60000 {
		t.Errorf("round-trip inputs missed a feature: %+v", total)
	}
}

// TestHuffmanLongCodes decodes a block whose code uses every length from 1
// to 15 bits (the MS-XCA maximum), including two 15-bit codes.
func TestHuffmanLongCodes(t *testing.T) {
	lens := make([]uint8, huffSymbols)
	var lits []byte
	for i := range 15 {
		lens['A'+i] = uint8(i + 1)
	}
	lens[256] = 15
	for i := range 15 {
		for range 3 {
			lits = append(lits, byte('A'+i))
		}
	}
	lits = append(lits, "OANOMAN"...)
	src := huffEncodeLiterals(lits, lens, true)
	checkDecode(t, XpressHuffman, src, lits)
}

// TestHuffmanEndWithoutEOF checks a stream that ends without the EOF
// symbol: sixteen 1-bit codes fill one word exactly, so once dst is full
// the flush word of zeros would decode as another literal
// (ErrOutputOverflow), but with that word cut off the input has no further
// symbol and decoding succeeds.
func TestHuffmanEndWithoutEOF(t *testing.T) {
	lens := make([]uint8, huffSymbols)
	lens['A'], lens['B'] = 1, 1
	lits := bytes.Repeat([]byte{'A'}, 16)
	src := huffEncodeLiterals(lits, lens, false)
	if len(src) != 256+4 {
		t.Fatalf("stream is %d bytes, want 260", len(src))
	}
	dst := make([]byte, 16)
	if n, err := DecompressHuffman(dst, src); !errors.Is(err, ErrOutputOverflow) || n != 16 {
		t.Fatalf("with the flush word: %d, %v; want ErrOutputOverflow", n, err)
	}
	if n, err := DecompressHuffman(dst, src[:258]); err != nil || n != 16 || !bytes.Equal(dst, lits) {
		t.Fatalf("without the flush word: %d, %v", n, err)
	}
	if n, err := DecompressHuffman(make([]byte, 17), src[:258]); !errors.Is(err, ErrCorrupt) || n != 16 {
		t.Fatalf("one byte more than the stream holds: %d, %v; want ErrCorrupt", n, err)
	}
}

// TestHuffmanBlockChaining decodes blocks whose code tables differ, with a
// block boundary falling inside the bit reader's 32-bit look-ahead.
func TestHuffmanBlockChaining(t *testing.T) {
	a := bytes.Repeat([]byte("ab"), huffBlockSize/2) // exactly one block of literals and matches
	b := []byte("a completely different second block, with its own code")
	data := append(a, b...)
	for _, opt := range []huffOptions{{}, {maxLen: 3}, {maxChain: 1}} {
		src, st := huffCompress(data, opt)
		if st.blocks != 2 {
			t.Fatalf("%+v: %d blocks, want 2", opt, st.blocks)
		}
		checkDecode(t, XpressHuffman, src, data)
	}
}

// TestLZNT1RoundTrip compresses every test input with the test LZNT1
// encoder, with and without the End_of_buffer terminator and with stored
// (uncompressed) chunks forced, and decodes it exactly and one byte short.
// Together the inputs must use every displacement/length split M = 4..12
// of MS-XCA 2.5.1.4, the longest length of splits 5..12 (M=4 allows 4098
// bytes, more than a chunk), the farthest displacement of splits 4..11 (at
// M=12 it is 4096, the whole chunk), stored chunks and overlapping copies.
func TestLZNT1RoundTrip(t *testing.T) {
	var total lznt1Stats
	opts := []lznt1Options{
		{},
		{noTerminator: true},
		{stored: func(i int) bool { return i%3 == 1 }},
		{maxChain: 1, noTerminator: true, stored: func(i int) bool { return i%2 == 0 }},
	}
	for _, in := range testInputs() {
		for _, opt := range opts {
			src, st := lznt1Compress(in.data, opt)
			checkDecode(t, LZNT1, src, in.data)
			checkOverflow(t, LZNT1, src, in.data)
			total.chunks += st.chunks
			total.stored += st.stored
			total.overlapping += st.overlapping
			for m := range st.wordsBySplit {
				total.wordsBySplit[m] += st.wordsBySplit[m]
				total.maxLenBySplit[m] += st.maxLenBySplit[m]
				total.maxDispBySplit[m] += st.maxDispBySplit[m]
			}
		}
	}
	t.Logf("coverage: %+v", total)
	if total.stored == 0 || total.overlapping == 0 || total.chunks < 100 {
		t.Errorf("round-trip inputs missed a feature: %+v", total)
	}
	for m := 4; m <= 12; m++ {
		if total.wordsBySplit[m] == 0 || (m >= 5 && total.maxLenBySplit[m] == 0) || (m <= 11 && total.maxDispBySplit[m] == 0) {
			t.Errorf("split M=%d not exercised: %d words, %d of maximum length, %d of maximum displacement",
				m, total.wordsBySplit[m], total.maxLenBySplit[m], total.maxDispBySplit[m])
		}
	}
}

// TestLZNT1SplitBoundaries checks the displacement/length split at every
// boundary U = 2^k, 2^k+1 (k = 4..11) with hand-built chunks: U literals,
// then one compressed word reaching back to the start of the chunk with
// the split the spec requires for U.
func TestLZNT1SplitBoundaries(t *testing.T) {
	for k := 4; k <= 11; k++ {
		for _, u := range []int{1 << k, 1<<k + 1} {
			m := 4 // largest M in [4,12] with 2^(M-1) < U
			for c := 4; c <= 12; c++ {
				if 1<<(c-1) < u {
					m = c
				}
			}
			lits := make([]byte, u)
			for i := range lits {
				lits[i] = byte(i*7 + i>>8)
			}
			length := 5
			var chunk []byte
			for i := 0; i < u; i += 8 {
				chunk = append(chunk, 0)
				chunk = append(chunk, lits[i:min(u, i+8)]...)
			}
			if u%8 == 0 {
				chunk = append(chunk, 0)
			}
			chunk[len(chunk)-1-(u%8)] |= 1 << (u % 8) // flag of the word
			w := (u-1)<<(16-m) | (length - 3)
			chunk = append(chunk, byte(w), byte(w>>8))
			src := append([]byte{byte(len(chunk) - 1), 0xb0 | byte((len(chunk)-1)>>8)}, chunk...)
			want := append(append([]byte(nil), lits...), lits[:length]...)
			t.Run("", func(t *testing.T) { checkDecode(t, LZNT1, src, want) })
		}
	}
}

// TestLZNT1ChunkPadding checks that a chunk decoding to fewer than 4096
// bytes, followed by another chunk, is padded with zeros to 4096 bytes
// (the behaviour of Windows' LZNT1 decoder), also into a dirty buffer.
func TestLZNT1ChunkPadding(t *testing.T) {
	a := []byte("first chunk, short; first chunk, short")
	b := []byte("second chunk")
	ca, _ := lznt1Compress(a, lznt1Options{noTerminator: true})
	cb, _ := lznt1Compress(b, lznt1Options{stored: func(int) bool { return true }})
	src := append(ca, cb...)
	want := append(append(append([]byte(nil), a...), make([]byte, lznt1ChunkSize-len(a))...), b...)
	dst := bytes.Repeat([]byte{0xee}, len(want))
	n, err := DecompressLZNT1(dst, src)
	if err != nil || n != len(want) || !bytes.Equal(dst, want) {
		t.Fatalf("got %d, %v; padded output wrong", n, err)
	}
	// Without room for the padding, the next chunk overflows.
	if _, err := DecompressLZNT1(make([]byte, 100), src); !errors.Is(err, ErrOutputOverflow) {
		t.Fatalf("into 100 bytes: %v, want ErrOutputOverflow", err)
	}
}

// TestAllocs checks that LZ77 and LZNT1 decoding never allocates and that
// Huffman decoding does not once its pooled decoder exists.
func TestAllocs(t *testing.T) {
	data := syntheticETW(rand.New(rand.NewPCG(11, 12)), 200000)
	lz, _ := lz77Compress(data, lz77Options{})
	hf, _ := huffCompress(data, huffOptions{})
	nt, _ := lznt1Compress(data, lznt1Options{})
	dst := make([]byte, len(data))
	for _, c := range []struct {
		f   Format
		src []byte
	}{{Xpress, lz}, {XpressHuffman, hf}, {LZNT1, nt}} {
		allocs := testing.AllocsPerRun(20, func() {
			if n, err := Decompress(c.f, dst, c.src); err != nil || n != len(data) {
				t.Fatalf("%v: %d, %v", c.f, n, err)
			}
		})
		if allocs != 0 {
			t.Errorf("%v: %v allocations per call, want 0", c.f, allocs)
		}
	}
}
