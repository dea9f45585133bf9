package compress

import (
	"bytes"
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
