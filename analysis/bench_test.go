package analysis

import (
	"runtime"
	"testing"

	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
)

// BenchmarkBuildNet builds the model of net.4.5.2.x64.etl (179,474
// events, one pass; allocations are the model's own: processes, images,
// 16,990 methods and their names, 2,921 stack-key definitions).
func BenchmarkBuildNet(b *testing.B) { benchBuild(b, nil) }

// BenchmarkBuildNetAnnotations builds the model the JSON and Parquet
// dumps build (Options.AnnotationsOnly, NoImageIDs) of net.4.5.2.x64.etl.
func BenchmarkBuildNetAnnotations(b *testing.B) {
	benchBuild(b, &Options{AnnotationsOnly: true, NoImageIDs: true})
}

func benchBuild(b *testing.B, opts *Options) {
	files := openCorpus(b, netFile)
	dec := clrDecoder(b)
	b.ReportAllocs()
	var m *Model
	for b.Loop() {
		m, _ = Build(files, dec, opts)
	}
	b.ReportMetric(float64(m.Events)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkEnrichNet is the second pass of the JSON dump and of stacks:
// every event through an Enricher over the finished model, stacks
// resolved.
func BenchmarkEnrichNet(b *testing.B) {
	files := openCorpus(b, netFile)
	dec := clrDecoder(b)
	m, _ := Build(files, dec, nil)
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		n = enrichAll(files, dec, m)
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

func enrichAll(files []*etl.File, dec *decode.Decoder, m *Model) int {
	n := 0
	enrichEach(files, dec, m, nil, func(*Annotation) { n++ })
	return n
}

// TestModelMemory reports the heap a finished model of net.4.5.2 holds.
func TestModelMemory(t *testing.T) {
	files := openCorpus(t, netFile)
	dec := clrDecoder(t)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	m, _ := Build(files, dec, nil)
	runtime.GC()
	runtime.ReadMemStats(&after)
	methods, images := 0, len(m.KernelImages())
	for _, p := range m.Processes() {
		methods += len(p.Methods())
		images += len(p.Images())
	}
	heap := float64(after.HeapAlloc) - float64(before.HeapAlloc)
	t.Logf("model: %d processes, %d images, %d methods, %d stack keys: %.1f MB of heap",
		len(m.Processes()), images, methods, m.StackKeys, heap/1e6)
	if heap > 16e6 {
		t.Errorf("the model holds %.1f MB (4.9 MB when measured for docs/performance.md)", heap/1e6)
	}
	runtime.KeepAlive(m)
}
