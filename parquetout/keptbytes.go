package parquetout

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding"
)

// keptBytes is the column buffer of a byte array column whose pages keep
// their bounds and whose buffer keeps its room (keepRoom: the events
// table's JSON, message, GUID and payload columns).
// It holds the values and where each starts in slices of its own, which
// keep their room from page to page: the library's buffer gives its bytes
// back to a pool at each page and grows them again from 4 KiB by doubling,
// copying them at each step (the properties column alone is 26 MB of
// values in net.4.5.2's dump), and copies a value in two passes and three
// slices (its offset, its length, its bytes). A page is the library's
// byte array page over the slices (the type's NewPage, as the library's
// buffer's Page is), so its encoding and bounds, and the file, are the
// same; the buffer's Size counts as the library's does (the bytes and 4
// an offset), which decides where pages end.
//
// As dictBuffer does, it declares every method of parquet.ColumnBuffer
// but the type's (TestKeptBytesMethods), and fails on a page when values
// reached the empty library buffer under it, which is there for the type,
// the column and the interface's unexported methods.
type keptBytes struct {
	parquet.ColumnBuffer // the library's, empty
	typ                  parquet.Type
	col                  int
	values               []byte
	starts               []uint32 // where each value starts in values
	page                 keptPage
}

func newKeptBytes(typ parquet.Type, columnIndex, numValues int) *keptBytes {
	return &keptBytes{ColumnBuffer: typ.NewColumnBuffer(columnIndex, 0), typ: typ, col: columnIndex,
		starts: make([]uint32, 0, numValues)}
}

// WriteValues appends values (all present) to the buffer.
func (b *keptBytes) WriteValues(values []parquet.Value) (int, error) {
	for i := range values {
		v := values[i].ByteArray()
		b.starts = append(b.starts, uint32(len(b.values)))
		b.values = append(b.values, v...)
	}
	return len(values), nil
}

// Len is the number of values (and rows) in the buffer, counting any that
// reached the library buffer under it (not expected: its page fails).
func (b *keptBytes) Len() int { return len(b.starts) + b.ColumnBuffer.Len() }

// Cap is the number of values the buffer holds without growing.
func (b *keptBytes) Cap() int { return cap(b.starts) }

// NumValues is the number of values in the buffer.
func (b *keptBytes) NumValues() int64 { return int64(len(b.starts)) }

// Size is the bytes of the buffer's values and 4 a value, as the
// library's byte array buffer counts them.
func (b *keptBytes) Size() int64 { return int64(len(b.values)) + 4*int64(len(b.starts)) }

// keptRoom bounds the room a keptBytes keeps from page to page: a page
// ends at the first chunk that takes its values past the page size, and
// the properties of a chunk of large events (.NET's of 290 KB, 16 in a
// row over 16 inputs) took that column's room to 1.4 MB, kept to the end
// of the run, where its pages hold 0.3-0.9 MB.
const keptRoom = 1 << 20

// Reset empties the buffer and keeps its room, up to keptRoom bytes of
// values.
func (b *keptBytes) Reset() {
	if cap(b.values) > keptRoom {
		b.values = nil
	}
	b.values, b.starts = b.values[:0], b.starts[:0]
	b.ColumnBuffer.Reset()
}

// value is the value at i.
func (b *keptBytes) value(i int) []byte {
	end := len(b.values)
	if i+1 < len(b.starts) {
		end = int(b.starts[i+1])
	}
	return b.values[b.starts[i]:end:end]
}

// Less compares the values at i and j.
func (b *keptBytes) Less(i, j int) bool { return bytes.Compare(b.value(i), b.value(j)) < 0 }

// Swap swaps the values at i and j, moving the bytes between them (the
// values stay in order in one slice, which the page is; the writer never
// sorts).
func (b *keptBytes) Swap(i, j int) {
	if i == j {
		return
	}
	if i > j {
		i, j = j, i
	}
	vi, vj := b.value(i), b.value(j)
	start, end := int(b.starts[i]), int(b.starts[j])+len(vj)
	swapped := make([]byte, 0, end-start)
	swapped = append(append(append(swapped, vj...), b.values[start+len(vi):b.starts[j]]...), vi...)
	copy(b.values[start:end], swapped)
	for k := i + 1; k <= j; k++ {
		b.starts[k] = uint32(int(b.starts[k]) + len(vj) - len(vi))
	}
}

// Clone returns a copy of the buffer.
func (b *keptBytes) Clone() parquet.ColumnBuffer {
	return &keptBytes{ColumnBuffer: b.ColumnBuffer.Clone(), typ: b.typ, col: b.col,
		values: append([]byte(nil), b.values...), starts: append([]uint32(nil), b.starts...)}
}

// ReadValuesAt reads the values from offset on into values.
func (b *keptBytes) ReadValuesAt(values []parquet.Value, offset int64) (n int, err error) {
	if offset < 0 || offset > int64(len(b.starts)) {
		return 0, fmt.Errorf("parquetout: offset %d out of a column of %d values", offset, len(b.starts))
	}
	if offset == int64(len(b.starts)) {
		return 0, io.EOF
	}
	n = min(len(values), len(b.starts)-int(offset))
	for i := range n {
		values[i] = parquet.ByteArrayValue(b.value(int(offset)+i)).Level(0, 0, b.col)
	}
	if n < len(values) {
		err = io.EOF
	}
	return n, err
}

// Page returns the buffer's values as the library's byte array page over
// its slices, its bounds not yet computed.
func (b *keptBytes) Page() parquet.Page {
	if b.ColumnBuffer.Len() != 0 {
		panic("parquetout: parquet-go wrote a byte array column's values past keptBytes.WriteValues")
	}
	n := len(b.starts)
	offsets := append(b.starts, uint32(len(b.values))) // the end, past the values' starts
	b.starts = offsets[:n]
	b.page = keptPage{Page: b.typ.NewPage(b.col, n, encoding.ByteArrayValues(b.values, offsets))}
	return &b.page
}

// Pages returns the buffer's one page.
func (b *keptBytes) Pages() parquet.Pages { return &onePage{page: b.Page()} }

// errKeptBytesIndex is the answer of a keptBytes asked for a column or
// offset index.
var errKeptBytesIndex = errors.New("parquetout: a byte array column's buffer has no column or offset index (the column writer makes them from its pages)")

// ColumnIndex is an error: the library's, of its empty buffer, would
// describe no values.
func (b *keptBytes) ColumnIndex() (parquet.ColumnIndex, error) { return nil, errKeptBytesIndex }

// OffsetIndex is an error: the library's, of its empty buffer, would
// describe no values.
func (b *keptBytes) OffsetIndex() (parquet.OffsetIndex, error) { return nil, errKeptBytesIndex }

// BloomFilter is nil, as the library's byte array buffer's.
func (b *keptBytes) BloomFilter() parquet.BloomFilter { return nil }

// Dictionary is nil: the values are plain.
func (b *keptBytes) Dictionary() parquet.Dictionary { return nil }

// Column is the index of the buffer's column.
func (b *keptBytes) Column() int { return b.col }
