package compress

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
)

// decodeInParts decodes src, whose whole output is size bytes, with an
// LZ77Decoder into parts of the lengths parts gives in turn (cycling; a
// part of 0 bytes is allowed), each preceded by the history the decoder
// needs and no more, and returns the output and the error.
func decodeInParts(t *testing.T, src []byte, size int, parts []int) ([]byte, error) {
	t.Helper()
	var d LZ77Decoder
	d.Reset(size)
	var all []byte
	buf := make([]byte, 0, LZ77History+1<<16)
	for i := 0; !d.Done(); i++ {
		part := parts[i%len(parts)]
		hist := min(len(all), LZ77History)
		buf = append(buf[:0], all[len(all)-hist:]...)
		buf = append(buf, make([]byte, part)...)
		// Garbage in the room the decoder must overwrite.
		for j := hist; j < len(buf); j++ {
			buf[j] = 0xA5
		}
		// The input before InputFrom is not read again.
		from := d.InputFrom()
		if from < 0 || from > len(src) {
			t.Fatalf("part %d: InputFrom %d of %d", i, from, len(src))
		}
		in := bytes.Clone(src)
		for j := range from {
			in[j] ^= 0x5A
		}
		n, err := d.Decode(buf, hist, in)
		if n < 0 || n > part {
			t.Fatalf("part %d of %d bytes: wrote %d", i, part, n)
		}
		all = append(all, buf[hist:hist+n]...)
		if d.Out() != len(all) {
			t.Fatalf("part %d: Out() = %d, written %d", i, d.Out(), len(all))
		}
		if err != nil {
			if !d.Done() {
				t.Fatalf("part %d: error %v but not Done", i, err)
			}
			return all, err
		}
		if i > 3*size+len(src)+8 {
			t.Fatalf("no progress after %d parts", i)
		}
	}
	return all, nil
}

// checkResume compares decoding src in parts with DecompressLZ77 of the
// whole: same count, bytes and error message.
func checkResume(t *testing.T, src []byte, size int, parts []int) {
	t.Helper()
	want := make([]byte, size)
	n, werr := DecompressLZ77(want, src)
	got, gerr := decodeInParts(t, src, size, parts)
	if fmt.Sprint(gerr) != fmt.Sprint(werr) {
		t.Fatalf("parts %v: error %v, whole %v", parts, gerr, werr)
	}
	if len(got) != n || !bytes.Equal(got, want[:n]) {
		t.Fatalf("parts %v: %d bytes (equal prefix %v), whole %d", parts, len(got), bytes.Equal(got[:min(n, len(got))], want[:min(n, len(got))]), n)
	}
}

func TestLZ77ResumeRoundTrip(t *testing.T) {
	splits := [][]int{{1}, {7}, {1, 0, 3}, {4096}, {8191, 1}, {16 << 10}, {65536}}
	for _, in := range testInputs() {
		if len(in.data) > 1<<17 {
			continue
		}
		src, _ := lz77Compress(in.data, lz77Options{maxChain: 8})
		for _, parts := range splits {
			if parts[0] < 64 && len(in.data) > 20000 {
				continue // byte-sized parts of large inputs: slow, nothing new
			}
			checkResume(t, src, len(in.data), parts)
			checkResume(t, src, len(in.data)+5, parts) // stream ends short of the size
		}
	}
}

func TestLZ77ResumeCorrupt(t *testing.T) {
	for _, c := range corruptCases(t) {
		if c.f != Xpress {
			continue
		}
		for _, parts := range [][]int{{1}, {2, 0}, {5}, {64}, {c.size + 1}} {
			checkResume(t, c.src, c.size, parts)
		}
	}
	// Every truncation and a damaged byte anywhere in a stream with long
	// matches and far offsets.
	rng := rand.New(rand.NewPCG(5, 6))
	plain := bytes.Join([][]byte{farRepeats(rng, 100, 4000, 8192, 9000), runsOf(3, 18, 22, 300, 70000), syntheticETW(rng, 3000)}, nil)
	src, _ := lz77Compress(plain, lz77Options{maxChain: 8})
	for cut := 0; cut <= len(src); cut += 1 + cut/50 {
		checkResume(t, src[:cut], len(plain), []int{3000})
		bad := bytes.Clone(src)
		if cut < len(bad) {
			bad[cut] ^= byte(rng.Uint32() | 1)
		}
		checkResume(t, bad, len(plain), []int{5000, 17})
		checkResume(t, bad, len(plain)/2, []int{4096})
	}
}

// TestLZ77ResumeHistory checks that Decode refuses less history than
// matches may reach, instead of reading bytes it was not given.
func TestLZ77ResumeHistory(t *testing.T) {
	plain := farRepeats(rand.New(rand.NewPCG(9, 9)), 8192, 9000)
	src, _ := lz77Compress(plain, lz77Options{maxChain: 8})
	var d LZ77Decoder
	d.Reset(len(plain))
	buf := make([]byte, 10000)
	if _, err := d.Decode(buf, 0, src); err != nil || d.Out() != 10000 {
		t.Fatalf("first part: %d, %v", d.Out(), err)
	}
	if _, err := d.Decode(buf, LZ77History-1, src); err == nil {
		t.Fatal("resumed with 8191 bytes of history after 10000: no error")
	}
}

func TestLZ77ResumeCorpus(t *testing.T) {
	_, files := corpusFiles(t)
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for i, b := range compressedBuffers(t, path, data) {
			if i%7 != 0 {
				continue // a sample keeps the test short
			}
			checkResume(t, b.src, b.size, []int{16 << 10})
			checkResume(t, b.src, b.size, []int{5000, 3, 12000})
		}
	}
}

func FuzzLZ77Resume(f *testing.F) {
	fuzzSeeds(f, Xpress)
	f.Fuzz(func(t *testing.T, src []byte, size uint32, plain []byte) {
		// plain picks the parts: a few lengths from 0 to 32 KiB.
		parts := []int{int(size%9000) + 1}
		for i := 0; i+1 < len(plain) && len(parts) < 4; i += 2 {
			parts = append(parts, int(plain[i])|int(plain[i+1]&0x7f)<<8)
		}
		n := int(size % (fuzzMaxOutput + 1))
		if n/max(1, parts[0]) > 4096 {
			parts[0] = n / 4096 // bound the number of parts
		}
		checkResume(t, src, n, parts)
	})
}
