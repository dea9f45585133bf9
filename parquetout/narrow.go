package parquetout

import "github.com/parquet-go/parquet-go"

// narrowType is a UINT(8) or UINT(16) type whose column buffers are sized
// for what they store. parquet-go keeps such values as int32 (four bytes,
// the physical type, and what a page's size counts) but sizes a required
// column's first buffer by the logical width: a page's worth of bytes at
// one or two bytes a value, four or two times the page it can hold (1 MiB
// or 512 KiB per column per row group writer at 256 KiB pages), which
// then waits in the library's pools. Everything else, the schema, the
// encodings and so the file's bytes, is the wrapped type's.
type narrowType struct{ parquet.Type }

// EstimateNumValues is how many values n bytes of column buffer hold.
func (t narrowType) EstimateNumValues(n int) int { return n / 4 }

// narrowUint is parquet.Uint(width) for a width under 32 (8 or 16).
func narrowUint(width int) parquet.Node {
	return parquet.Leaf(narrowType{keptType{Type: parquet.Uint(width).Type()}})
}
