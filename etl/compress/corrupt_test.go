package compress

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
)

type corruptCase struct {
	name    string
	f       Format
	src     []byte
	size    int
	want    error  // ErrCorrupt or ErrOutputOverflow
	message string // substring the error must contain
}

// le32 is a little-endian flag word for LZ77 test streams.
func le32(v uint32) []byte { return []byte{byte(v), byte(v >> 8), byte(v >> 16), byte(v >> 24)} }

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

func corruptCases(t *testing.T) []corruptCase {
	lit1Match := le32(0x7fffffff) // a literal, then matches
	huffABC := specHuffABC(t)
	huffTable := func(lens map[int]uint8) []byte {
		tab := make([]byte, 256)
		for s, l := range lens {
			tab[s/2] |= l << (4 * (s % 2))
		}
		return tab
	}
	two := huffTable(map[int]uint8{'a': 1, 256: 1}) // 'a' = 0, 256 = 1
	lznt1 := unhex(t, specLZNT1)
	badSig := bytes.Clone(lznt1)
	badSig[1] = 0xa0
	big, _ := huffCompress(syntheticETW(rand.New(rand.NewPCG(3, 4)), 70000), huffOptions{})
	return []corruptCase{
		// Plain LZ77.
		{"lz77/flags-truncated", Xpress, []byte{0, 0, 0}, 10, ErrCorrupt, "flag word at input offset 0 truncated"},
		{"lz77/second-flags-truncated", Xpress, cat(le32(0), bytes.Repeat([]byte{'x'}, 32), []byte{1}), 100, ErrCorrupt, "flag word at input offset 36 truncated"},
		{"lz77/match-truncated", Xpress, cat(unhex(t, specLZ77Alphabet), []byte{0}), 26, ErrCorrupt, "match at input offset 30 truncated"},
		{"lz77/match-before-start", Xpress, cat(le32(0x80000000), []byte{0, 0}), 10, ErrCorrupt, "match at input offset 4 reaches 1 bytes back from output offset 0, before start of output"},
		{"lz77/match-too-far", Xpress, cat(lit1Match, []byte{'a', 8, 0}), 10, ErrCorrupt, "match at input offset 5 reaches 2 bytes back from output offset 1"},
		{"lz77/nibble-truncated", Xpress, cat(lit1Match, []byte{'a', 7, 0}), 100, ErrCorrupt, "truncated before its length nibble"},
		{"lz77/byte-truncated", Xpress, cat(lit1Match, []byte{'a', 7, 0, 15}), 100, ErrCorrupt, "truncated before its length byte"},
		{"lz77/u16-truncated", Xpress, cat(lit1Match, []byte{'a', 7, 0, 15, 255, 1}), 1000, ErrCorrupt, "truncated before its 16-bit length"},
		{"lz77/u32-truncated", Xpress, cat(lit1Match, []byte{'a', 7, 0, 15, 255, 0, 0, 1, 0, 0}), 1000, ErrCorrupt, "truncated before its 32-bit length"},
		{"lz77/u16-too-small", Xpress, cat(lit1Match, []byte{'a', 7, 0, 15, 255, 21, 0}), 1000, ErrCorrupt, "invalid long length 21"},
		{"lz77/u32-too-small", Xpress, cat(lit1Match, []byte{'a', 7, 0, 15, 255, 0, 0, 3, 0, 0, 0}), 1000, ErrCorrupt, "invalid long length 3"},
		{"lz77/u32-huge", Xpress, cat(lit1Match, []byte{'a', 7, 0, 15, 255, 0, 0, 0xff, 0xff, 0xff, 0xff}), 1000, ErrOutputOverflow, "match at input offset 5 of length 4294967298"},
		{"lz77/match-overflow", Xpress, unhex(t, specLZ77ABC), 299, ErrOutputOverflow, "match at input offset 7 of length 297 at output offset 3 overflows 299-byte output"},
		{"lz77/literal-overflow", Xpress, unhex(t, specLZ77Alphabet), 20, ErrOutputOverflow, "literal at input offset 24"},

		// LZ77+Huffman.
		{"huff/no-table", XpressHuffman, make([]byte, 100), 10, ErrCorrupt, "input ends at offset 100"},
		{"huff/empty-code", XpressHuffman, make([]byte, 300), 10, ErrCorrupt, "table at input offset 0 is not a complete prefix code"},
		{"huff/one-symbol", XpressHuffman, cat(huffTable(map[int]uint8{'a': 1}), make([]byte, 8)), 10, ErrCorrupt, "not a complete prefix code"},
		{"huff/oversubscribed", XpressHuffman, cat(huffTable(map[int]uint8{'a': 1, 'b': 1, 'c': 1}), make([]byte, 8)), 10, ErrCorrupt, "not a complete prefix code"},
		{"huff/length-16-nibble", XpressHuffman, cat(huffTable(map[int]uint8{'a': 1, 'b': 2, 'c': 3}), make([]byte, 8)), 10, ErrCorrupt, "not a complete prefix code"},
		{"huff/match-before-start", XpressHuffman, cat(two, []byte{0, 0x80, 0, 0}), 10, ErrCorrupt, "reaches 1 bytes back from output offset 0, before start of output"},
		{"huff/length-byte-missing", XpressHuffman, huffABC[:260], 300, ErrCorrupt, "match length byte at input offset 260 is past end of input"},
		{"huff/length-u16-missing", XpressHuffman, huffABC[:262], 300, ErrCorrupt, "16-bit match length at input offset 261 is past end of input"},
		{"huff/bits-missing", XpressHuffman, cat(two, []byte{0}), 40, ErrCorrupt, "bit stream runs past end of input at offset 257"},
		{"huff/match-overflow", XpressHuffman, huffABC, 299, ErrOutputOverflow, "of length 297 at output offset 3 overflows 299-byte output"},
		{"huff/second-block-missing", XpressHuffman, big[:len(big)/2], 70000, ErrCorrupt, "past end of input"},

		// LZNT1.
		{"lznt1/header-truncated", LZNT1, []byte{0x38}, 10, ErrCorrupt, "chunk header at input offset 0 truncated"},
		{"lznt1/chunk-truncated", LZNT1, lznt1[:50], 142, ErrCorrupt, "chunk at input offset 0 needs 59 bytes, only 48 left"},
		{"lznt1/bad-signature", LZNT1, badSig, 142, ErrCorrupt, "signature 2, want 3"},
		{"lznt1/second-header-truncated", LZNT1, cat(lznt1, []byte{1}), 142, ErrCorrupt, "chunk header at input offset 59 truncated"},
		{"lznt1/word-before-start", LZNT1, []byte{0x02, 0xb0, 0x01, 0x00, 0x00}, 10, ErrCorrupt, "input offset 3 reaches 1 bytes back from chunk position 0"},
		{"lznt1/word-too-far", LZNT1, []byte{0x03, 0xb0, 0x02, 'a', 0x00, 0x10}, 10, ErrCorrupt, "input offset 4 reaches 2 bytes back from chunk position 1"},
		{"lznt1/word-truncated", LZNT1, []byte{0x02, 0xb0, 0x02, 'a', 0x00}, 10, ErrCorrupt, "compressed word at input offset 4 truncated by end of chunk"},
		{"lznt1/chunk-too-long", LZNT1, []byte{0x03, 0xb0, 0x02, 'a', 0xff, 0x0f}, 10000, ErrCorrupt, "input offset 4 decodes past 4096 bytes of its chunk"},
		{"lznt1/overflow", LZNT1, lznt1, 141, ErrOutputOverflow, "overflows 141-byte output"},
		{"lznt1/stored-overflow", LZNT1, []byte{0x04, 0x30, 1, 2, 3, 4, 5}, 4, ErrOutputOverflow, "uncompressed chunk at input offset 0 overflows 4-byte output"},
	}
}

// TestCorrupt checks that each malformed stream fails with the right
// sentinel and an error naming the input offset at fault, that nothing is
// reported beyond len(dst), and that the bytes before the failure are
// right where the stream is a damaged valid one.
func TestCorrupt(t *testing.T) {
	for _, c := range corruptCases(t) {
		t.Run(c.name, func(t *testing.T) {
			dst := make([]byte, c.size)
			n, err := Decompress(c.f, dst, c.src)
			if !errors.Is(err, c.want) {
				t.Fatalf("Decompress = %d, %v; want %v", n, err, c.want)
			}
			if n < 0 || n > len(dst) {
				t.Fatalf("n = %d outside [0, %d]", n, len(dst))
			}
			if !strings.Contains(err.Error(), "offset") || !strings.Contains(err.Error(), c.message) {
				t.Fatalf("error %q does not contain %q", err, c.message)
			}
			if !strings.HasPrefix(err.Error(), map[Format]string{Xpress: "xpress: ", XpressHuffman: "xpress huffman: ", LZNT1: "lznt1: "}[c.f]) {
				t.Fatalf("error %q lacks the format prefix", err)
			}
		})
	}
}

// TestTruncatedStreams cuts valid streams of each format at many lengths:
// decoding must not panic, must report n <= len(dst), must produce a
// correct prefix, and must fail (or, for Plain LZ77, return a short count)
// unless only unused trailing bytes were cut.
func TestTruncatedStreams(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	data := append(syntheticETW(rng, 140000), runsOf(5, 20, 300, 70000)...)
	streams := map[Format][]byte{}
	streams[Xpress], _ = lz77Compress(data, lz77Options{})
	streams[XpressHuffman], _ = huffCompress(data, huffOptions{})
	streams[LZNT1], _ = lznt1Compress(data, lznt1Options{})
	for f, src := range streams {
		dst := make([]byte, len(data))
		cuts := 0
		for cut := 0; cut < len(src); cut += 1 + rng.IntN(97) {
			if cut > len(src)-64 {
				cut = max(cut, len(src)-64) // every one of the last 64
			}
			cuts++
			n, err := Decompress(f, dst, src[:cut])
			if n < 0 || n > len(dst) || !bytes.Equal(dst[:n], data[:n]) {
				t.Fatalf("%v cut at %d/%d: n = %d, wrong prefix (%v)", f, cut, len(src), n, err)
			}
			switch {
			case err != nil:
				if !errors.Is(err, ErrCorrupt) {
					t.Fatalf("%v cut at %d: %v, want ErrCorrupt", f, cut, err)
				}
			case n == len(data):
				// Only bytes the decoder never needed were cut: the
				// LZ77 end flags or Huffman padding, or the LZNT1
				// End_of_buffer header.
				if len(src)-cut > 4 {
					t.Fatalf("%v cut at %d of %d: decoded everything", f, cut, len(src))
				}
			case f != Xpress && f != LZNT1:
				t.Fatalf("%v cut at %d: short count %d without error", f, cut, n)
			}
		}
		t.Logf("%v: %d cuts of a %d-byte stream", f, cuts, len(src))
	}
}
