package parquetout

import (
	"math/bits"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding"
)

// The dictionary-encoded string columns' pages find their bounds here
// instead of in parquet-go. The library computes a page's min and max
// twice (for the page header's statistics and for the column index),
// each time looking up every value of the page in the dictionary and
// comparing the strings: ~0.45 G instructions of the Parquet dump of
// net.4.5.2 (docs/performance.md). A page of dictionary indexes holds few
// distinct ones: dictPage marks them in a bitmap, compares each distinct
// value once, and keeps the result for the second call. The bounds, and
// so the file's bytes, are the same: the least and greatest value of the
// page, by bytes.
//
// The wrappers only override what they change; everything else (the
// schema, the encodings, the dictionary's contents and page) is the
// wrapped library value's, promoted through the embedded interfaces.

// dictStringType is the string type of a dictionary-encoded column.
type dictStringType struct{ parquet.Type }

// NewDictionary wraps the string type's dictionary.
func (t dictStringType) NewDictionary(columnIndex, numValues int, data encoding.Values) parquet.Dictionary {
	return boundsDict{t.Type.NewDictionary(columnIndex, numValues, data)}
}

// boundsDict is a dictionary whose indexed type makes boundsBuffers.
type boundsDict struct{ parquet.Dictionary }

// Type is the type of the dictionary's column: indexes into it.
func (d boundsDict) Type() parquet.Type {
	return boundsIndexedType{d.Dictionary.Type(), d.Dictionary}
}

// boundsIndexedType is the library's indexed type, whose column buffers
// are wrapped.
type boundsIndexedType struct {
	parquet.Type
	dict parquet.Dictionary
}

// NewColumnBuffer wraps the indexed type's column buffer.
func (t boundsIndexedType) NewColumnBuffer(columnIndex, numValues int) parquet.ColumnBuffer {
	return &boundsBuffer{ColumnBuffer: t.Type.NewColumnBuffer(columnIndex, numValues), dict: t.dict}
}

// boundsBuffer is a column buffer of dictionary indexes whose page
// computes its bounds once, over the distinct indexes.
type boundsBuffer struct {
	parquet.ColumnBuffer
	dict parquet.Dictionary
	page keptPage
	seen []uint64 // bitmap of the dictionary's indexes met in a page
}

// Page returns the buffer's page, its bounds not yet computed.
func (b *boundsBuffer) Page() parquet.Page {
	b.page = keptPage{Page: b.ColumnBuffer.Page(), dict: b}
	return &b.page
}

// keptType is a column type whose pages keep their bounds: parquet-go
// asks a page for them twice, and finds them by looking at every value.
type keptType struct{ parquet.Type }

// keepBounds is node n (a leaf without options) with its pages' bounds
// kept.
func keepBounds(n parquet.Node) parquet.Node { return parquet.Leaf(keptType{n.Type()}) }

// NewColumnBuffer wraps the type's column buffer.
func (t keptType) NewColumnBuffer(columnIndex, numValues int) parquet.ColumnBuffer {
	return &keptBuffer{ColumnBuffer: t.Type.NewColumnBuffer(columnIndex, numValues)}
}

// keptBuffer is a column buffer whose page keeps its bounds.
type keptBuffer struct {
	parquet.ColumnBuffer
	page keptPage
}

// Page returns the buffer's page, its bounds not yet computed.
func (b *keptBuffer) Page() parquet.Page {
	b.page = keptPage{Page: b.ColumnBuffer.Page()}
	return &b.page
}

// keptPage is a page that computes its bounds once (for the values it
// holds then); over the distinct indexes of a dictionary page.
type keptPage struct {
	parquet.Page
	dict     *boundsBuffer // set for a page of dictionary indexes
	done, ok bool
	min, max parquet.Value
	n        int64 // the values when the bounds were computed
}

// Bounds returns the least and greatest value of the page, as the
// wrapped page does (for a page of indexes: the dictionary's values, their
// column index set to the page's).
func (p *keptPage) Bounds() (min, max parquet.Value, ok bool) {
	if n := p.Page.NumValues(); !p.done || p.n != n {
		p.done, p.n = true, n
		if p.dict == nil {
			p.min, p.max, p.ok = p.Page.Bounds()
		} else if data := p.Page.Data(); len(data.Int32()) == 0 {
			p.min, p.max, p.ok = parquet.Value{}, parquet.Value{}, false
		} else {
			p.min, p.max = p.dict.bounds(data.Int32())
			col := p.Page.Column()
			p.min, p.max, p.ok = p.min.Level(0, 0, col), p.max.Level(0, 0, col), true
		}
	}
	return p.min, p.max, p.ok
}

// bounds returns the least and greatest of the dictionary's values at idx
// (not empty), comparing each distinct one once.
func (b *boundsBuffer) bounds(idx []int32) (min, max parquet.Value) {
	words := (b.dict.Len() + 63) / 64
	if cap(b.seen) < words {
		b.seen = make([]uint64, words)
	}
	seen := b.seen[:words]
	clear(seen)
	for _, i := range idx {
		seen[uint32(i)/64] |= 1 << (uint32(i) % 64)
	}
	first := true
	var lo, hi []byte
	for w, m := range seen {
		for m != 0 {
			i := int32(w*64 + bits.TrailingZeros64(m))
			m &= m - 1
			v := b.dict.Index(i)
			s := v.ByteArray()
			switch {
			case first:
				min, max, lo, hi, first = v, v, s, s, false
			case string(s) < string(lo):
				min, lo = v, s
			case string(s) > string(hi):
				max, hi = v, s
			}
		}
	}
	return min, max
}
