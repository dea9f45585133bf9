package parquetout

import (
	"encoding/binary"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/parquet-go/parquet-go"
)

// The events table's required integer columns (the time, the FILETIME and
// raw timestamp, file, processor, process and thread ids, flags, event id,
// version, channel, level, opcode, task and keywords: 15 of its 45 header
// columns) go to their column buffers in bulk. parquet-go's ColumnWriter
// takes a column's values as []parquet.Value only, and hands a required
// column's slice, untouched, to the column's buffer (its type's
// NewColumnBuffer: no wrapper adds levels, there are none). Making a
// 24-byte Value of each field, which the library's buffer then gathers
// back into its slice of integers, was ~25 instructions a value; the
// chunk's fixed parts are instead handed over whole, in one Value (a byte
// array, which an integer column never takes otherwise), and the column's
// bulkBuffer reads its field of every row from them into the library
// buffer's little-endian values (its Write). The library's buffer keeps
// the values, so its length, size (which decides where pages end), page,
// encoding and bounds, and the file, are the same; values written as
// Values (the split dump's sync tables) go to it as before.

// bulkColumns returns the header columns taken in bulk (bulkType's),
// found at the first Parquet dump, not at every program's start.
var bulkColumns = sync.OnceValue(func() (bulk [nMainColumns]bool) {
	for i, f := range mainFields()[:nMainColumns] {
		_, bulk[i] = f.node.Type().(bulkType)
	}
	return bulk
})

// bulkType is the type of a required integer header column: the wrapped
// type's (keepBounds or narrowUint), whose column buffers take the
// chunk's fixed parts in bulk (bulkBuffer) for header column col.
type bulkType struct {
	parquet.Type
	col int
}

// bulkCol is node n (keepBounds or narrowUint of an integer type) for
// required header column col, taking its values in bulk.
func bulkCol(n parquet.Node, col int) parquet.Node {
	spec := &headerCols[col]
	wide := n.Leaf() && n.Type().Kind() == parquet.Int64
	narrow := n.Leaf() && n.Type().Kind() == parquet.Int32
	// The fields appendFields reads: an 8-byte one into an INT64 column,
	// one of 1, 2 or 4 bytes into an INT32 one, or "time".
	fits := spec.kind == colTime && wide ||
		(spec.kind == colInt || spec.kind == colUint) && (wide && spec.size == 8 && spec.width == 64 ||
			narrow && spec.width < 64 && (spec.size == 1 || spec.size == 2 || spec.size == 4))
	if !n.Leaf() || n.Optional() || n.Repeated() || spec.optional || !fits {
		panic(fmt.Sprintf("parquetout: bulkCol(%v, %d): not a required integer header column", n, col))
	}
	return parquet.Leaf(bulkType{Type: n.Type(), col: col})
}

// NewColumnBuffer wraps the type's column buffer in a bulkBuffer.
func (t bulkType) NewColumnBuffer(columnIndex, numValues int) parquet.ColumnBuffer {
	return &bulkBuffer{ColumnBuffer: t.Type.NewColumnBuffer(columnIndex, numValues), spec: &headerCols[t.col]}
}

// bulkBuffer is the column buffer of a bulkType column: the wrapped
// type's, which takes a chunk's fixed parts in bulk too.
type bulkBuffer struct {
	parquet.ColumnBuffer
	spec    *colSpec
	scratch []byte // the chunk's values, little-endian (chunkRows at most: 8 KiB)
}

// bulkValues is the one Value that hands rowSet s's fixed parts to a
// bulkBuffer (values, its scratch of one).
func (s *rowSet) bulkValues() []parquet.Value {
	s.one[0] = parquet.ByteArrayValue(s.fixed[:s.n*rowStride])
	return s.one[:]
}

// WriteValues appends values to the buffer: the fields of the rows
// whose fixed parts are the one byte array value of a bulk write, or
// the values themselves.
func (b *bulkBuffer) WriteValues(values []parquet.Value) (int, error) {
	if len(values) != 1 || values[0].Kind() != parquet.ByteArray {
		return b.ColumnBuffer.WriteValues(values)
	}
	fixed := values[0].ByteArray()
	if len(fixed)%rowStride != 0 {
		return 0, fmt.Errorf("parquetout: a bulk write of %d bytes, not whole rows", len(fixed))
	}
	w, ok := libraryBuffer(b.ColumnBuffer).(io.Writer)
	if !ok {
		return 0, fmt.Errorf("parquetout: column buffer %T takes no values in bulk", b.ColumnBuffer)
	}
	b.scratch = appendFields(b.scratch[:0], fixed, b.spec, b.Type().Kind() == parquet.Int64)
	if _, err := w.Write(b.scratch); err != nil {
		return 0, err
	}
	return len(fixed) / rowStride, nil
}

// libraryBuffer is the library's buffer under ours (keepBounds').
func libraryBuffer(b parquet.ColumnBuffer) parquet.ColumnBuffer {
	if k, ok := b.(*keptBuffer); ok {
		return k.ColumnBuffer
	}
	return b
}

// appendFields appends to dst the values of header column spec of the
// rows whose fixed parts (rowStride bytes each) are fixed, little-endian:
// eight bytes each when wide (INT64: "time" or an 8-byte field), else four
// (INT32: a field of 1, 2 or 4 bytes, zero-extended).
func appendFields(dst, fixed []byte, spec *colSpec, wide bool) []byte {
	n := len(fixed) / rowStride
	size := 4
	if wide {
		size = 8
	}
	start := len(dst)
	dst = slices.Grow(dst, n*size)[:start+n*size]
	out := dst[start:]
	// Row i's field is at f[i*rowStride:], its value at out[i*size:]
	// (bulkCol checked the field's size against the column's).
	f := fixed[spec.off:]
	switch {
	case spec.kind == colTime:
		f = fixed[offTime:]
		for i, j := 0, 0; i < len(out); i, j = i+8, j+rowStride {
			ft := int64(binary.LittleEndian.Uint64(f[j : j+8]))
			binary.LittleEndian.PutUint64(out[i:i+8], uint64(unixMicros(ft)))
		}
	case wide:
		for i, j := 0, 0; i < len(out); i, j = i+8, j+rowStride {
			binary.LittleEndian.PutUint64(out[i:i+8], binary.LittleEndian.Uint64(f[j:j+8]))
		}
	case spec.size == 4:
		for i, j := 0, 0; i < len(out); i, j = i+4, j+rowStride {
			binary.LittleEndian.PutUint32(out[i:i+4], binary.LittleEndian.Uint32(f[j:j+4]))
		}
	case spec.size == 2:
		for i, j := 0, 0; i < len(out); i, j = i+4, j+rowStride {
			binary.LittleEndian.PutUint32(out[i:i+4], uint32(binary.LittleEndian.Uint16(f[j:j+2])))
		}
	default:
		for i, j := 0, 0; i < len(out); i, j = i+4, j+rowStride {
			binary.LittleEndian.PutUint32(out[i:i+4], uint32(f[j]))
		}
	}
	return dst
}
