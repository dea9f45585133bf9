package analysis

import (
	"bufio"
	"cmp"
	"io"
	"slices"
	"strconv"
)

// TimeProfile is a [Profile] whose weights keep their time: besides the
// profile's counts per distinct stack, it counts the weight of each
// (time bucket, stack) pair of an axis, which is what a time range
// selects from. Its size is at most the number of distinct stacks times
// the axis's buckets, whatever the number of samples.
type TimeProfile struct {
	// Profile holds the same stacks and weights without their time.
	Profile *Profile
	// Axis is the time dimension.
	Axis   TimeAxis
	counts map[bucketStack]int64
}

type bucketStack struct{ bucket, stack int32 }

// NewTimeProfile returns an empty TimeProfile on axis.
func NewTimeProfile(axis TimeAxis) *TimeProfile {
	return &TimeProfile{Profile: NewProfile(), Axis: axis, counts: map[bucketStack]int64{}}
}

// Add counts the event of a (its process and stack, as [Profile.Add]
// does) with weight w in its time bucket: the first bucket when the axis
// has none.
func (t *TimeProfile) Add(a *Annotation, w int64) {
	s := t.Profile.add(a.Process, a.PID, a.Stack, w)
	b := max(t.Axis.Bucket(a.ft), 0)
	t.counts[bucketStack{int32(b), s.id}] += w
}

// StackTree is a sampled profile as a prefix tree of stacks with the
// samples of each node per time bucket: what a view needs to show the
// profile of any time range (a call tree, a flame graph, callers and
// callees) without the samples themselves. Its JSON form is the
// report's "cpu"."profile".
//
// Node i is the frame Frames[Frame[i]] called by node Parent[i]; the
// roots (Parent -1) are the processes, named "Name (pid)" as the root
// frames of [Profile.WriteFolded]'s lines. Nodes are numbered in
// pre-order, children in the order of their names, so that a node's
// parent comes before it and the nodes with samples, in order, are the
// lines of the folded profile. Frame names are [Frame.Name]'s.
type StackTree struct {
	// BucketSec is the width of a time bucket in seconds; bucket b
	// covers [b·BucketSec, (b+1)·BucketSec) from the start of the axis
	// (the first event). Buckets is the number of buckets.
	BucketSec float64 `json:"bucket_sec"`
	Buckets   int     `json:"buckets"`
	// Total is the sum of the weights.
	Total  int64    `json:"total"`
	Frames []string `json:"frames"`
	Parent []int32  `json:"parent"`
	Frame  []int32  `json:"frame"`
	// Samples are (bucket, node, weight) triples, flat, ordered by
	// bucket then node; the weight is the node's own (exclusive) weight
	// in that bucket, never 0.
	Samples []int64 `json:"samples"`
}

// Tree returns the profile as a [StackTree].
func (t *TimeProfile) Tree() *StackTree {
	p := t.Profile
	tr := &StackTree{Buckets: t.Axis.Buckets, Total: p.Total, Frames: []string{}, Parent: []int32{}, Frame: []int32{}, Samples: []int64{}}
	if t.Axis.Buckets > 0 {
		tr.BucketSec = float64(t.Axis.Width) / 1e7
	}
	frameIdx := make([]int32, len(p.names)) // name id → index in Frames, +1
	nodeOf := make([]int32, len(p.stacks))  // stack id → its node
	var path, prev []int32                  // node and name ids of the previous stack
	var line []int32
	for _, s := range p.sorted() {
		line = append(append(line[:0], s.process), s.frames...)
		// Sorted stacks: a prefix shared with the previous one is the
		// same path.
		common := 0
		for common < len(line) && common < len(prev) && line[common] == prev[common] {
			common++
		}
		path = path[:common]
		for _, id := range line[common:] {
			if frameIdx[id] == 0 {
				tr.Frames = append(tr.Frames, p.names[id])
				frameIdx[id] = int32(len(tr.Frames))
			}
			parent := int32(-1)
			if len(path) > 0 {
				parent = path[len(path)-1]
			}
			path = append(path, int32(len(tr.Parent)))
			tr.Parent = append(tr.Parent, parent)
			tr.Frame = append(tr.Frame, frameIdx[id]-1)
		}
		nodeOf[s.id] = path[len(path)-1]
		prev = append(prev[:0], line...)
	}
	type sample struct {
		bucket, node int32
		w            int64
	}
	samples := make([]sample, 0, len(t.counts))
	for k, w := range t.counts {
		if w != 0 {
			samples = append(samples, sample{k.bucket, nodeOf[k.stack], w})
		}
	}
	// Distinct stacks end at distinct nodes: no two samples compare equal.
	slices.SortFunc(samples, func(a, b sample) int {
		return cmp.Or(cmp.Compare(a.bucket, b.bucket), cmp.Compare(a.node, b.node))
	})
	tr.Samples = slices.Grow(tr.Samples, 3*len(samples))
	for _, s := range samples {
		tr.Samples = append(tr.Samples, int64(s.bucket), int64(s.node), s.w)
	}
	return tr
}

// Len returns the number of nodes.
func (tr *StackTree) Len() int { return len(tr.Parent) }

// Exclusive returns each node's own weight in buckets [from, to).
func (tr *StackTree) Exclusive(from, to int) []int64 {
	out := make([]int64, len(tr.Parent))
	for i := 0; i+2 < len(tr.Samples); i += 3 {
		if b := tr.Samples[i]; b >= int64(from) && b < int64(to) {
			out[tr.Samples[i+1]] += tr.Samples[i+2]
		}
	}
	return out
}

// Inclusive returns each node's weight in buckets [from, to), its own
// and that of the nodes below it.
func (tr *StackTree) Inclusive(from, to int) []int64 {
	out := tr.Exclusive(from, to)
	for i := len(out) - 1; i >= 0; i-- {
		if p := tr.Parent[i]; p >= 0 {
			out[p] += out[i]
		}
	}
	return out
}

// Path returns the frame names from node's process down to node.
func (tr *StackTree) Path(node int) []string {
	var out []string
	for n := int32(node); n >= 0; n = tr.Parent[n] {
		out = append(out, tr.Frames[tr.Frame[n]])
	}
	slices.Reverse(out)
	return out
}

// WriteFolded writes the tree's stacks in the folded format, as
// [Profile.WriteFolded] writes the profile it came from: one line per
// node with weight of its own, in node order.
func (tr *StackTree) WriteFolded(w io.Writer) error {
	bw := bufio.NewWriter(w)
	excl := tr.Exclusive(0, max(tr.Buckets, 1))
	var b []byte
	for n, v := range excl {
		if v == 0 {
			continue
		}
		b = b[:0]
		for i, f := range tr.Path(n) {
			if i > 0 {
				b = append(b, ';')
			}
			b = append(b, f...)
		}
		b = append(b, ' ')
		b = strconv.AppendInt(b, v, 10)
		b = append(b, '\n')
		if _, err := bw.Write(b); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// Coarsen returns the tree with its buckets merged factor by factor
// (bucket b becomes b/factor, BucketSec factor times wider): the same
// stacks and weights with fewer (bucket, node) triples. A factor below 2
// returns tr itself.
func (tr *StackTree) Coarsen(factor int) *StackTree {
	if factor < 2 {
		return tr
	}
	out := *tr
	out.BucketSec = tr.BucketSec * float64(factor)
	out.Buckets = (tr.Buckets + factor - 1) / factor
	out.Samples = make([]int64, 0, len(tr.Samples))
	f := int64(factor)
	// Triples are ordered by bucket then node: merging a run of buckets
	// needs the nodes of the run summed, in node order.
	sum := map[int64]int64{}
	var nodes []int64
	flush := func(b int64) {
		slices.Sort(nodes)
		for _, n := range nodes {
			out.Samples = append(out.Samples, b, n, sum[n])
		}
		clear(sum)
		nodes = nodes[:0]
	}
	cur := int64(-1)
	for i := 0; i+2 < len(tr.Samples); i += 3 {
		b := tr.Samples[i] / f
		if b != cur && cur >= 0 {
			flush(cur)
		}
		cur = b
		n := tr.Samples[i+1]
		if _, ok := sum[n]; !ok {
			nodes = append(nodes, n)
		}
		sum[n] += tr.Samples[i+2]
	}
	if cur >= 0 {
		flush(cur)
	}
	return &out
}

// Triples returns the number of (bucket, node, weight) triples.
func (tr *StackTree) Triples() int { return len(tr.Samples) / 3 }
