package analysis

import (
	"testing"

	"github.com/etwkit/etw/decode"
)

// BenchmarkStackResolverNet resolves the 23,384 stacks of net.4.5.2's
// events (3,114 distinct) in the events' order, as one worker of the
// dumps does (whole stacks found again in its memo, the others frame by
// frame), with a new StackResolver each round:
//
//	ETL_CORPUS=… go test ./analysis -run '^$' -bench StackResolverNet -benchmem
func BenchmarkStackResolverNet(b *testing.B) {
	files := openCorpus(b, netFile)
	m, err := Build(files, nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	type stack struct {
		a     Annotation
		addrs []uint64
	}
	var stacks []stack
	enrichEach(files, decode.New(), m, nil, func(a *Annotation) {
		if len(a.Stack) == 0 {
			return
		}
		s := stack{*a, make([]uint64, len(a.Stack))}
		for i := range a.Stack {
			s.addrs[i] = a.Stack[i].Address
		}
		s.a.Stack = nil
		stacks = append(stacks, s)
	})
	var frames []Frame
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		var sr StackResolver
		for i := range stacks {
			frames = sr.Resolve(&stacks[i].a, stacks[i].addrs, frames[:0])
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(stacks)), "ns/stack")
}
