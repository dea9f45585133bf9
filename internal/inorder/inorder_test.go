package inorder

import (
	"slices"
	"testing"
)

// TestEach: values sent out of order come out in sequence, each once,
// the early ones held until their turn.
func TestEach(t *testing.T) {
	in := make(chan int, 8)
	for _, v := range []int{2, 0, 3, 1, 5, 4} {
		in <- v
	}
	close(in)
	var got []int
	Each(in, func(v int) int { return v }, func(v int) { got = append(got, v) })
	if want := []int{0, 1, 2, 3, 4, 5}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}
