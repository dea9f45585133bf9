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
		w.bulk = bulkColumns()
	} else {
		w.bulk = [nMainColumns]bool{}
	}
}

// SetOwnFile sets whether NewWriter's files are written by ownWriter
// (where their options allow) or by parquet-go (tests compare the two);
// it returns the previous setting.
func SetOwnFile(on bool) bool {
	was := ownFile
	ownFile = on
	return was
}

// UsesOwnFile tells whether w's file is written by ownWriter.
func UsesOwnFile(w *Writer) bool { return w.t.own != nil }
