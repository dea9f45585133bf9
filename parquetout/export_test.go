package parquetout

// SetColumnWorkers sets how many goroutines write a chunk's columns (tests
// compare files written with one and with several).
func SetColumnWorkers(w *Writer, n int) { w.colWorkers = n }
