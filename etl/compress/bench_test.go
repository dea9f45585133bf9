package compress

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

// benchCorpusFile is the real, compressed trace the benchmarks use when
// ETL_CORPUS is set: 359 plain LZ77 buffers of kernel and CLR events.
const benchCorpusFile = "microsoft+perfview/src/TraceEvent/TraceEvent.Tests/inputs/net.4.5.2.x64.etl.zip.unzipped/net.4.5.2.x64.etl"

type benchBuffer struct {
	src  []byte
	size int
}

var benchData struct {
	once   sync.Once
	source string
	plain  [][]byte
	lz77   []benchBuffer
	huff   []benchBuffer
	lznt1  []benchBuffer
	total  int64
}

// loadBenchData prepares the benchmark buffers once: the real compressed
// buffers of benchCorpusFile (and their contents, recompressed with the
// test Huffman and LZNT1 encoders), or else synthetic event data from
// 64 KiB to 1 MiB compressed with the test encoders.
func loadBenchData(b *testing.B) {
	d := &benchData
	d.once.Do(func() {
		if root := os.Getenv("ETL_CORPUS"); root != "" {
			data, err := os.ReadFile(filepath.Join(root, benchCorpusFile))
			if err != nil {
				b.Fatalf("ETL_CORPUS set but: %v", err)
			}
			d.source = "corpus " + filepath.Base(benchCorpusFile)
			for _, buf := range compressedBuffers(b, benchCorpusFile, data) {
				plain := make([]byte, buf.size)
				if n, err := DecompressLZ77(plain, buf.src); err != nil || n != buf.size {
					b.Fatalf("corpus buffer at %#x: %d, %v", buf.offset, n, err)
				}
				d.plain = append(d.plain, plain)
				d.lz77 = append(d.lz77, benchBuffer{buf.src, buf.size})
			}
		} else {
			d.source = "synthetic"
			rng := rand.New(rand.NewPCG(9, 10))
			for _, n := range []int{64 << 10, 128 << 10, 256 << 10, 1 << 20, 64 << 10, 512 << 10} {
				plain := syntheticETW(rng, n)
				src, _ := lz77Compress(plain, lz77Options{})
				d.plain = append(d.plain, plain)
				d.lz77 = append(d.lz77, benchBuffer{src, n})
			}
		}
		for _, plain := range d.plain {
			h, _ := huffCompress(plain, huffOptions{})
			l, _ := lznt1Compress(plain, lznt1Options{})
			d.huff = append(d.huff, benchBuffer{h, len(plain)})
			d.lznt1 = append(d.lznt1, benchBuffer{l, len(plain)})
			d.total += int64(len(plain))
		}
	})
	if d.total == 0 {
		b.Fatal("no benchmark data")
	}
}

func benchDecompress(b *testing.B, bufs func() []benchBuffer, decode func(dst, src []byte) (int, error)) {
	loadBenchData(b)
	list := bufs()
	maxSize, in := 0, 0
	for _, buf := range list {
		maxSize = max(maxSize, buf.size)
		in += len(buf.src)
	}
	dst := make([]byte, maxSize)
	b.Logf("%s: %d buffers, %d bytes compressed to %d (%.1f%%)", benchData.source, len(list), benchData.total, in, 100*float64(in)/float64(benchData.total))
	runtime.GC() // collect the test encoders' garbage before timing
	// Warm up, so that a pooled Huffman decoder exists before timing.
	if _, err := decode(dst[:list[0].size], list[0].src); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(benchData.total)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for _, buf := range list {
			if n, err := decode(dst[:buf.size], buf.src); err != nil || n != buf.size {
				b.Fatalf("%d, %v", n, err)
			}
		}
	}
}

func BenchmarkDecompressLZ77(b *testing.B) {
	benchDecompress(b, func() []benchBuffer { return benchData.lz77 }, DecompressLZ77)
}

func BenchmarkDecompressHuffman(b *testing.B) {
	benchDecompress(b, func() []benchBuffer { return benchData.huff }, DecompressHuffman)
}

func BenchmarkDecompressLZNT1(b *testing.B) {
	benchDecompress(b, func() []benchBuffer { return benchData.lznt1 }, DecompressLZNT1)
}
