package tables

import (
	"strconv"
	"strings"
)

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

// PartNumber returns n when name is PartName(base, n) for a part n after
// the first (base-2.parquet, base-3.parquet, …, written as PartName
// writes numbers: no sign, no leading zero), and false for any other
// name, base.parquet included.
func PartNumber(base, name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, base+"-")
	if !ok {
		return 0, false
	}
	num, ok := strings.CutSuffix(rest, ".parquet")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(num)
	if err != nil || n < 2 || strconv.Itoa(n) != num {
		return 0, false
	}
	return n, true
}
