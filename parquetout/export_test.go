package parquetout

// SetColumnWorkers sets how many goroutines write a chunk's columns (tests
// compare files written with one and with several).
func SetColumnWorkers(w *Writer, n int) { w.colWorkers = n }

// SetColumnFault makes f run before each column of a chunk is written;
// an error it returns, or a panic, is that column's. nil removes it.
func SetColumnFault(f func(col int) error) { columnFault = f }

// SetBulk sets whether the Writer hands the required integer header
// columns to their buffers in bulk (tests compare the files written with
// and without).
func SetBulk(w *Writer, on bool) {
	if on {
		w.bulk = bulkColumns
	} else {
		w.bulk = [nMainColumns]bool{}
	}
}
