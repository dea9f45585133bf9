package tables

import "strconv"

// PartName returns the file name of part n (from 1) of a table written in
// parts (Options.MaxFileRows): base.parquet for the first, then
// base-2.parquet, base-3.parquet, … [CreateDir] names a table's files so
// with base the table's name.
func PartName(base string, n int) string {
	if n > 1 {
		return base + "-" + strconv.Itoa(n) + ".parquet"
	}
	return base + ".parquet"
}
