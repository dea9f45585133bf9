package compress

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/etwkit/etw/internal/etlcorpus"
)

// checkLZ77FastLoop decodes src into size bytes with and without the fast
// loop and fails unless both give the same count, the same error text and
// the same output bytes.
func checkLZ77FastLoop(t *testing.T, src []byte, size int) {
	t.Helper()
	want, got := make([]byte, size), make([]byte, size)
	nw, ew := decompressLZ77(want, src, false)
	ng, eg := decompressLZ77(got, src, true)
	if ng != nw || errText(eg) != errText(ew) || !bytes.Equal(got[:ng], want[:nw]) {
		t.Fatalf("%d-byte stream into %d bytes: fast loop %d, %v; checked loop %d, %v", len(src), size, ng, eg, nw, ew)
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestLZ77FastLoop checks that the fast loop changes nothing: every
// compressed buffer of the corpus and the hostile inputs of ETL_ATTACK,
// into outputs of their size and of sizes around it, then windows of
// them with bytes changed, decode as the checked loop alone decodes them.
func TestLZ77FastLoop(t *testing.T) {
	root, files := corpusFiles(t)
	var streams []etlBuffer
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, path)
		streams = append(streams, compressedBuffers(t, rel, data)...)
	}
	if len(streams) == 0 {
		t.Fatalf("no compressed buffers under %s", root)
	}
	// Without the hostile inputs the subtest skips, the corpus's buffers
	// are still checked.
	t.Run("attack", func(t *testing.T) {
		for _, path := range etlcorpus.AttackTraces(t) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			streams = append(streams, etlBuffer{file: path, src: data, size: 1 << 16})
		}
	})
	for _, b := range streams {
		for _, size := range []int{b.size, b.size + 17, b.size - 1, b.size / 2, 0, 7, 63, 64, 100} {
			if size >= 0 {
				checkLZ77FastLoop(t, b.src, size)
			}
		}
	}
	rng := rand.New(rand.NewPCG(24, 77))
	for range 20000 {
		b := streams[rng.IntN(len(streams))]
		if len(b.src) == 0 {
			continue
		}
		lo := rng.IntN(len(b.src))
		s := bytes.Clone(b.src[lo : lo+rng.IntN(min(len(b.src)-lo, 4096)+1)])
		for range rng.IntN(6) {
			if len(s) > 0 {
				s[rng.IntN(len(s))] = byte(rng.Uint32())
			}
		}
		size := rng.IntN(70000)
		if rng.IntN(2) == 0 {
			size = rng.IntN(200)
		}
		checkLZ77FastLoop(t, s, size)
	}
	t.Logf("%d streams", len(streams))
}

// The offsets and lengths of randomLZ77Tokens' matches: each is drawn
// from one of these ranges (first value, count), picked at random.
var (
	lz77TokenOffsets = [][2]int{{1, 7}, {8, 33}, {1, 8192}, {1, 8192}}
	lz77TokenLengths = [][2]int{{3, 8}, {3, 8}, {3, 30}, {10, 15}, {3, 300}, {3, 2000}}
)

func draw(rng *rand.Rand, ranges [][2]int) int {
	r := ranges[rng.IntN(len(ranges))]
	return r[0] + rng.IntN(r[1])
}

// randomLZ77Tokens writes a Plain LZ77 stream of items items drawn to
// reach every path of the fast loop: literal runs of 0 to 40 bytes,
// matches of offsets 1 to 7 (patterns), 8 to 40 and up to 8192, of
// lengths 3 to 10, to 32, to 300 and 16-bit ones, through every length
// encoding (3 bits, the shared nibble in both halves, the byte, 16 bits),
// and now and then a match reaching before the output. It returns the
// stream and the length of its output.
func randomLZ77Tokens(rng *rand.Rand, items int) ([]byte, int) {
	var (
		src        []byte
		out        int
		flagAt     = -1
		flags      uint32
		nflags     int
		half       = -1
		pendingLit int
	)
	flag := func(bit uint32) {
		if nflags == 0 {
			flagAt = len(src)
			src = append(src, 0, 0, 0, 0)
		}
		flags |= bit << (31 - nflags)
		if nflags++; nflags == 32 {
			binary.LittleEndian.PutUint32(src[flagAt:], flags)
			flags, nflags = 0, 0
		}
	}
	for range items {
		if pendingLit > 0 || out == 0 || rng.IntN(3) == 0 {
			if pendingLit == 0 {
				pendingLit = rng.IntN(41)
			}
			for ; pendingLit > 0; pendingLit-- {
				flag(0)
				src = append(src, byte(rng.IntN(4)+'a'))
				out++
			}
			continue
		}
		offset := draw(rng, lz77TokenOffsets)
		if offset > out && rng.IntN(500) != 0 {
			offset = 1 + rng.IntN(out)
		}
		length := draw(rng, lz77TokenLengths)
		flag(1)
		l := length - 3
		src = binary.LittleEndian.AppendUint16(src, uint16((offset-1)<<3|min(l, 7)))
		if l >= 7 {
			l -= 7
			nib := min(l, 15)
			if half < 0 {
				half = len(src)
				src = append(src, byte(nib))
			} else {
				src[half] |= byte(nib) << 4
				half = -1
			}
			if l >= 15 {
				l -= 15
				if l < 255 {
					src = append(src, byte(l))
				} else {
					src = append(src, 255)
					src = binary.LittleEndian.AppendUint16(src, uint16(length-3))
				}
			}
		}
		out += length
	}
	if nflags > 0 {
		// Pad with match flags, as the MS-XCA encoder does: the
		// stream ends at the first of them.
		binary.LittleEndian.PutUint32(src[flagAt:], flags|(1<<(32-nflags)-1))
	}
	return src, out
}

// TestLZ77FastLoopTokens checks the fast loop against the checked loop
// on streams of every kind of item (randomLZ77Tokens), into outputs of
// their size, a little more or less, and a small one, and whole or cut.
func TestLZ77FastLoopTokens(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 24))
	whole := 0
	for i := range 3000 {
		src, size := randomLZ77Tokens(rng, 1+rng.IntN(400))
		if n, err := DecompressLZ77(make([]byte, size), src); n == size && err == nil {
			whole++
		}
		for _, n := range []int{size, size + 1 + rng.IntN(70), size - 1 - rng.IntN(70), rng.IntN(200)} {
			if n >= 0 {
				checkLZ77FastLoop(t, src, n)
			}
		}
		if i%10 == 0 {
			checkLZ77FastLoop(t, src[:rng.IntN(len(src)+1)], size)
		}
	}
	// Most streams must decode whole, or the items past a bad match
	// went untested.
	if whole < 2400 {
		t.Fatalf("%d of 3000 streams decode whole", whole)
	}
	t.Logf("%d of 3000 streams decode whole", whole)
}
