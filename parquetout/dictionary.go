package parquetout

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"math/bits"
	"math/rand/v2"
	"slices"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding"
)

// The dictionary-encoded string columns keep their indexes here instead
// of in parquet-go's indexed column buffer, for two of the library's
// costs (docs/performance.md, "Parquet dump CPU against parquet-go"):
//
//   - Inserting a value: the library looks every value up in a Go map of
//     the dictionary's strings, through a call per column writer call. A
//     dictCache in front of the dictionary finds a value that is the same
//     as the previous one with one comparison, others in an open-addressing
//     table of its own; a new value is inserted into the library's
//     dictionary, which gives it its index, as before.
//   - A page's bounds: the library computes a page's min and max twice (for
//     the page header's statistics and for the column index), each time
//     looking up every value of the page in the dictionary and comparing
//     the strings. A page of indexes holds few distinct ones: dictPage marks
//     them in a bitmap, compares each distinct value once, and keeps the
//     result for the second call.
//
// The dictionary (its values, their order, its page), the indexes, the
// pages' encoding, and so the file's bytes are the same. The wrappers
// override what they change; everything else is the wrapped library
// value's, promoted through the embedded interfaces. The buffer takes its
// values through WriteValues, the only way ColumnWriter.WriteRowValues
// and the library's optional and repeated column buffers give a leaf
// column its values; the embedded library buffer, left empty, is there
// for the page's type and the interface's unexported methods.
//
// What a later parquet-go could do differently fails instead of writing
// another file: values given to the empty library buffer (dictBuffer.Page
// panics), a page of indexes encoded other than as indexes (the fallback
// to PLAIN: dictPageType.Encode), a method added to Page (dictPage
// declares them all: the build stops) or to ColumnBuffer
// (TestDictBufferMethods).

// dictStringType is the string type of a dictionary-encoded column.
type dictStringType struct{ parquet.Type }

// NewDictionary wraps the string type's dictionary.
func (t dictStringType) NewDictionary(columnIndex, numValues int, data encoding.Values) parquet.Dictionary {
	return &cachedDict{Dictionary: t.Type.NewDictionary(columnIndex, numValues, data), cache: dictCache{last: -1}}
}

// cachedDict is a dictionary with a cache of its values' indexes, whose
// indexed type makes dictBuffers.
type cachedDict struct {
	parquet.Dictionary
	cache dictCache
}

// Type is the type of the dictionary's column: indexes into it.
func (d *cachedDict) Type() parquet.Type {
	return dictIndexType{d.Dictionary.Type(), d}
}

// Reset empties the dictionary and its cache (the column writer does, for
// each row group).
func (d *cachedDict) Reset() {
	d.Dictionary.Reset()
	d.cache.reset()
}

// dictIndexType is the library's indexed type, whose column buffers are
// dictBuffers.
type dictIndexType struct {
	parquet.Type
	dict *cachedDict
}

// NewColumnBuffer returns a dictBuffer for the column.
func (t dictIndexType) NewColumnBuffer(columnIndex, numValues int) parquet.ColumnBuffer {
	return &dictBuffer{ColumnBuffer: t.Type.NewColumnBuffer(columnIndex, 0), dict: t.dict, idx: make([]int32, 0, numValues)}
}

// dictBuffer is a column buffer of indexes into a dictionary.
type dictBuffer struct {
	parquet.ColumnBuffer // the library's, empty
	dict                 *cachedDict
	idx                  []int32
	page                 dictPage
	seen                 []uint64     // bitmap of the dictionary's indexes met in a page
	pageType             parquet.Type // its pages' type (dictPageType), made once
	one                  [1]int32     // scratch for inserting a value
}

// WriteValues appends the indexes of values (all present) to the buffer.
func (b *dictBuffer) WriteValues(values []parquet.Value) (int, error) {
	d := b.dict
	c := &d.cache
	if len(c.keys) != d.Dictionary.Len() {
		// Not the values inserted through the cache (not expected): start
		// the cache again, from the dictionary's values.
		c.rebuild(d.Dictionary)
	}
	n := len(b.idx)
	idx := slices.Grow(b.idx, len(values))[:n+len(values)]
	out := idx[n:]
	// The last value found, in locals: most values are the one before,
	// compared by length and two words of it before any call
	// (dictKey.equal).
	last, lastKey := c.last, dictKey{}
	if last >= 0 {
		lastKey = c.keys[last]
	}
	for i := range values {
		v := values[i].ByteArray()
		if last >= 0 && len(v) == len(lastKey.s) {
			if w0, w1 := strWords(v); lastKey.equal(v, w0, w1) {
				out[i] = last
				continue
			}
		}
		k, ok := c.find(v)
		if !ok {
			d.Dictionary.Insert(b.one[:], values[i:i+1])
			k = b.one[0]
			c.add(v, k)
		}
		// add may start the cache again (not expected): then there is
		// no last value.
		if last = c.last; last >= 0 {
			lastKey = c.keys[last]
		}
		out[i] = k
	}
	b.idx = idx
	return len(values), nil
}

// Len is the number of values (and rows) in the buffer. It counts any
// that reached the library's buffer under it too (not expected): the
// column writer then asks for the page, which fails, where a buffer
// that looked empty would never be written.
func (b *dictBuffer) Len() int { return len(b.idx) + b.ColumnBuffer.Len() }

// Cap is the number of values the buffer holds without growing.
func (b *dictBuffer) Cap() int { return cap(b.idx) }

// NumValues is the number of values in the buffer.
func (b *dictBuffer) NumValues() int64 { return int64(len(b.idx)) }

// Size is the bytes of the buffer's values, as the library counts them
// (4 an index), which decides when a page is written.
func (b *dictBuffer) Size() int64 { return 4 * int64(len(b.idx)) }

// Reset empties the buffer (not the dictionary).
func (b *dictBuffer) Reset() { b.idx = b.idx[:0] }

// Less compares the values at i and j.
func (b *dictBuffer) Less(i, j int) bool {
	return bytes.Compare(b.dict.Index(b.idx[i]).ByteArray(), b.dict.Index(b.idx[j]).ByteArray()) < 0
}

// Swap swaps the values at i and j.
func (b *dictBuffer) Swap(i, j int) { b.idx[i], b.idx[j] = b.idx[j], b.idx[i] }

// Clone returns a copy of the buffer, on the same dictionary.
func (b *dictBuffer) Clone() parquet.ColumnBuffer {
	return &dictBuffer{ColumnBuffer: b.ColumnBuffer.Clone(), dict: b.dict, idx: append([]int32(nil), b.idx...)}
}

// ReadValuesAt reads the values from offset on into values.
func (b *dictBuffer) ReadValuesAt(values []parquet.Value, offset int64) (int, error) {
	return readIndexed(b.dict, b.idx, b.Column(), values, offset)
}

// Page returns the buffer's values as a page, its bounds not yet
// computed.
func (b *dictBuffer) Page() parquet.Page {
	if b.ColumnBuffer.Len() != 0 {
		// A version of parquet-go that gives a leaf column its values
		// through its unexported methods: they went to the library's
		// buffer, not to the page. An error (table.encode), not a file
		// short of them.
		panic("parquetout: parquet-go wrote a dictionary column's values past dictBuffer.WriteValues")
	}
	lib := b.ColumnBuffer.Page()
	if b.pageType == nil {
		b.pageType = dictPageType{lib.Type()}
	}
	b.page = dictPage{lib: lib, buf: b, idx: b.idx}
	return &b.page
}

// errNoBufferIndex is the answer of a dictBuffer asked for a column or
// offset index.
var errNoBufferIndex = errors.New("parquetout: a dictionary column's buffer has no column or offset index (the column writer makes them from its pages)")

// ColumnIndex is an error: the library's, of its empty buffer, would
// describe no values.
func (b *dictBuffer) ColumnIndex() (parquet.ColumnIndex, error) { return nil, errNoBufferIndex }

// OffsetIndex is an error: the library's, of its empty buffer, would
// describe no values.
func (b *dictBuffer) OffsetIndex() (parquet.OffsetIndex, error) { return nil, errNoBufferIndex }

// Pages returns the buffer's one page.
func (b *dictBuffer) Pages() parquet.Pages { return &onePage{page: b.Page()} }

// readIndexed reads the dictionary's values at idx from offset on into
// values, for column col.
func readIndexed(dict parquet.Dictionary, idx []int32, col int, values []parquet.Value, offset int64) (n int, err error) {
	if offset < 0 || offset > int64(len(idx)) {
		return 0, fmt.Errorf("parquetout: offset %d out of a column of %d values", offset, len(idx))
	}
	rest := idx[offset:]
	if len(rest) == 0 {
		return 0, io.EOF
	}
	n = min(len(values), len(rest))
	for i := range n {
		values[i] = dict.Index(rest[i]).Level(0, 0, col)
	}
	if n < len(values) {
		err = io.EOF
	}
	return n, err
}

// onePage is the Pages of one page.
type onePage struct {
	page parquet.Page
	done bool
}

// ReadPage returns the page, then io.EOF.
func (p *onePage) ReadPage() (parquet.Page, error) {
	if p.done {
		return nil, io.EOF
	}
	p.done = true
	return p.page, nil
}

// SeekToRow is not supported.
func (p *onePage) SeekToRow(int64) error {
	return errors.New("parquetout: a column buffer's pages cannot seek")
}

// Close ends the reading.
func (p *onePage) Close() error { return nil }

// dictPage is a page of indexes into a dictionary, which computes its
// bounds once. It declares every method of parquet.Page (it does not
// embed the interface): a method a later parquet-go adds to Page stops
// the build instead of being answered by the empty library page.
type dictPage struct {
	lib      parquet.Page // the library's empty indexed page: its type, column and dictionary
	buf      *dictBuffer
	idx      []int32
	done, ok bool
	min, max parquet.Value
}

// Column is the index of the page's column.
func (p *dictPage) Column() int { return p.lib.Column() }

// Dictionary is the dictionary the page's indexes are into.
func (p *dictPage) Dictionary() parquet.Dictionary { return p.lib.Dictionary() }

// RepetitionLevels is nil: the levels are those of the page wrapping it.
func (p *dictPage) RepetitionLevels() []byte { return nil }

// DefinitionLevels is nil: the levels are those of the page wrapping it.
func (p *dictPage) DefinitionLevels() []byte { return nil }

// NumValues is the number of values in the page.
func (p *dictPage) NumValues() int64 { return int64(len(p.idx)) }

// NumRows is the number of rows in the page (one value each).
func (p *dictPage) NumRows() int64 { return int64(len(p.idx)) }

// NumNulls is 0: a page of indexes holds present values.
func (p *dictPage) NumNulls() int64 { return 0 }

// Size is the bytes of the page's indexes.
func (p *dictPage) Size() int64 { return 4 * int64(len(p.idx)) }

// Data is the page's indexes, which the indexed page type encodes.
func (p *dictPage) Data() encoding.Values { return encoding.Int32Values(p.idx) }

// Values reads the page's values.
func (p *dictPage) Values() parquet.ValueReader { return &dictPageValues{p: p} }

// Type is the library's indexed page type, whose Encode refuses any
// encoding but the dictionary's: parquet-go gives a column up to PLAIN
// when its dictionary outgrows DictionaryMaxBytes (1 GiB for strings
// unless set), by unwrapping its own indexed type, which dictIndexType is
// not; the column would then go on making dictBuffers, and their pages
// would write their indexes as PLAIN values (a file that does not read).
func (p *dictPage) Type() parquet.Type { return p.buf.pageType }

// dictPageType is the type of a dictPage.
type dictPageType struct{ parquet.Type }

// Encode encodes the page's indexes with enc, which must be the
// dictionary encoding.
func (t dictPageType) Encode(dst []byte, src encoding.Values, enc encoding.Encoding) ([]byte, error) {
	if enc.Encoding() != parquet.RLEDictionary.Encoding() {
		return dst, fmt.Errorf("parquetout: parquet-go encodes a dictionary column's page as %v, not as indexes into its dictionary", enc)
	}
	return t.Type.Encode(dst, src, enc)
}

// Slice returns the page of values i to j.
func (p *dictPage) Slice(i, j int64) parquet.Page {
	return &dictPage{lib: p.lib, buf: p.buf, idx: p.idx[i:j]}
}

// Bounds returns the least and greatest value of the page, as the
// library's indexed page does (the values' column index set to the
// page's).
func (p *dictPage) Bounds() (min, max parquet.Value, ok bool) {
	if !p.done && len(p.idx) > 0 {
		p.min, p.max = p.buf.bounds(p.idx)
		col := p.lib.Column()
		p.min, p.max, p.ok = p.min.Level(0, 0, col), p.max.Level(0, 0, col), true
	}
	p.done = true
	return p.min, p.max, p.ok
}

// dictPageValues reads a dictPage's values.
type dictPageValues struct {
	p   *dictPage
	off int64
}

// ReadValues reads the next values of the page.
func (r *dictPageValues) ReadValues(values []parquet.Value) (int, error) {
	n, err := readIndexed(r.p.buf.dict, r.p.idx, r.p.lib.Column(), values, r.off)
	r.off += int64(n)
	return n, err
}

// dictCache finds the index of a dictionary's values: the last one found,
// then an open-addressing table of the values' hashes.
type dictCache struct {
	keys  []dictKey // the values, at their dictionary index
	slots []int32   // value index + 1, 0: empty; a power of two long
	last  int32     // the value found last (-1: none)
	seed  maphash.Seed
	k0    uint64 // the short values' hash keys (shortHash)
	k1    uint64
}

// dictKey is a cached value and two words of it (strWords).
type dictKey struct {
	s      string
	w0, w1 uint64
}

// equal reports whether v, whose strWords are w0 and w1, is the key:
// the words and the length decide a value of up to 16 bytes, and most
// longer ones that differ; the bytes between the words decide the rest.
func (k *dictKey) equal(v []byte, w0, w1 uint64) bool {
	if len(v) != len(k.s) || w0 != k.w0 || w1 != k.w1 {
		return false
	}
	return len(v) <= 16 || string(v[8:len(v)-8]) == k.s[8:len(k.s)-8]
}

// strWords returns two words of v that, with its length, are all of v
// when it is at most 16 bytes long: its first and last eight bytes
// (which overlap under 16), its first and last four under 8, its first,
// middle and last under 4.
func strWords(v []byte) (w0, w1 uint64) {
	switch n := len(v); {
	case n >= 8:
		return binary.LittleEndian.Uint64(v), binary.LittleEndian.Uint64(v[n-8:])
	case n >= 4:
		return uint64(binary.LittleEndian.Uint32(v)), uint64(binary.LittleEndian.Uint32(v[n-4:]))
	case n > 0:
		return uint64(v[0]) | uint64(v[n/2])<<8 | uint64(v[n-1])<<16, 0
	}
	return 0, 0
}

// hash returns the hash of v, whose strWords are w0 and w1: of the words
// for a value they are all of (shortHash), maphash's for a longer one, so
// that values alike at both ends spread over the table as well.
func (c *dictCache) hash(v []byte, w0, w1 uint64) uint64 {
	if len(v) > 16 {
		return maphash.Bytes(c.seed, v)
	}
	return shortHash(w0, w1, len(v), c.k0, c.k1)
}

// shortHash mixes the words and length of a value of up to 16 bytes
// with the random keys k0 and k1 (a multiply of the keyed words, folded,
// as wyhash does): values cannot be chosen to collide without the keys.
func shortHash(w0, w1 uint64, n int, k0, k1 uint64) uint64 {
	hi, lo := bits.Mul64(w0^k0, w1^k1^uint64(n)<<59)
	return hi ^ lo
}

func (c *dictCache) reset() {
	clear(c.keys)
	c.keys, c.last = c.keys[:0], -1
	clear(c.slots)
}

// find returns the index of v, if cached, and makes it the last found.
func (c *dictCache) find(v []byte) (int32, bool) {
	if len(c.keys) == 0 {
		return 0, false
	}
	w0, w1 := strWords(v)
	mask := uint64(len(c.slots) - 1)
	for h := c.hash(v, w0, w1) & mask; ; h = (h + 1) & mask {
		s := c.slots[h]
		if s == 0 {
			return 0, false
		}
		if c.keys[s-1].equal(v, w0, w1) {
			c.last = s - 1
			return s - 1, true
		}
	}
}

// add caches v at index k, which the dictionary gave it (its next index,
// otherwise the cache starts again), and makes it the last found.
func (c *dictCache) add(v []byte, k int32) {
	if int(k) != len(c.keys) {
		c.reset()
		return
	}
	if c.seed == (maphash.Seed{}) {
		c.seed = maphash.MakeSeed()
		c.k0, c.k1 = rand.Uint64(), rand.Uint64()
	}
	if 2*(len(c.keys)+1) > len(c.slots) {
		c.grow()
	}
	w0, w1 := strWords(v)
	c.keys = append(c.keys, dictKey{string(v), w0, w1})
	c.insert(k)
	c.last = k
}

// insert puts value k in its slot.
func (c *dictCache) insert(k int32) {
	key := &c.keys[k]
	mask := uint64(len(c.slots) - 1)
	var h uint64
	if len(key.s) > 16 {
		h = maphash.String(c.seed, key.s)
	} else {
		h = shortHash(key.w0, key.w1, len(key.s), c.k0, c.k1)
	}
	h &= mask
	for c.slots[h] != 0 {
		h = (h + 1) & mask
	}
	c.slots[h] = k + 1
}

// grow doubles the table (at least 64 slots) and puts the values back.
func (c *dictCache) grow() {
	c.slots = make([]int32, max(64, 2*len(c.slots)))
	for k := range int32(len(c.keys)) {
		c.insert(k)
	}
}

// rebuild makes the cache hold dict's values.
func (c *dictCache) rebuild(dict parquet.Dictionary) {
	c.reset()
	for k := range int32(dict.Len()) {
		c.add(dict.Index(k).ByteArray(), k)
	}
}

// bounds returns the least and greatest of the dictionary's values at idx
// (not empty), comparing each distinct one once.
func (b *dictBuffer) bounds(idx []int32) (min, max parquet.Value) {
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

// keptType is a column type whose pages keep their bounds: parquet-go
// asks a page for them twice, and finds them by looking at every value.
// With room, a byte array column's buffer is a keptBytes, which keeps its
// room from page to page (keepRoom).
type keptType struct {
	parquet.Type
	room bool
}

// keepBounds is node n (a leaf without options) with its pages' bounds
// kept. It panics for a node with options, which the new leaf would lose.
func keepBounds(n parquet.Node) parquet.Node {
	if !n.Leaf() || n.Optional() || n.Repeated() || n.Encoding() != nil || n.Compression() != nil {
		panic(fmt.Sprintf("parquetout: keepBounds(%v) would lose the node's options", n))
	}
	return parquet.Leaf(keptType{Type: n.Type()})
}

// keepRoom is keepBounds(n) whose buffer, for a byte array column, keeps
// its room from page to page (keptBytes): for the events table's columns,
// one buffer each per row group writer. The split dump's tables are
// many, and keep the library's buffers, whose bytes go back to its pool
// after each page.
func keepRoom(n parquet.Node) parquet.Node {
	kept := keepBounds(n)
	return parquet.Leaf(keptType{Type: kept.Type().(keptType).Type, room: true})
}

// NewColumnBuffer wraps the type's column buffer; a byte array column's
// with room is a keptBytes.
func (t keptType) NewColumnBuffer(columnIndex, numValues int) parquet.ColumnBuffer {
	if t.room && t.Type.Kind() == parquet.ByteArray {
		return newKeptBytes(t.Type, columnIndex, numValues)
	}
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
// holds then).
type keptPage struct {
	parquet.Page
	done, ok bool
	min, max parquet.Value
	n        int64 // the values when the bounds were computed
}

// Bounds returns the least and greatest value of the page, as the
// wrapped page does.
func (p *keptPage) Bounds() (min, max parquet.Value, ok bool) {
	if n := p.Page.NumValues(); !p.done || p.n != n {
		p.done, p.n = true, n
		p.min, p.max, p.ok = pageBounds(p.Page)
	}
	return p.min, p.max, p.ok
}
