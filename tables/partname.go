package tables

import (
	"io"
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

// NumberParts returns a create for [NewWriter] that numbers the files of
// each table: it calls create with the table's name and the number of the
// file (from 1: the number for [PartName]), in the order the writer asks
// for them.
func NumberParts(create func(table string, part int) (io.WriteCloser, error)) func(table string) (io.WriteCloser, error) {
	parts := map[string]int{}
	return func(table string) (io.WriteCloser, error) {
		parts[table]++
		return create(table, parts[table])
	}
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
