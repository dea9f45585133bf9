package tables

import (
	"io"
	"testing"

	"github.com/etwkit/etw/analysis"
)

// TestStackCache: the cache finds a stack walked before, through the
// tree's nodes, and not a stack of the same addresses in other images
// (the same hash) nor a shorter or longer one; ids of a second trace
// start where the first trace's ended.
func TestStackCache(t *testing.T) {
	a, b := &analysis.Image{Base: 0x1000}, &analysis.Image{Base: 0x1000}
	for _, first := range []int64{1, 1001} {
		w, err := NewWriter(func(string) (io.WriteCloser, error) { return &memFile{}, nil }, nil)
		if err != nil {
			t.Fatal(err)
		}
		w.stack, w.frame = first-1, 2*first-1
		st := &traceState{w: w, m: &analysis.Model{}, frames: map[frameKey]int64{}, images: map[*analysis.Image]int64{},
			methods: map[*analysis.Method]int64{}, tree: newStackTree(w.stack, w.frame)}
		// walk adds stack s as Add does (its rows go to memory).
		walk := func(s []analysis.Frame) int64 {
			id, err := st.walkStack(s)
			if err != nil {
				t.Fatal(err)
			}
			return id
		}
		var s1, s2 []analysis.Frame
		for i := range nodeBlock + 10 { // across a block of nodes
			s1 = append(s1, analysis.Frame{Address: 0x1100 + uint64(i), Image: a})
			s2 = append(s2, analysis.Frame{Address: 0x1100 + uint64(i), Image: b})
		}
		id1 := walk(s1)
		id1b := walk(s1[1:])
		if id1 < first || id1b < first {
			t.Fatalf("ids %d, %d before the trace's first %d", id1, id1b, first)
		}
		if n := w.Rows()["stacks"]; n != int64(len(s1)) {
			t.Fatalf("%d stack nodes written for a stack of %d frames and its caller's", n, len(s1))
		}
		var c stackCache
		_, h1, ok := c.get(&st.tree, s1)
		if ok {
			t.Fatal("empty cache found a stack")
		}
		c.put(h1, s1, id1)
		_, h1b, _ := c.get(&st.tree, s1[1:])
		c.put(h1b, s1[1:], id1b)
		if id, _, ok := c.get(&st.tree, s1); !ok || id != id1 {
			t.Errorf("stack: %d, %v; want %d", id, ok, id1)
		}
		if id, _, ok := c.get(&st.tree, s1[1:]); !ok || id != id1b {
			t.Errorf("shorter stack: %d, %v; want %d", id, ok, id1b)
		}
		_, h2, ok := c.get(&st.tree, s2)
		if ok || h2 != h1 {
			t.Errorf("same addresses, other image: found %v, hash equal %v; want not found, equal", ok, h2 == h1)
		}
		if _, _, ok := c.get(&st.tree, s1[:5]); ok {
			t.Error("a stack never put was found")
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
