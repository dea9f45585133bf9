// Package inorder puts back in sequence the values that concurrent
// workers finish out of order: the pipeline's rendered batches, the
// Parquet writer's row groups.
package inorder

// Each calls fn with the values received from in in the order of their
// sequence numbers (seq: 0, 1, 2, …), holding those that come early,
// until in is closed.
func Each[T any](in <-chan T, seq func(T) int, fn func(T)) {
	pending := map[int]T{}
	next := 0
	for v := range in {
		pending[seq(v)] = v
		for {
			v, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			next++
			fn(v)
		}
	}
}
