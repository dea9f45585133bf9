package parquetout

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"math/bits"
	"slices"
	"sync"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/encoding"
	"github.com/parquet-go/parquet-go/encoding/rle"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// The events file of NewWriter is written by an encoder of our own, not
// by parquet-go's ColumnWriter: the same values go in, the same bytes
// come out (docs/performance.md, "The Parquet dump's events file written
// by an encoder of our own"). parquet-go's column writers wrap each
// optional and repeated column's buffer in one that takes values one at
// a time, count level histograms value by value and keep their state for
// any of the library's options; ownColumn does what the library does for
// this table's options only: data pages v2 with statistics and CRCs,
// dictionary pages, column and offset indexes, size statistics, the
// footer of a file without encryption, bloom filters, sorting or
// key-value metadata on columns. The column buffers are the types' own
// (the library's, or ours: bulkBuffer, dictBuffer, keptBytes), as the
// library makes them, and the pieces that give the bytes are the
// library's exported ones: its encodings, its column indexers, its
// format structs and thrift encoder. The schema elements, column orders,
// creator and key-value metadata of the footer are taken from a file
// that parquet-go writes empty with the same options.

// ownWriter is a Parquet file written by ownColumns.
type ownWriter struct {
	out    io.Writer
	offset int64
	err    error

	leaves   []ownLeaf
	pool     parquet.BufferPool // where pages wait for their row group's commit (nil: in memory)
	codec    compress.Codec
	pageSize int64 // a column buffer's size that ends a page

	// From the footer of the file parquet-go writes empty.
	schema    []format.SchemaElement
	orders    []format.ColumnOrder
	createdBy string
	kv        []format.KeyValue

	rowGroups []format.RowGroup
	colIndex  [][]format.ColumnIndex
	offIndex  [][]format.OffsetIndex

	hdr  bytes.Buffer
	tenc *thrift.Encoder
}

// ownLeaf is a leaf column of the schema.
type ownLeaf struct {
	node       parquet.Node
	path       []string
	col        int
	maxDef     byte
	maxRep     byte
	bounds     bool // the column index carries the pages' bounds
	dictionary bool
	encoding   encoding.Encoding
}

// errOwnDictionary is the error of a row group whose dictionary outgrows
// 1 GiB, where parquet-go would go on with plain pages: not reachable
// with the row groups of the tables that take ownWriter (ownWriterFits).
var errOwnDictionary = errors.New("parquetout: dictionary larger than 1 GiB")

// ownWriterFits tells whether a table with options o may take ownWriter.
func ownWriterFits(o *Options) bool {
	return int64(o.bytes()) < 1<<28
}

// newOwnWriter starts a file on out of schema with the writer options
// opts (those newTable gives parquet-go), whose pages bound with
// pageSize bytes of column buffer and skip the bounds of the columns in
// skipBounds, and wait in pool's buffers (in memory if nil). It is nil
// for a schema whose columns take an encoding it does not write.
func newOwnWriter(out io.Writer, schema *parquet.Schema, opts []parquet.WriterOption, codec compress.Codec, pageSize int, skipBounds map[string]struct{}, pool parquet.BufferPool) (*ownWriter, error) {
	var empty bytes.Buffer
	if err := parquet.NewGenericWriter[any](&empty, opts...).Close(); err != nil {
		return nil, err
	}
	b := empty.Bytes()
	if len(b) < 12 {
		return nil, errors.New("parquetout: empty file too short")
	}
	n := int(binary.LittleEndian.Uint32(b[len(b)-8:]))
	if n > len(b)-12 {
		return nil, errors.New("parquetout: empty file's footer too long")
	}
	var md format.FileMetaData
	if err := thrift.Unmarshal(new(thrift.CompactProtocol), b[len(b)-8-n:len(b)-8], &md); err != nil {
		return nil, err
	}
	w := &ownWriter{out: out, pool: pool, codec: codec, pageSize: int64(int32(float64(pageSize) * 0.98)),
		schema: md.Schema, orders: md.ColumnOrders, createdBy: md.CreatedBy, kv: md.KeyValueMetadata}
	w.tenc = thrift.NewEncoder(new(thrift.CompactProtocol).NewWriter(&w.hdr))
	for _, path := range schema.Columns() {
		leaf, ok := schema.Lookup(path...)
		if !ok {
			return nil, fmt.Errorf("parquetout: no column %v", path)
		}
		l := ownLeaf{node: leaf.Node, path: path, col: leaf.ColumnIndex,
			maxDef: byte(leaf.MaxDefinitionLevel), maxRep: byte(leaf.MaxRepetitionLevel)}
		_, skip := skipBounds[path[0]]
		l.bounds = !(skip && len(path) == 1)
		// The encoding as parquet-go's encodingOf picks it.
		enc := leaf.Node.Encoding()
		kind := leaf.Node.Type().Kind()
		switch {
		case enc == nil && kind == parquet.ByteArray:
			enc = &parquet.DeltaLengthByteArray
		case enc == nil:
			enc = &parquet.Plain
		}
		switch enc.Encoding() {
		case format.RLEDictionary:
			l.dictionary = true
		case format.Plain, format.DeltaLengthByteArray:
		default:
			return nil, nil // an encoding the events table does not use: parquet-go's file
		}
		l.encoding = enc
		w.leaves = append(w.leaves, l)
	}
	return w, nil
}

func (w *ownWriter) write(b []byte) {
	if w.err != nil {
		return
	}
	_, w.err = w.Write(b)
}

// Write writes b to the file.
func (w *ownWriter) Write(b []byte) (int, error) {
	n, err := w.out.Write(b)
	w.offset += int64(n)
	return n, err
}

func (w *ownWriter) writeMagic() {
	if w.offset == 0 {
		w.write([]byte("PAR1"))
	}
}

// encode appends the thrift encoding of v to w.hdr, emptied first.
func (w *ownWriter) encode(v any) ([]byte, error) {
	w.hdr.Reset()
	if err := w.tenc.Encode(v); err != nil {
		return nil, err
	}
	return w.hdr.Bytes(), nil
}

// writeIndex writes a column or offset index; it returns where and its
// length.
func (w *ownWriter) writeIndex(index any) (offset int64, length int32, err error) {
	offset = w.offset
	b, err := w.encode(index)
	if err != nil {
		return 0, 0, err
	}
	w.write(b)
	return offset, int32(w.offset - offset), nil
}

// writeIndexes writes index[i][j], the index of row group i's column j,
// for every row group and column, and tells set where each went in its
// column chunk.
func writeIndexes[T any](w *ownWriter, index [][]T, set func(c *format.ColumnChunk, off int64, n int32)) error {
	for i := range index {
		for j := range index[i] {
			off, n, err := w.writeIndex(&index[i][j])
			if err != nil {
				return err
			}
			set(&w.rowGroups[i].Columns[j], off, n)
		}
	}
	return nil
}

// Close writes the column and offset indexes and the footer.
func (w *ownWriter) Close() error {
	w.writeMagic()
	// The column indexes of every row group, then the offset indexes.
	if err := writeIndexes(w, w.colIndex, func(c *format.ColumnChunk, off int64, n int32) {
		c.ColumnIndexOffset, c.ColumnIndexLength = off, n
	}); err != nil {
		return err
	}
	if err := writeIndexes(w, w.offIndex, func(c *format.ColumnChunk, off int64, n int32) {
		c.OffsetIndexOffset, c.OffsetIndexLength = off, n
	}); err != nil {
		return err
	}
	var rows int64
	for _, rg := range w.rowGroups {
		rows += rg.NumRows
	}
	md := format.FileMetaData{Version: 2, Schema: w.schema, NumRows: rows, RowGroups: w.rowGroups,
		KeyValueMetadata: w.kv, CreatedBy: w.createdBy, ColumnOrders: w.orders}
	b, err := w.encode(&md)
	if err != nil {
		return err
	}
	w.write(b)
	w.write(binary.LittleEndian.AppendUint32(nil, uint32(len(b))))
	w.write([]byte("PAR1"))
	return w.err
}

// beginRowGroup returns a writer of a row group's columns.
func (w *ownWriter) beginRowGroup() *ownRowGroup {
	rg := &ownRowGroup{w: w}
	for i := range w.leaves {
		c := newOwnColumn(&w.leaves[i], w.codec, w.pageSize)
		c.pool = w.pool
		rg.cols = append(rg.cols, c)
	}
	return rg
}

// ownRowGroup is the writers of a row group's columns.
type ownRowGroup struct {
	w    *ownWriter
	cols []*ownColumn
}

// Flush writes the columns' last pages, on up to flushWorkers()
// goroutines (eachColumn): each column writes its own pages, so they are
// the same whatever the goroutines. At the end of each row group this was
// the encoder's alone: the dump's last ~10 ms ran on one processor.
func (rg *ownRowGroup) Flush() error {
	return eachColumn(len(rg.cols), flushWorkers(), func(_, i int) error { return rg.cols[i].flush() })
}

// flushWorkers is how many goroutines Flush writes a row group's last
// pages on (tests set it).
var flushWorkers = columnWorkers

// Commit writes the row group's pages to the file, on one goroutine at a
// time, in the order of the row groups, and empties it for the next.
func (rg *ownRowGroup) Commit() (int64, error) {
	if err := rg.Flush(); err != nil {
		return 0, err
	}
	w := rg.w
	rows := rg.cols[0].numRows + int64(rg.cols[0].bufRows())
	if rows == 0 {
		return 0, nil
	}
	if len(w.rowGroups) == parquet.MaxRowGroups {
		return 0, parquet.ErrTooManyRowGroups
	}
	defer rg.reset()
	w.writeMagic()
	group := format.RowGroup{NumRows: rows, SortingColumns: []format.SortingColumn{}, FileOffset: w.offset, Ordinal: int16(len(w.rowGroups))}
	colIndex := make([]format.ColumnIndex, len(rg.cols))
	offIndex := make([]format.OffsetIndex, len(rg.cols))
	for i, c := range rg.cols {
		ci := c.indexer.ColumnIndex()
		ci.RepetitionLevelHistogram = append(ci.RepetitionLevelHistogram[:0], c.pageRepHist...)
		ci.DefinitionLevelHistogram = append(ci.DefinitionLevelHistogram[:0], c.pageDefHist...)
		colIndex[i] = cloneColumnIndex(ci)
		c.meta.SizeStatistics = format.SizeStatistics{UnencodedByteArrayDataBytes: c.unencoded,
			RepetitionLevelHistogram: slices.Clone(c.repHist), DefinitionLevelHistogram: slices.Clone(c.defHist)}
		if c.dict != nil {
			c.meta.DictionaryPageOffset = w.offset
			if err := c.writeDictionaryPage(w); err != nil {
				return 0, err
			}
		}
		if c.pagesLen > 0 {
			c.meta.DataPageOffset = w.offset
			for j := range c.locs {
				c.locs[j].Offset += w.offset
			}
			if err := c.copyPages(w); err != nil {
				return 0, err
			}
		}
		offIndex[i] = format.OffsetIndex{PageLocations: slices.Clone(c.locs)}
		sortPageEncodingStats(c.meta.EncodingStats)
		group.TotalByteSize += c.meta.TotalUncompressedSize
		group.TotalCompressedSize += c.meta.TotalCompressedSize
		group.Columns = append(group.Columns, format.ColumnChunk{MetaData: c.meta})
	}
	if w.err != nil {
		return 0, w.err
	}
	w.rowGroups = append(w.rowGroups, group)
	w.colIndex = append(w.colIndex, colIndex)
	w.offIndex = append(w.offIndex, offIndex)
	return rows, nil
}

// cloneColumnIndex copies what ci refers to in its indexer's buffers.
func cloneColumnIndex(ci format.ColumnIndex) format.ColumnIndex {
	ci.NullPages = slices.Clone(ci.NullPages)
	ci.MinValues = cloneAll(ci.MinValues)
	ci.MaxValues = cloneAll(ci.MaxValues)
	ci.NullCounts = slices.Clone(ci.NullCounts)
	ci.RepetitionLevelHistogram = slices.Clone(ci.RepetitionLevelHistogram)
	ci.DefinitionLevelHistogram = slices.Clone(ci.DefinitionLevelHistogram)
	return ci
}

func cloneAll(v [][]byte) [][]byte {
	if v == nil {
		return nil
	}
	c := make([][]byte, len(v))
	for i, b := range v {
		c[i] = slices.Clone(b)
	}
	return c
}

func sortPageEncodingStats(stats []format.PageEncodingStats) {
	slices.SortFunc(stats, func(s1, s2 format.PageEncodingStats) int {
		if k := cmp.Compare(s1.PageType, s2.PageType); k != 0 {
			return k
		}
		return cmp.Compare(s1.Encoding, s2.Encoding)
	})
}

func (rg *ownRowGroup) reset() {
	for _, c := range rg.cols {
		c.reset()
	}
}

// ownColumn writes a column chunk: it takes a chunk's values as
// parquet-go's ColumnWriter.WriteRowValues does, and ends a page where
// the library's does (when its buffer's size, as the library's
// optional and repeated buffers count it, reaches the page size).
type ownColumn struct {
	leaf     *ownLeaf
	typ      parquet.Type // of the values: the dictionary's indexed type for a dictionary column
	dict     parquet.Dictionary
	codec    compress.Codec
	pageSize int64
	base     parquet.ColumnBuffer

	// The page being filled: its levels (optional and repeated columns),
	// its rows.
	defs, reps []byte
	rows       int

	// The chunk: its pages (in pages, or in pageBuffer from pool), their
	// locations and statistics.
	pool        parquet.BufferPool
	pageBuffer  io.ReadWriteSeeker
	pages       []byte
	pagesLen    int64
	locs        []format.PageLocation
	meta        format.ColumnMetaData
	indexer     parquet.ColumnIndexer
	numRows     int64
	unencoded   int64
	defHist     []int64
	repHist     []int64
	pageDefHist []int64
	pageRepHist []int64

	hdr    bytes.Buffer
	tenc   *thrift.Encoder
	header format.PageHeader
}

func newOwnColumn(l *ownLeaf, codec compress.Codec, pageSize int64) *ownColumn {
	c := &ownColumn{leaf: l, codec: codec, pageSize: pageSize, typ: l.node.Type()}
	if l.dictionary {
		values := c.typ.NewValues(make([]byte, 0, 8192), nil)
		c.dict = c.typ.NewDictionary(l.col, 0, values)
		c.typ = c.dict.Type()
	}
	if l.maxDef > 0 || l.maxRep > 0 {
		c.base = c.typ.NewColumnBuffer(l.col, 0)
	} else {
		c.base = c.typ.NewColumnBuffer(l.col, c.typ.EstimateNumValues(int(pageSize)))
	}
	c.indexer = c.typ.NewColumnIndexer(parquet.DefaultColumnIndexSizeLimit)
	if l.maxRep > 0 {
		c.repHist = make([]int64, int(l.maxRep)+1)
	}
	var encs []format.Encoding
	if l.maxDef > 0 {
		c.defHist = make([]int64, int(l.maxDef)+1)
		encs = append(encs, format.RLE)
	}
	if c.dict != nil && !slices.Contains(encs, format.Plain) {
		encs = append(encs, format.Plain)
	}
	if e := l.encoding.Encoding(); !slices.Contains(encs, e) {
		encs = append(encs, e)
	}
	slices.Sort(encs)
	c.meta = format.ColumnMetaData{Type: format.Type(c.typ.Kind()), Encoding: encs, PathInSchema: l.path, Codec: codec.CompressionCodec()}
	c.tenc = thrift.NewEncoder(new(thrift.CompactProtocol).NewWriter(&c.hdr))
	c.header.Type = format.DataPageV2
	c.header.DataPageHeaderV2.Valid = true
	return c
}

// bufRows is the rows of the page being filled.
func (c *ownColumn) bufRows() int {
	if c.leaf.maxDef == 0 && c.leaf.maxRep == 0 {
		return c.base.Len()
	}
	return c.rows
}

// size is the size of the page being filled, as the library counts it.
func (c *ownColumn) size() int64 {
	switch {
	case c.leaf.maxRep > 0:
		return int64(8*c.rows+len(c.reps)+len(c.defs)) + c.base.Size()
	case c.leaf.maxDef > 0:
		return int64(4*len(c.defs)+len(c.defs)) + c.base.Size()
	}
	return c.base.Size()
}

// WriteRowValues writes whole rows' values, with their levels, and ends
// the page when full.
func (c *ownColumn) WriteRowValues(values []parquet.Value) (int, error) {
	if c.leaf.maxDef == 0 && c.leaf.maxRep == 0 {
		if _, err := c.base.WriteValues(values); err != nil {
			return 0, err
		}
	} else if err := c.writeLevels(values); err != nil {
		return 0, err
	}
	if c.size() >= c.pageSize {
		return len(values), c.flush()
	}
	return len(values), nil
}

// writeRowLevels is WriteRowValues for values whose levels the caller
// made with them: defs[i] is values[i]'s definition level, reps[i] its
// repetition level (nil in a column that is not repeated). They are not
// read back from the values, which copies each whole 24-byte Value
// (writeLevels); the present values go to the buffer a run at a time, as
// there. A required column has no levels: its values go as
// WriteRowValues writes them. Levels that do not fit the column (their
// number, or repetition levels for a column that is not repeated or none
// for one that is) are not taken: the values' own are.
func (c *ownColumn) writeRowLevels(values []parquet.Value, defs, reps []byte) error {
	repeated := c.leaf.maxRep > 0
	if c.leaf.maxDef == 0 && !repeated || len(defs) != len(values) || repeated != (reps != nil) || repeated && len(reps) != len(values) {
		_, err := c.WriteRowValues(values)
		return err
	}
	c.defs = append(c.defs, defs...)
	if repeated {
		c.reps = append(c.reps, reps...)
	}
	if err := c.writePresent(values, defs, reps); err != nil {
		return err
	}
	if c.size() >= c.pageSize {
		return c.flush()
	}
	return nil
}

// writePresent writes the present values of values, whose levels (defs
// and reps, nil in a column that is not repeated) are already the last of
// the page's, to the buffer a run at a time, and counts the rows.
func (c *ownColumn) writePresent(values []parquet.Value, defs, reps []byte) error {
	maxDef := c.leaf.maxDef
	for n := 0; n < len(defs); {
		// A run of nulls (or empty lists), then one of present values.
		i := bytes.IndexByte(defs[n:], maxDef)
		if i < 0 {
			break
		}
		i += n
		n = i + indexNot(defs[i:], maxDef)
		if _, err := c.base.WriteValues(values[i:n]); err != nil {
			return err
		}
	}
	if reps != nil {
		c.rows += bytes.Count(reps, rowStart)
	} else {
		c.rows = len(c.defs)
	}
	return nil
}

// indexNot returns the index of the first byte of b that is not c, or
// len(b): eight bytes at a time (a page's levels come in long runs).
func indexNot(b []byte, c byte) int {
	rep := uint64(c) * 0x0101010101010101
	i := 0
	for ; i+8 <= len(b); i += 8 {
		if x := binary.LittleEndian.Uint64(b[i:]) ^ rep; x != 0 {
			return i + bits.TrailingZeros64(x)/8
		}
	}
	for i < len(b) && b[i] == c {
		i++
	}
	return i
}

// rowStart is the repetition level of a row's first value.
var rowStart = []byte{0}

// writeNulls writes n rows null in a top-level optional column, as
// WriteRowValues writes n null values.
func (c *ownColumn) writeNulls(n int) error {
	if c.leaf.maxRep > 0 || c.leaf.maxDef != 1 {
		return fmt.Errorf("parquetout: nulls written to column %v", c.leaf.path)
	}
	k := len(c.defs)
	c.defs = slices.Grow(c.defs, n)[:k+n]
	clear(c.defs[k:])
	c.rows = len(c.defs)
	if c.size() >= c.pageSize {
		return c.flush()
	}
	return nil
}

// writeLevels writes the values of an optional or repeated column: their
// levels to the page's, the present ones to the buffer, each run of
// them at once. The library's optional buffer gives the buffer runs of
// present values too, its repeated buffer a row's present values at a
// time: the buffers keep the values they are given in order, whatever
// the calls, so the pages are the same.
func (c *ownColumn) writeLevels(values []parquet.Value) error {
	var defs, reps []byte
	c.defs, defs = growValues(c.defs, len(values))
	for i := range values {
		defs[i] = byte(values[i].DefinitionLevel())
	}
	if c.leaf.maxRep > 0 {
		c.reps, reps = growValues(c.reps, len(values))
		for i := range values {
			reps[i] = byte(values[i].RepetitionLevel())
		}
	}
	return c.writePresent(values, defs, reps)
}

// flush writes the page being filled, if any.
func (c *ownColumn) flush() error {
	if c.bufRows() == 0 && len(c.defs) == 0 {
		return nil
	}
	if c.dict != nil && c.dict.Size() > 1<<30 {
		return errOwnDictionary
	}
	err := c.writeDataPage()
	c.base.Reset()
	c.defs, c.reps, c.rows = c.defs[:0], c.reps[:0], 0
	return err
}

func (c *ownColumn) writeDataPage() error {
	l := c.leaf
	page := c.base.Page()
	numValues := page.NumValues()
	numRows := page.NumRows()
	var numNulls int64
	var defCounts, repCounts [256]int64 // the page's levels, counted once for its nulls and histograms
	if l.maxDef > 0 || l.maxRep > 0 {
		defCounts, repCounts = levelCounts(c.defs, l.maxDef), levelCounts(c.reps, l.maxRep)
		numValues = int64(len(c.defs))
		numNulls = numValues - defCounts[l.maxDef]
		if l.maxRep > 0 {
			numRows = int64(c.rows)
		} else {
			numRows = numValues
		}
	}
	if numValues == 0 {
		return nil
	}
	// The page's encoding goes through scratch shared by the columns, as
	// the library's does (one per page being encoded, not per column).
	sc := ownScratchPool.Get().(*ownScratch)
	defer ownScratchPool.Put(sc)
	var err error
	sc.lvlRep, sc.lvlDef = sc.lvlRep[:0], sc.lvlDef[:0]
	if l.maxRep > 0 {
		e := rle.Encoding{BitWidth: bits.Len8(l.maxRep)}
		if sc.lvlRep, err = e.EncodeLevels(sc.lvlRep, c.reps); err != nil {
			return err
		}
	}
	if l.maxDef > 0 {
		e := rle.Encoding{BitWidth: bits.Len8(l.maxDef)}
		if sc.lvlDef, err = e.EncodeLevels(sc.lvlDef, c.defs); err != nil {
			return err
		}
	}
	data := page.Data()
	if sc.page, err = page.Type().Encode(sc.page[:0], data, l.encoding); err != nil {
		return fmt.Errorf("encoding parquet data page: %w", err)
	}
	uncompressed := len(sc.lvlRep) + len(sc.lvlDef) + len(sc.page)
	if uncompressed > math.MaxInt32 {
		return fmt.Errorf("page size limit exceeded: %d>%d", uncompressed, math.MaxInt32)
	}
	body := sc.page
	compressed := isCompressed(c.codec)
	if compressed {
		if sc.comp, err = c.codec.Encode(sc.comp[:0], sc.page); err != nil {
			return fmt.Errorf("compressing parquet data page: %w", err)
		}
		body = sc.comp
	}
	minValue, maxValue, hasBounds := page.Bounds()
	minBytes, maxBytes := minValue.Bytes(), maxValue.Bytes()
	crc := crc32.Update(0, crc32.IEEETable, sc.lvlRep)
	crc = crc32.Update(crc, crc32.IEEETable, sc.lvlDef)
	crc = crc32.Update(crc, crc32.IEEETable, body)
	h := &c.header
	h.UncompressedPageSize = int32(uncompressed)
	h.CompressedPageSize = int32(len(sc.lvlRep) + len(sc.lvlDef) + len(body))
	h.CRC = int32(crc)
	h.DataPageHeaderV2.V = format.DataPageHeaderV2{
		NumValues: int32(numValues), NumNulls: int32(numNulls), NumRows: int32(numRows),
		Encoding:                   l.encoding.Encoding(),
		DefinitionLevelsByteLength: int32(len(sc.lvlDef)), RepetitionLevelsByteLength: int32(len(sc.lvlRep)),
		IsCompressed: thrift.New(compressed),
		Statistics:   format.Statistics{Min: minBytes, Max: maxBytes, NullCount: numNulls, MinValue: minBytes, MaxValue: maxBytes},
	}
	c.hdr.Reset()
	if err := c.tenc.Encode(h); err != nil {
		return err
	}
	headerSize := int32(c.hdr.Len())
	at := c.pagesLen
	if err := c.writePage(c.hdr.Bytes(), sc.lvlRep, sc.lvlDef, body); err != nil {
		return err
	}

	// As ColumnWriter.recordPageStats.
	if !l.bounds {
		minValue, maxValue, hasBounds = parquet.Value{}, parquet.Value{}, false
	}
	c.indexer.IndexPage(numValues, numNulls, minValue, maxValue)
	c.meta.NumValues += numValues
	st := &c.meta.Statistics
	st.NullCount += numNulls
	if hasBounds {
		var oldMax, oldMin parquet.Value
		if st.MaxValue != nil && st.MinValue != nil {
			oldMax, oldMin = c.typ.Kind().Value(st.MaxValue), c.typ.Kind().Value(st.MinValue)
		}
		if oldMax.IsNull() || c.typ.Compare(maxValue, oldMax) > 0 {
			setBound(&st.MaxValue, maxValue)
		}
		if oldMin.IsNull() || c.typ.Compare(minValue, oldMin) < 0 {
			setBound(&st.MinValue, minValue)
		}
	}
	c.locs = append(c.locs, format.PageLocation{Offset: at, CompressedPageSize: headerSize + h.CompressedPageSize, FirstRowIndex: c.numRows})
	c.numRows += numRows
	if data.Kind() == encoding.ByteArray {
		c.unencoded += data.Size()
	}
	if l.maxRep > 0 {
		c.pageRepHist = appendLevelHistogram(c.pageRepHist, c.repHist, &repCounts, l.maxRep)
	}
	if l.maxDef > 0 {
		c.pageDefHist = appendLevelHistogram(c.pageDefHist, c.defHist, &defCounts, l.maxDef)
	}
	c.meta.TotalUncompressedSize += int64(headerSize) + int64(h.UncompressedPageSize)
	c.meta.TotalCompressedSize += int64(headerSize) + int64(h.CompressedPageSize)
	c.meta.EncodingStats = addPageEncodingStats(c.meta.EncodingStats, format.DataPageV2, l.encoding.Encoding())
	return nil
}

// ownScratch is where a page is encoded: its levels, its values, them
// compressed.
type ownScratch struct{ lvlRep, lvlDef, page, comp []byte }

var ownScratchPool = sync.Pool{New: func() any { return new(ownScratch) }}

// levelCounts counts the levels 0 to top of levels (the only ones a
// page's nulls and histograms read; others are left 0). A few levels are
// counted a level at a time with bytes.Count, whose vector loop is an
// order of magnitude faster than a histogram's byte-at-a-time stores.
func levelCounts(levels []byte, top byte) (counts [256]int64) {
	if top >= 16 {
		for _, v := range levels {
			counts[v]++
		}
		clear(counts[int(top)+1:])
		return counts
	}
	for v := range int(top) + 1 {
		counts[v] = int64(bytes.Count(levels, []byte{byte(v)}))
	}
	return counts
}

// appendLevelHistogram appends a page's histogram of levels (counts of
// levels 0 to max) to pages and adds it to total.
func appendLevelHistogram(pages, total []int64, counts *[256]int64, max byte) []int64 {
	for i := range int(max) + 1 {
		total[i] += counts[i]
	}
	return append(pages, counts[:int(max)+1]...)
}

// setBound keeps v's bytes in *b, as the library keeps a chunk's bound: an
// empty byte array is an empty slice, not nil.
func setBound(b *[]byte, v parquet.Value) {
	buf := (*b)[:0]
	if buf == nil && v.Kind() == parquet.ByteArray && len(v.ByteArray()) == 0 {
		buf = make([]byte, 0)
	}
	*b = v.AppendBytes(buf)
}

func addPageEncodingStats(stats []format.PageEncodingStats, typ format.PageType, enc format.Encoding) []format.PageEncodingStats {
	for i := range stats {
		if stats[i].PageType == typ && stats[i].Encoding == enc {
			stats[i].Count++
			return stats
		}
	}
	return append(stats, format.PageEncodingStats{PageType: typ, Encoding: enc, Count: 1})
}

func isCompressed(c compress.Codec) bool {
	return c != nil && c.CompressionCodec() != format.Uncompressed
}

// writeDictionaryPage writes the row group's dictionary page to w.
func (c *ownColumn) writeDictionaryPage(w *ownWriter) error {
	page := c.dict.Page()
	sc := ownScratchPool.Get().(*ownScratch)
	defer ownScratchPool.Put(sc)
	var err error
	if sc.page, err = page.Type().Encode(sc.page[:0], page.Data(), &parquet.Plain); err != nil {
		return fmt.Errorf("writing parquet dictionary page: %w", err)
	}
	body := sc.page
	if isCompressed(c.codec) {
		if sc.comp, err = c.codec.Encode(sc.comp[:0], sc.page); err != nil {
			return fmt.Errorf("compressing parquet dictionary page: %w", err)
		}
		body = sc.comp
	}
	h := format.PageHeader{Type: format.DictionaryPage, UncompressedPageSize: int32(len(sc.page)), CompressedPageSize: int32(len(body)),
		CRC: int32(crc32.ChecksumIEEE(body))}
	h.DictionaryPageHeader = thrift.New(format.DictionaryPageHeader{NumValues: int32(c.dict.Len()), Encoding: format.Plain})
	c.hdr.Reset()
	if err := c.tenc.Encode(&h); err != nil {
		return err
	}
	w.write(c.hdr.Bytes())
	w.write(body)
	c.meta.TotalUncompressedSize += int64(c.hdr.Len()) + int64(h.UncompressedPageSize)
	c.meta.TotalCompressedSize += int64(c.hdr.Len()) + int64(h.CompressedPageSize)
	c.meta.EncodingStats = addPageEncodingStats(c.meta.EncodingStats, format.DictionaryPage, format.Plain)
	return nil
}

// reset empties the column for the next row group.
func (c *ownColumn) reset() {
	c.base.Reset()
	c.indexer.Reset()
	if c.dict != nil {
		c.dict.Reset()
	}
	c.defs, c.reps, c.rows = c.defs[:0], c.reps[:0], 0
	c.pages, c.pagesLen, c.locs = c.pages[:0], 0, c.locs[:0]
	if c.pageBuffer != nil {
		c.pool.PutBuffer(c.pageBuffer)
		c.pageBuffer = nil
	}
	c.numRows, c.unencoded = 0, 0
	clear(c.defHist)
	clear(c.repHist)
	c.pageDefHist, c.pageRepHist = c.pageDefHist[:0], c.pageRepHist[:0]
	// The metadata's slices are the committed row group's now.
	c.meta = format.ColumnMetaData{Type: c.meta.Type, Encoding: c.meta.Encoding, PathInSchema: c.meta.PathInSchema, Codec: c.meta.Codec}
}

// writePage adds a page's parts to the column's pages.
func (c *ownColumn) writePage(parts ...[]byte) error {
	if c.pool == nil {
		for _, p := range parts {
			c.pages = append(c.pages, p...)
			c.pagesLen += int64(len(p))
		}
		return nil
	}
	if c.pageBuffer == nil {
		b := c.pool.GetBuffer()
		if _, err := b.Seek(0, io.SeekStart); err != nil {
			c.pool.PutBuffer(b)
			return err
		}
		c.pageBuffer = b
	}
	for _, p := range parts {
		n, err := c.pageBuffer.Write(p)
		c.pagesLen += int64(n)
		if err != nil {
			return err
		}
	}
	return nil
}

// copyPages writes the column's pages to w.
func (c *ownColumn) copyPages(w *ownWriter) error {
	if c.pageBuffer == nil {
		w.write(c.pages)
		return w.err
	}
	if w.err != nil {
		return w.err
	}
	if _, err := c.pageBuffer.Seek(0, io.SeekStart); err != nil {
		return err
	}
	n, err := io.Copy(w, c.pageBuffer)
	if err == nil && n != c.pagesLen {
		err = fmt.Errorf("parquetout: %d bytes of pages copied, want %d", n, c.pagesLen)
	}
	w.err = err
	return err
}
