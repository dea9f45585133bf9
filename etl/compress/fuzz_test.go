package compress

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"
)

// Fuzz targets. Each takes a compressed stream, an output size and a
// plaintext: the stream is decoded into a buffer of that size (any input
// must decode or fail cleanly, never panic nor report more than len(dst)),
// and the plaintext is compressed with the test encoder of the format and
// must round-trip exactly.

const (
	fuzzMaxOutput = 1 << 18 // bounds the output buffer of the decode half
	fuzzMaxPlain  = 1 << 13 // bounds the plaintext of the round-trip half (two LZNT1 chunks)
)

// fuzzSeeds adds the MS-XCA examples and test-encoder outputs of the
// format as seeds.
func fuzzSeeds(f *testing.F, format Format) {
	for _, ex := range specExamples(f) {
		if ex.f == format {
			f.Add(ex.src, uint32(len(ex.want)), []byte(ex.want))
		}
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for _, plain := range [][]byte{
		nil,
		[]byte("a"),
		[]byte(lznt1Example),
		runsOf(3, 10, 25, 280, 1000),
		periodic(rng, 3000, 3),
		smallAlphabet(rng, 2000, 5),
		randomBytes(rng, 600),
		syntheticETW(rng, 5000),
	} {
		f.Add(fuzzCompress(format, plain), uint32(len(plain)), plain)
	}
	// Larger streams (two Huffman blocks, several LZNT1 chunks, LZ77 32-bit
	// lengths) seed the decoder only: a small plaintext keeps each run of
	// the test encoder, and so fuzzing and minimising, fast.
	large := map[Format][][]byte{
		Xpress:        {runsOf(70000, 300, 20), syntheticETW(rng, 20000)},
		XpressHuffman: {syntheticETW(rng, 66000), runsOf(70000, 300, 20)},
		LZNT1:         {syntheticETW(rng, 9000), runsOf(5000, 300, 20)},
	}
	for _, plain := range large[format] {
		f.Add(fuzzCompress(format, plain), uint32(len(plain)), []byte("x"))
	}
}

func fuzzCompress(format Format, plain []byte) []byte {
	var src []byte
	switch format {
	case Xpress:
		src, _ = lz77Compress(plain, lz77Options{maxChain: 8})
	case XpressHuffman:
		src, _ = huffCompress(plain, huffOptions{maxChain: 8, crossBlock: len(plain)%2 == 1})
	case LZNT1:
		src, _ = lznt1Compress(plain, lznt1Options{maxChain: 8, noTerminator: len(plain)%2 == 1})
	}
	return src
}

func fuzzDecompress(t *testing.T, format Format, src []byte, size uint32, plain []byte) {
	dst := make([]byte, int(size%(fuzzMaxOutput+1)))
	n, err := Decompress(format, dst, src)
	if n < 0 || n > len(dst) {
		t.Fatalf("n = %d outside [0, %d] (err %v)", n, len(dst), err)
	}
	if err != nil {
		if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrOutputOverflow) {
			t.Fatalf("error %v wraps neither ErrCorrupt nor ErrOutputOverflow", err)
		}
	} else {
		if format == XpressHuffman && n != len(dst) {
			t.Fatalf("Huffman success with %d of %d bytes", n, len(dst))
		}
		// Decoding is deterministic and does not depend on spare room.
		again := make([]byte, n)
		if n2, err2 := Decompress(format, again, src); n2 != n || err2 != nil || !bytes.Equal(again, dst[:n]) {
			t.Fatalf("into exactly %d bytes: %d, %v (first decode succeeded)", n, n2, err2)
		}
	}

	if len(plain) > fuzzMaxPlain {
		plain = plain[:fuzzMaxPlain]
	}
	comp := fuzzCompress(format, plain)
	out := make([]byte, len(plain))
	if n, err := Decompress(format, out, comp); err != nil || n != len(plain) || !bytes.Equal(out, plain) {
		t.Fatalf("round trip of %d bytes through a %d-byte stream: %d, %v", len(plain), len(comp), n, err)
	}
}

func FuzzDecompressLZ77(f *testing.F) {
	fuzzSeeds(f, Xpress)
	f.Fuzz(func(t *testing.T, src []byte, size uint32, plain []byte) {
		fuzzDecompress(t, Xpress, src, size, plain)
		checkLZ77FastLoop(t, src, int(size%(fuzzMaxOutput+1)))
	})
}

func FuzzDecompressHuffman(f *testing.F) {
	fuzzSeeds(f, XpressHuffman)
	f.Fuzz(func(t *testing.T, src []byte, size uint32, plain []byte) {
		fuzzDecompress(t, XpressHuffman, src, size, plain)
	})
}

func FuzzDecompressLZNT1(f *testing.F) {
	fuzzSeeds(f, LZNT1)
	f.Fuzz(func(t *testing.T, src []byte, size uint32, plain []byte) {
		fuzzDecompress(t, LZNT1, src, size, plain)
	})
}
