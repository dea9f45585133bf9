package analysis

// takeOrGrow returns a value from free if one is there at once, else a
// new one from grow when it makes one (ok), else waits for free: the
// batches of the goroutine handoffs (the .NET methods' queue, the split
// collecting pass) grow in number only as a backlog builds up.
func takeOrGrow[T any](free <-chan T, grow func() (T, bool)) T {
	select {
	case v := <-free:
		return v
	default:
	}
	if v, ok := grow(); ok {
		return v
	}
	return <-free
}
