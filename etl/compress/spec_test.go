package compress

import (
	"bytes"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
)

// unhex decodes a hex dump with arbitrary whitespace, as printed in
// [MS-XCA] section 3.
func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

const alphabet = "abcdefghijklmnopqrstuvwxyz"

// abc300 is the 300-byte string of the MS-XCA section 3.1 and 3.2 examples.
var abc300 = strings.Repeat("abc", 100)

// lznt1Example is the 142-byte ANSI string, with its terminal NUL, of
// MS-XCA section 3.3.
var lznt1Example = "F# F# G A A G F# E D D E F# F# E E F# F# G A A G F# E D D E F# E D D E E F# D E F# G F# D E " +
	"F# G F# E D E A F# F# G A A G F# E D D E F# E D D\x00"

// Section 3.1, Plain LZ77.
const (
	specLZ77Alphabet = `3f 00 00 00 61 62 63 64 65 66 67 68 69 6a 6b 6c 6d 6e 6f 70 71 72 73 74 75 76 77 78 79 7a`
	specLZ77ABC      = `ff ff ff 1f 61 62 63 17 00 0f ff 26 01`
)

// Section 3.2, LZ77+Huffman: a 256-byte code length table, mostly zeros,
// followed by the bit stream. huffTable builds the table from the nonzero
// bytes, which are exactly as printed in the spec.
const (
	specHuffAlphabetTail = `d8 52 3e d7 94 11 5b e9 19 5f f9 d6 7c df 8d 04 00 00 00 00`
	specHuffABCTail      = `a8 dc 00 00 ff 26 01`
)

func specHuffAlphabet(t testing.TB) []byte {
	tab := make([]byte, 256)
	copy(tab[0x30:], unhex(t, `50 55 55 55 55 55 55 55 55 55 55 45 44 04`))
	tab[0x80] = 0x04
	return append(tab, unhex(t, specHuffAlphabetTail)...)
}

func specHuffABC(t testing.TB) []byte {
	tab := make([]byte, 256)
	tab[0x30], tab[0x31], tab[0x80], tab[0x8f] = 0x30, 0x23, 0x02, 0x20
	return append(tab, unhex(t, specHuffABCTail)...)
}

// Section 3.3, LZNT1: 59 bytes in one compressed chunk.
const specLZNT1 = `
38 b0 88 46 23 20 00 20
47 20 41 00 10 a2 47 01
a0 45 20 44 00 08 45 01
50 79 00 c0 45 20 05 24
13 88 05 b4 02 4a 44 ef
03 58 02 8c 09 16 01 48
45 00 be 00 9e 00 04 01
18 90 00`

type specExample struct {
	name string
	f    Format
	src  []byte
	want string
}

func specExamples(t testing.TB) []specExample {
	return []specExample{
		{"3.1/LZ77/alphabet", Xpress, unhex(t, specLZ77Alphabet), alphabet},
		{"3.1/LZ77/abc300", Xpress, unhex(t, specLZ77ABC), abc300},
		{"3.2/Huffman/alphabet", XpressHuffman, specHuffAlphabet(t), alphabet},
		{"3.2/Huffman/abc300", XpressHuffman, specHuffABC(t), abc300},
		{"3.3/LZNT1/F#", LZNT1, unhex(t, specLZNT1), lznt1Example},
	}
}

// TestSpecExamples decodes every worked example of MS-XCA section 3 and
// checks the exact output and count.
func TestSpecExamples(t *testing.T) {
	for _, ex := range specExamples(t) {
		t.Run(ex.name, func(t *testing.T) {
			dst := make([]byte, len(ex.want))
			n, err := Decompress(ex.f, dst, ex.src)
			if err != nil {
				t.Fatalf("Decompress(%v): %v", ex.f, err)
			}
			if n != len(ex.want) || string(dst[:n]) != ex.want {
				t.Fatalf("Decompress(%v) = %d bytes %q, want %d bytes %q", ex.f, n, dst[:n], len(ex.want), ex.want)
			}
		})
	}
}

// TestSpecExamplesTooSmall checks that each example fails with
// ErrOutputOverflow into a buffer one byte short.
func TestSpecExamplesTooSmall(t *testing.T) {
	for _, ex := range specExamples(t) {
		t.Run(ex.name, func(t *testing.T) {
			dst := make([]byte, len(ex.want)-1)
			n, err := Decompress(ex.f, dst, ex.src)
			if !errors.Is(err, ErrOutputOverflow) {
				t.Fatalf("Decompress into %d bytes = %d, %v; want ErrOutputOverflow", len(dst), n, err)
			}
			if n > len(dst) {
				t.Fatalf("n = %d > len(dst) = %d", n, len(dst))
			}
		})
	}
}

// TestHuffmanExactSize checks the Huffman end rules on the MS-XCA
// alphabet example: with dst full after 10 bytes the next symbol is a
// literal, so ErrOutputOverflow; after 26 it is EOF, so success, even with
// garbage after the stream; and into a larger dst, symbol 256 (EOF) is a
// match of distance 1, after which the input runs out.
func TestHuffmanExactSize(t *testing.T) {
	src := specHuffAlphabet(t)
	dst := make([]byte, 10)
	n, err := DecompressHuffman(dst, src)
	if !errors.Is(err, ErrOutputOverflow) || n != 10 || string(dst) != alphabet[:10] {
		t.Fatalf("into 10 bytes: %d, %v, %q; want ErrOutputOverflow", n, err, dst[:n])
	}
	garbage := append(bytes.Clone(src), bytes.Repeat([]byte{0x5a}, 300)...)
	dst = make([]byte, 26)
	if n, err := DecompressHuffman(dst, garbage); err != nil || n != 26 || string(dst) != alphabet {
		t.Fatalf("with trailing garbage: %d, %v, %q", n, err, dst[:n])
	}
	dst = make([]byte, 100)
	n, err = DecompressHuffman(dst, src)
	if !errors.Is(err, ErrCorrupt) {
		t.Fatalf("into 100 bytes: %d, %v; want ErrCorrupt", n, err)
	}
	if !bytes.HasPrefix(dst[:n], []byte(alphabet+"zzz")) {
		t.Fatalf("into 100 bytes: output %q does not start with the alphabet and a distance-1 match", dst[:n])
	}
	// In the abc300 example the match (3+3+2+2+1 = 11 bits into the first
	// word) is followed by EOF, code 01; turning that into 00, the code of
	// 'c', puts a literal after the last byte.
	abc := specHuffABC(t)
	noEOF := bytes.Clone(abc)
	noEOF[256] &= 0xe0 // keep bits 8-10 of the first word, clear 11-15
	if n, err := DecompressHuffman(make([]byte, 300), abc); err != nil || n != 300 {
		t.Fatalf("abc300: %d, %v", n, err)
	}
	if n, err := DecompressHuffman(make([]byte, 300), noEOF); !errors.Is(err, ErrOutputOverflow) || n != 300 {
		t.Fatalf("a literal after the last byte: %d, %v; want ErrOutputOverflow", n, err)
	}
}

// TestLZ77ShortStream checks that Plain LZ77 ends at the end of input: into
// a larger buffer the count is the true size, not len(dst).
func TestLZ77ShortStream(t *testing.T) {
	for _, ex := range specExamples(t) {
		if ex.f != Xpress {
			continue
		}
		dst := make([]byte, len(ex.want)+1000)
		n, err := DecompressLZ77(dst, ex.src)
		if err != nil || n != len(ex.want) || string(dst[:n]) != ex.want {
			t.Errorf("%s into %d bytes: %d, %v", ex.name, len(dst), n, err)
		}
	}
}

func TestFormatString(t *testing.T) {
	for f, want := range map[Format]string{
		LZNT1: "LZNT1", Xpress: "XPRESS", XpressHuffman: "XPRESS_HUFF",
		0: "format(0)", 1: "format(1)", 5: "format(5)", 0x102: "format(258)",
	} {
		if got := f.String(); got != want {
			t.Errorf("Format(%d).String() = %q, want %q", uint16(f), got, want)
		}
	}
}

func TestUnsupportedFormat(t *testing.T) {
	for _, f := range []Format{0, 1, 5, 0xffff} {
		n, err := Decompress(f, make([]byte, 10), []byte{1, 2, 3})
		if n != 0 || !errors.Is(err, ErrUnsupportedFormat) {
			t.Errorf("Decompress(%v) = %d, %v; want ErrUnsupportedFormat", f, n, err)
		}
	}
}

// TestLZ77FullFlagWord covers the end of a stream whose item count is a
// multiple of 32: the MS-XCA 2.3.4 encoder then writes a last flag word
// of all ones with no items after it, and the decoder ends at its first
// (match) flag.
func TestLZ77FullFlagWord(t *testing.T) {
	want := []byte("0123456789abcdefghijklmnopqrstuv") // 32 literals
	src := append(append([]byte{0, 0, 0, 0}, want...), 0xff, 0xff, 0xff, 0xff)
	got, _ := lz77Compress(want, lz77Options{})
	if !bytes.Equal(got, src) {
		t.Fatalf("test encoder wrote % x, want % x", got, src)
	}
	for _, size := range []int{32, 33, 1000} {
		dst := make([]byte, size)
		n, err := DecompressLZ77(dst, src)
		if err != nil || n != 32 || !bytes.Equal(dst[:n], want) {
			t.Errorf("into %d bytes: %d, %v", size, n, err)
		}
	}
	// Without the final flag word the stream ends at a flag-word boundary.
	if n, err := DecompressLZ77(make([]byte, 32), src[:36]); err != nil || n != 32 {
		t.Errorf("without the last flag word: %d, %v", n, err)
	}
}
