package parquetout

// SetColumnWorkers sets how many goroutines write a chunk's columns (tests
// compare files written with one and with several).
func SetColumnWorkers(w *Writer, n int) { w.colWorkers = n }

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
