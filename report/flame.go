package report

import (
	"cmp"
	"slices"

	"github.com/etwkit/etw/analysis"
)

// flameTree builds the flame-graph tree of prof's stacks (in the order
// of its folded lines): the root ("all") has the processes as children.
// It returns the root and the number of nodes below it.
func flameTree(prof *analysis.Profile) (*FlameNode, int) {
	root := &FlameNode{Name: "all"}
	var path []*FlameNode // path[i]: the node of frame i of the previous stack
	var prev []string
	nodes := 0
	prof.EachStack(func(frames []string, n int64) {
		if n <= 0 {
			return
		}
		// Stacks are sorted: a prefix shared with the previous stack is
		// the same path, and a path left is never met again.
		common := 0
		for common < len(frames) && common < len(prev) && frames[common] == prev[common] {
			common++
		}
		path = path[:common]
		root.Value += n
		for i, f := range frames {
			if i >= common {
				parent := root
				if i > 0 {
					parent = path[i-1]
				}
				node := &FlameNode{Name: f}
				parent.Children = append(parent.Children, node)
				path = append(path, node)
				nodes++
			}
			path[i].Value += n
		}
		prev = append(prev[:0], frames...)
	})
	// Processes by samples, most first; frames stay in name order.
	slices.SortStableFunc(root.Children, func(a, b *FlameNode) int { return cmp.Compare(b.Value, a.Value) })
	return root, nodes
}

// prune drops the frames below each process that hold less than frac of
// the process's samples (their samples stay counted in their parent) and
// returns the number of nodes kept below the root. Processes are all
// kept.
func prune(root *FlameNode, frac float64) int {
	kept := 0
	var walk func(n *FlameNode, min float64)
	walk = func(n *FlameNode, min float64) {
		out := n.Children[:0]
		for _, ch := range n.Children {
			if float64(ch.Value) >= min {
				out = append(out, ch)
				kept++
				walk(ch, min)
			}
		}
		clear(n.Children[len(out):])
		n.Children = out
		if len(n.Children) == 0 {
			n.Children = nil
		}
	}
	for _, p := range root.Children {
		kept++
		walk(p, frac*float64(p.Value))
	}
	return kept
}
