package compress

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// lz77Analyze walks a Plain LZ77 stream that decodes to size bytes and
// counts the encodings it uses. It checks what the decoder does not: that
// the stream ends right after the item that completes the output, with
// the unused flags of the last word set to one (and a last word of
// 0xFFFFFFFF after a full one), as Windows and the MS-XCA encoder end it.
func lz77Analyze(t testing.TB, src []byte, size int) lz77Stats {
	t.Helper()
	var st lz77Stats
	in, out, half := 0, 0, -1
	var flags uint32
	nflags := 0
	for out < size {
		if nflags == 0 {
			flags = binary.LittleEndian.Uint32(src[in:])
			in += 4
			nflags = 32
		}
		bit := flags >> 31
		flags <<= 1
		nflags--
		if bit == 0 {
			st.literals++
			in++
			out++
			continue
		}
		mb := int(binary.LittleEndian.Uint16(src[in:]))
		in += 2
		dist, length := mb>>3+1, mb&7
		switch {
		case length < 7:
			st.short++
		default:
			if half < 0 {
				length, half = int(src[in]&15), in
				in++
			} else {
				length, half = int(src[half]>>4), -1
			}
			switch {
			case length < 15:
				st.nibble++
			case src[in] < 255:
				length = int(src[in]) + 15
				in++
				st.byteLen++
			case binary.LittleEndian.Uint16(src[in+1:]) != 0:
				length = int(binary.LittleEndian.Uint16(src[in+1:])) - 7
				in += 3
				st.u16++
			default:
				length = int(binary.LittleEndian.Uint32(src[in+3:])) - 7
				in += 7
				st.u32++
			}
			length += 7
		}
		length += 3
		st.matches++
		st.farthest = max(st.farthest, dist)
		if dist < length {
			st.overlapping++
		}
		out += length
	}
	if out != size {
		t.Fatalf("stream decodes to %d bytes, want %d", out, size)
	}
	if nflags == 0 {
		if len(src)-in != 4 || binary.LittleEndian.Uint32(src[in:]) != 0xffffffff {
			t.Fatalf("after a full flag word the stream ends with % x, want ff ff ff ff", src[in:])
		}
		return st
	}
	if in != len(src) {
		t.Fatalf("%d bytes after the last item", len(src)-in)
	}
	if want := ^uint32(0) << (32 - nflags); flags != want {
		t.Fatalf("last flag word's %d unused flags are %#x, want ones", nflags, flags>>(32-nflags))
	}
	return st
}

// checkCompressLZ77 compresses data with c, appending to a non-empty
// slice, and checks the result: within LZ77Bound, the prefix kept, the
// stream well formed, and decoding exactly (also into a larger buffer, and
// one byte short is ErrOutputOverflow). It returns the stream.
func checkCompressLZ77(t *testing.T, c *Compressor, data []byte) ([]byte, lz77Stats) {
	t.Helper()
	prefix := []byte("prefix")
	out := c.AppendLZ77(bytes.Clone(prefix), data)
	if !bytes.HasPrefix(out, prefix) {
		t.Fatalf("%d bytes: prefix of dst not kept", len(data))
	}
	comp := out[len(prefix):]
	if len(comp) > LZ77Bound(len(data)) {
		t.Fatalf("%d bytes compressed to %d, more than LZ77Bound %d", len(data), len(comp), LZ77Bound(len(data)))
	}
	st := lz77Analyze(t, comp, len(data))
	dst := make([]byte, len(data)+64)
	if n, err := DecompressLZ77(dst, comp); err != nil || n != len(data) || !bytes.Equal(dst[:n], data) {
		t.Fatalf("%d bytes compressed to %d: decompressed into %d bytes: %d, %v, equal %v", len(data), len(comp), len(dst), n, err, bytes.Equal(dst[:n], data))
	}
	if n, err := DecompressLZ77(dst[:len(data)], comp); err != nil || n != len(data) || !bytes.Equal(dst[:n], data) {
		t.Fatalf("%d bytes compressed to %d: decompressed into exactly %d bytes: %d, %v", len(data), len(comp), len(data), n, err)
	}
	if len(data) > 0 {
		checkOverflow(t, Xpress, comp, data)
	}
	return comp, st
}

// lz77Sizes are the input sizes every kind of test data is compressed at.
var lz77Sizes = []int{0, 1, 2, 3, 4, 5, 31, 32, 33, 63, 64, 65, 1000, 8192, 8193, 65535, 65536, 65537, 1 << 20, 16 << 20}

// TestCompressLZ77RoundTrip compresses random, all-zero, repetitive and
// ETW-like data of many sizes, and the shared test inputs, with one
// reused Compressor and with AppendLZ77, and checks that every stream
// decodes exactly. Together they must use every encoding of MS-XCA 2.3.4.
func TestCompressLZ77RoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	kinds := []struct {
		name string
		gen  func(n int) []byte
	}{
		{"random", func(n int) []byte { return randomBytes(rng, n) }},
		{"zeros", func(n int) []byte { return make([]byte, n) }},
		{"period1", func(n int) []byte { return bytes.Repeat([]byte{0xa5}, n) }},
		{"period5", func(n int) []byte { return periodic(rng, n, 5) }},
		{"period300", func(n int) []byte { return periodic(rng, n, 300) }},
		{"period8192", func(n int) []byte { return periodic(rng, n, 8192) }},
		{"period8193", func(n int) []byte { return periodic(rng, n, 8193) }},
		{"alpha4", func(n int) []byte { return smallAlphabet(rng, n, 4) }},
		{"etw", func(n int) []byte { return syntheticETW(rng, n) }},
	}
	var c Compressor
	var total lz77Stats
	add := func(st lz77Stats) {
		total.literals += st.literals
		total.matches += st.matches
		total.short += st.short
		total.nibble += st.nibble
		total.byteLen += st.byteLen
		total.u16 += st.u16
		total.u32 += st.u32
		total.overlapping += st.overlapping
		total.farthest = max(total.farthest, st.farthest)
	}
	for _, k := range kinds {
		for _, n := range lz77Sizes {
			if testing.Short() && n > 1<<20 {
				continue
			}
			data := k.gen(n)
			comp, st := checkCompressLZ77(t, &c, data)
			add(st)
			if n == 1<<20 {
				t.Logf("%s: %d bytes -> %d (%.1f%%)", k.name, n, len(comp), 100*float64(len(comp))/float64(n))
			}
			// A pooled Compressor, and a fresh one, give the same bytes.
			if n <= 1<<20 {
				if got := AppendLZ77(nil, data); !bytes.Equal(got, comp) {
					t.Fatalf("%s/%d: AppendLZ77 differs from Compressor.AppendLZ77", k.name, n)
				}
				if got := new(Compressor).AppendLZ77(nil, data); !bytes.Equal(got, comp) {
					t.Fatalf("%s/%d: a fresh Compressor differs from a reused one", k.name, n)
				}
			}
		}
	}
	for _, in := range testInputs() {
		_, st := checkCompressLZ77(t, &c, in.data)
		add(st)
	}
	t.Logf("coverage: %+v", total)
	if total.short == 0 || total.nibble == 0 || total.byteLen == 0 || total.u16 == 0 || total.u32 == 0 || total.overlapping == 0 || total.literals == 0 || total.farthest != lz77MaxDistance {
		t.Errorf("round-trip inputs missed an encoding: %+v", total)
	}
}

// TestCompressLZ77Spec checks the compressor against the examples of
// MS-XCA section 3.1, which it reproduces byte for byte, and the ends of
// streams: empty input is one flag word of ones, and 32 items are followed
// by a last flag word of ones.
func TestCompressLZ77Spec(t *testing.T) {
	for _, ex := range specExamples(t) {
		if ex.f != Xpress {
			continue
		}
		if got := AppendLZ77(nil, []byte(ex.want)); !bytes.Equal(got, ex.src) {
			t.Errorf("%s: compressed to % x, want % x", ex.name, got, ex.src)
		}
	}
	cases := []struct {
		in, want []byte
	}{
		{nil, []byte{0xff, 0xff, 0xff, 0xff}},
		{[]byte("a"), []byte{0xff, 0xff, 0xff, 0x7f, 'a'}},
		{[]byte("0123456789abcdefghijklmnopqrstuv"), append(append([]byte{0, 0, 0, 0}, "0123456789abcdefghijklmnopqrstuv"...), 0xff, 0xff, 0xff, 0xff)},
		// 31 literals and a match of distance 1, length 4 fill the first word.
		{[]byte("0123456789abcdefghijklmnopqrstuuuuu"), append(append([]byte{1, 0, 0, 0}, "0123456789abcdefghijklmnopqrstu"...), 1, 0, 0xff, 0xff, 0xff, 0xff)},
	}
	for _, c := range cases {
		if got := AppendLZ77(nil, c.in); !bytes.Equal(got, c.want) {
			t.Errorf("%q: compressed to % x, want % x", c.in, got, c.want)
		}
	}
}

// TestCompressLZ77Lengths compresses every match length around the
// boundaries of the length encodings (3-9 in the match word, 10-24 in a
// half byte, 25-279 in a byte, up to 65538 in 16 bits, then 32 bits), as
// one literal and one distance-1 match each.
func TestCompressLZ77Lengths(t *testing.T) {
	var c Compressor
	var lengths []int
	for l := 3; l <= 300; l++ {
		lengths = append(lengths, l)
	}
	lengths = append(lengths, 65536, 65537, 65538, 65539, 65540, 70000)
	for _, l := range lengths {
		data := runsOf(l + 1)
		checkCompressLZ77(t, &c, data)
	}
	// All lengths in one stream, so that half bytes are shared.
	checkCompressLZ77(t, &c, runsOf(lengths...))
}

// TestCompressLZ77StaleTables checks that the hash tables influence only
// the ratio: with garbage in both tables (as after 4 GiB of input, when
// positions modulo 2^32 repeat), the stream still decodes exactly.
func TestCompressLZ77StaleTables(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	data := append(syntheticETW(rng, 100000), periodic(rng, 30000, 77)...)
	for _, fill := range []func() uint32{
		func() uint32 { return rng.Uint32() },
		func() uint32 { return uint32(rng.IntN(len(data))) },
		func() uint32 { return uint32(rng.IntN(10)) },
		func() uint32 { return ^uint32(0) - uint32(rng.IntN(9000)) },
	} {
		var c Compressor
		for i := range c.prev {
			c.prev[i] = fill()
		}
		for i := range c.head {
			c.head[i] = fill()
		}
		bound := LZ77Bound(len(data))
		w := lz77Writer{out: make([]byte, bound), pos: 4, half: -1}
		c.compress(&w, data) // without clearing the tables first
		w.finish()
		comp := w.out[:w.pos]
		lz77Analyze(t, comp, len(data))
		checkDecode(t, Xpress, comp, data)
	}
}

// TestCompressLZ77Allocs checks that a warm Compressor, and AppendLZ77,
// allocate nothing when dst has room.
func TestCompressLZ77Allocs(t *testing.T) {
	data := syntheticETW(rand.New(rand.NewPCG(25, 26)), 256<<10)
	var c Compressor
	dst := make([]byte, 0, LZ77Bound(len(data)))
	if a := testing.AllocsPerRun(20, func() { dst = c.AppendLZ77(dst[:0], data) }); a != 0 {
		t.Errorf("Compressor.AppendLZ77: %v allocations per call, want 0", a)
	}
	if a := testing.AllocsPerRun(20, func() { dst = AppendLZ77(dst[:0], data) }); a != 0 {
		t.Errorf("AppendLZ77: %v allocations per call, want 0", a)
	}
	checkDecode(t, Xpress, dst, data)
}

// TestCompressLZ77Corpus recompresses the contents of every compressed
// buffer of every .etl file under $ETL_CORPUS, checks the round trip and
// compares the size with the one Windows produced for the same buffer
// (BufferSize - 0x48): in total it must be no more than 10% larger. It also
// compresses the uncompressed buffers of the raw kernel logger file
// ShutdownPerfDiagLogger.etl.
func TestCompressLZ77Corpus(t *testing.T) {
	root, files := corpusFiles(t)
	var c Compressor
	var out []byte
	totalWin, totalOurs, totalPlain, nbufs := 0, 0, 0, 0
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, path)
		win, ours, plainSize := 0, 0, 0
		for _, b := range compressedBuffers(t, rel, data) {
			plain := make([]byte, b.size)
			if n, err := DecompressLZ77(plain, b.src); err != nil || n != b.size {
				t.Fatalf("%s: buffer at %#x: %d, %v", rel, b.offset, n, err)
			}
			out = c.AppendLZ77(out[:0], plain)
			checkDecode(t, Xpress, out, plain)
			lz77Analyze(t, out, len(plain))
			win += len(b.src)
			ours += len(out)
			plainSize += b.size
			nbufs++
		}
		if win > 0 {
			t.Logf("%-50s %9d bytes: Windows %8d (%5.1f%%), ours %8d (%5.1f%%), ours/Windows %.3f",
				corpusName(rel), plainSize, win, 100*float64(win)/float64(plainSize), ours, 100*float64(ours)/float64(plainSize), float64(ours)/float64(win))
		}
		totalWin += win
		totalOurs += ours
		totalPlain += plainSize
	}
	if nbufs == 0 {
		t.Fatalf("no compressed buffers under %s", root)
	}
	ratio := float64(totalOurs) / float64(totalWin)
	t.Logf("total: %d buffers, %d bytes: Windows %d (%.1f%%), ours %d (%.1f%%), ours/Windows %.4f",
		nbufs, totalPlain, totalWin, 100*float64(totalWin)/float64(totalPlain), totalOurs, 100*float64(totalOurs)/float64(totalPlain), ratio)
	if ratio > 1.10 {
		t.Errorf("compressed the corpus to %.1f%% of Windows' size, want at most 110%%", 100*ratio)
	}

	// The uncompressed buffers of the kernel logger file: each is
	// BufferSize bytes, of which Offset are used.
	path := filepath.Join(root, "airbus-cert+etl-parser", "tests", "example", "ShutdownPerfDiagLogger.etl")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	plainSize, ours, n := 0, 0, 0
	for off := 0; len(data)-off >= etwBufferHeaderSize; {
		h := data[off:]
		size := int(binary.LittleEndian.Uint32(h[0x00:]))
		used := int(binary.LittleEndian.Uint32(h[0x30:]))
		if size < etwBufferHeaderSize || size > len(data)-off {
			break
		}
		if used < etwBufferHeaderSize || used > size {
			used = size
		}
		plain := h[etwBufferHeaderSize:used]
		out = c.AppendLZ77(out[:0], plain)
		checkDecode(t, Xpress, out, plain)
		plainSize += len(plain)
		ours += len(out)
		n++
		off += size
	}
	if n == 0 {
		t.Fatalf("%s: no buffers", path)
	}
	t.Logf("%s: %d uncompressed buffers, %d bytes compressed to %d (%.1f%%)", filepath.Base(path), n, plainSize, ours, 100*float64(ours)/float64(plainSize))
}

// corpusName shortens a corpus path for the log: the repository and the
// file name.
func corpusName(rel string) string {
	repo, _, _ := strings.Cut(filepath.ToSlash(rel), "/")
	if len(repo) > 20 {
		repo = repo[:20]
	}
	return repo + "/" + filepath.Base(rel)
}

func FuzzCompressLZ77(f *testing.F) {
	rng := rand.New(rand.NewPCG(27, 28))
	f.Add([]byte{}, uint16(0))
	f.Add([]byte("a"), uint16(0))
	f.Add([]byte(abc300), uint16(0))
	f.Add([]byte(lznt1Example), uint16(3))
	f.Add(runsOf(3, 10, 25, 280, 1000), uint16(0))
	f.Add(runsOf(70000), uint16(0))
	f.Add(periodic(rng, 3000, 3), uint16(0))
	f.Add(randomBytes(rng, 600), uint16(20))
	f.Add(syntheticETW(rng, 5000), uint16(2))
	f.Add(randomBytes(rng, 8192), uint16(1))
	f.Fuzz(func(t *testing.T, data []byte, repeat uint16) {
		// Repeating the input makes long and far matches.
		if r := int(repeat % 64); r > 0 && len(data)*(r+1) <= 1<<20 {
			data = bytes.Repeat(data, r+1)
		}
		comp := AppendLZ77(nil, data)
		if len(comp) > LZ77Bound(len(data)) {
			t.Fatalf("%d bytes compressed to %d > LZ77Bound", len(data), len(comp))
		}
		dst := make([]byte, len(data))
		if n, err := DecompressLZ77(dst, comp); err != nil || n != len(data) || !bytes.Equal(dst, data) {
			t.Fatalf("round trip of %d bytes through a %d-byte stream: %d, %v", len(data), len(comp), n, err)
		}
		lz77Analyze(t, comp, len(data))
	})
}

// BenchmarkCompressLZ77 compresses the benchmark buffers (the contents of
// the real compressed buffers of the corpus trace when ETL_CORPUS is set,
// synthetic event data otherwise) with a reused Compressor, and reports
// the size relative to the input and, for the corpus, to Windows' output.
func BenchmarkCompressLZ77(b *testing.B) {
	loadBenchData(b)
	d := &benchData
	var c Compressor
	maxSize, win := 0, 0
	for i, p := range d.plain {
		maxSize = max(maxSize, len(p))
		win += len(d.lz77[i].src)
	}
	dst := make([]byte, 0, LZ77Bound(maxSize))
	ours := 0
	for _, p := range d.plain {
		dst = c.AppendLZ77(dst[:0], p)
		ours += len(dst)
	}
	b.Logf("%s: %d buffers, %d bytes compressed to %d (%.1f%%); the reference streams are %d bytes", d.source, len(d.plain), d.total, ours, 100*float64(ours)/float64(d.total), win)
	runtime.GC()
	b.SetBytes(d.total)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for _, p := range d.plain {
			dst = c.AppendLZ77(dst[:0], p)
		}
	}
	b.ReportMetric(100*float64(ours)/float64(d.total), "%size")
	b.ReportMetric(float64(ours)/float64(win), "ratio-to-ref")
}
