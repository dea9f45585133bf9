package parquetout

import (
	"encoding/binary"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sync"

	"github.com/klauspost/compress/s2"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/compress/uncompressed"
	"github.com/parquet-go/parquet-go/compress/zstd"
	"github.com/parquet-go/parquet-go/format"

	"github.com/etwkit/etw/internal/inorder"
	"github.com/etwkit/etw/internal/panicerr"
)

// Compression names a Parquet compression codec.
type Compression string

// The codecs. Snappy is the default: the fastest to write and to read,
// what DuckDB and Spark write by default.
const (
	Snappy       Compression = "snappy"
	Zstd         Compression = "zstd"
	Uncompressed Compression = "none"
)

// ParseCompression parses a codec name: snappy, zstd or none.
func ParseCompression(s string) (Compression, error) {
	switch c := Compression(s); c {
	case Snappy, Zstd, Uncompressed:
		return c, nil
	case "":
		return Snappy, nil
	}
	return "", fmt.Errorf("compression %q: want snappy, zstd or none", s)
}

// Codec returns the codec of c (Snappy for an unknown name), for other
// Parquet writers of the toolkit (package tables).
func (c Compression) Codec() compress.Codec {
	switch c {
	case Zstd:
		return &zstd.Codec{Level: zstd.SpeedFastest}
	case Uncompressed:
		return &uncompressed.Codec{}
	}
	return fastSnappy{}
}

// fastSnappy is Snappy at its standard level: parquet-go's snappy codec
// uses klauspost's "better" Snappy, which takes about twice the time for a
// few percent.
type fastSnappy struct{}

func (fastSnappy) String() string                            { return "SNAPPY" }
func (fastSnappy) CompressionCodec() format.CompressionCodec { return format.Snappy }

func (fastSnappy) Encode(dst, src []byte) ([]byte, error) {
	if n := s2.MaxEncodedLen(len(src)); n < 0 {
		return nil, fmt.Errorf("parquetout: page of %d bytes too large for snappy", len(src))
	} else if cap(dst) < n {
		dst = make([]byte, n)
	}
	return s2.EncodeSnappy(dst[:cap(dst)], src), nil
}

func (fastSnappy) Decode(dst, src []byte) ([]byte, error) {
	n, err := s2.DecodedLen(src)
	if err != nil {
		return nil, err
	}
	if cap(dst) < n {
		dst = make([]byte, n)
	}
	return s2.Decode(dst[:n], src)
}

// Options set the row groups and compression of the files written.
type Options struct {
	// RowGroupRows and RowGroupBytes bound a row group: it is written
	// when it holds that many rows or that many bytes of values (64 Ki
	// rows and 32 MiB if 0). Memory is a few row groups, whatever the
	// input's size.
	RowGroupRows  int
	RowGroupBytes int
	// Compression is the codec of every column (Snappy if empty).
	Compression Compression
	// PageBufferSize is the size of a column's pages in NewWriter's and
	// NewExtendedWriter's files (parquet-go's default, 256 KiB, if 0).
	// Each column of a row group being written holds up to a page of
	// values; when set, the records handed to the encoders at once are
	// at most 8 pages' worth too. Small pages take less memory and make
	// larger files (32 KiB: 3.5-11 % larger by table, docs/performance.md).
	PageBufferSize int
	// TempDir, when set, is where NewWriter's and NewExtendedWriter's
	// compressed pages wait for their row group to be written, in a
	// temporary file (removed at once where the system allows, else by
	// Close), instead of in memory; the file's bytes do not change. If
	// the file cannot be made, the pages wait in memory.
	TempDir string
}

func (o *Options) rows() int {
	if o == nil || o.RowGroupRows <= 0 {
		return 64 << 10
	}
	return o.RowGroupRows
}

func (o *Options) bytes() int {
	if o == nil || o.RowGroupBytes <= 0 {
		return 32 << 20
	}
	return o.RowGroupBytes
}

func (o *Options) compression() Compression {
	if o == nil || o.Compression == "" {
		return Snappy
	}
	return o.Compression
}

// field is one column (or the stack list) of a table's schema.
type field struct {
	name string
	node parquet.Node
}

// orderedGroup is a parquet group whose fields come in the order given
// (parquet.Group sorts them by name).
type orderedGroup struct {
	parquet.Group
	fields []parquet.Field
}

func (g orderedGroup) Fields() []parquet.Field { return g.fields }

func newGroup(fields []field) orderedGroup {
	g := parquet.Group{}
	for _, f := range fields {
		g[f.name] = f.node
	}
	byName := map[string]parquet.Field{}
	for _, f := range g.Fields() {
		byName[f.Name()] = f
	}
	og := orderedGroup{Group: g}
	for _, f := range fields {
		og.fields = append(og.fields, byName[f.name])
	}
	return og
}

// arena holds copies of byte values until their row group is written.
type arena struct {
	chunks [][]byte
	next   int // the chunk being filled
	size   int
}

const arenaChunk = 256 << 10

func (a *arena) copy(b []byte) []byte {
	if len(b) > arenaChunk/4 {
		c := append([]byte(nil), b...)
		a.size += len(c)
		return c
	}
	for a.next < len(a.chunks) && cap(a.chunks[a.next])-len(a.chunks[a.next]) < len(b) {
		a.next++
	}
	if a.next == len(a.chunks) {
		// Chunks grow from 4 KiB: split tables are many, most small.
		size := 4 << 10
		if n := len(a.chunks); n > 0 {
			size = min(2*cap(a.chunks[n-1]), arenaChunk)
		}
		a.chunks = append(a.chunks, make([]byte, 0, max(size, len(b))))
	}
	c := &a.chunks[a.next]
	start := len(*c)
	*c = append(*c, b...)
	a.size += len(b)
	return (*c)[start:len(*c):len(*c)]
}

// reset makes the arena's chunks reusable; only once the row group that
// refers to them is committed (its pages are written).
func (a *arena) reset() {
	keep := a.chunks[:0]
	for _, c := range a.chunks {
		if len(keep) < 256 {
			keep = append(keep, c[:0])
		}
	}
	clear(a.chunks[len(keep):])
	a.chunks, a.size, a.next = keep, 0, 0
}

// chunk is the values of up to chunkRows rows, column by column, on
// their way to the row group they belong to.
type chunk struct {
	rg     int // sequence number of the row group
	last   bool
	cols   [][]parquet.Value
	rows   int
	values int // in the repeated (stack) columns
	arena  arena
	// raw holds the chunk's records, in a table that converts them into
	// values on its encoders (table.convertWrite).
	raw []byte
	rec rec // scratch for parsing them
	// borrow is set while the values come from raw, which lives until
	// the chunk is written: byte values point into it instead of being
	// copied to the arena.
	borrow bool
	// stacks are where the stack columns hold the values of recent
	// stacks (see chunk.sameStack); emptied with the columns.
	stacks [chunkStacks]chunkStack
	// headers is the bytes of raw's frames' headers (see stackHeader).
	headers int
	// defs and reps are the definition and repetition levels of the
	// stack columns' values, by column as cols, made with the values
	// (stackRecord) for ownColumn.writeRowLevels; nil for other columns.
	defs, reps [][]byte
}

// rawSize is the size of the chunk's records that bounds it: without
// their frames' headers.
func (c *chunk) rawSize() int { return len(c.raw) - c.headers }

func (c *chunk) reset() {
	// Values converted from raw point into it, which the chunk keeps:
	// only values that may point to the arena's large copies are cleared,
	// so that those can be freed.
	converted := len(c.raw) > 0
	for i := range c.cols {
		if !converted {
			clear(c.cols[i])
		}
		c.cols[i] = c.cols[i][:0]
	}
	for i := range c.defs {
		c.defs[i], c.reps[i] = c.defs[i][:0], c.reps[i][:0]
	}
	c.rows, c.values, c.last, c.headers = 0, 0, false, 0
	clear(c.stacks[:])
	c.arena.reset()
	c.raw = c.raw[:0]
}

// largeText are the columns whose pages carry no min/max bounds.
var largeText = map[string]struct{}{"properties": {}, "maps": {}, "extended": {}, "message": {}, "user_data": {}, "decode_error": {}}

// smallPageBuffer is the page size of split tables.
const smallPageBuffer = 32 << 10

// chunkValues bounds the stack values of a chunk.
const chunkValues = 8 << 10

// chunkRows is the rows of a chunk: what a column writer takes at once,
// which keeps pages near the writer's page size.
const chunkRows = 1024

// table writes rows of one schema to one Parquet file. Rows fill chunks;
// each chunk goes to the row group it belongs to, whose column writers
// encode and compress its pages: on other goroutines (async: row groups
// round-robin over an encoder per row group in flight, committed to the
// file in order) or at once. Memory is the chunks in flight plus the pages of the
// row groups being written, not the file.
type table struct {
	schema *parquet.Schema
	pw     *parquet.GenericWriter[any]
	// own, when set, writes the file instead of pw (useOwnWriter).
	own *ownWriter
	// out, opts, codec and pageSize are what the file was begun with.
	out      io.Writer
	opts     []parquet.WriterOption
	codec    compress.Codec
	pageSize int
	repeated []bool // leaf columns inside the stack list
	cur      *chunk
	maxRows  int
	maxBytes int
	async    bool
	// chunkBytes bounds the records of a chunk (chunkRawBytes, less with
	// small pages).
	chunkBytes int

	// convertWrite, when set, converts a chunk's raw records into values
	// and gives them to the row group's column writers, on the encoder
	// that writes it (async tables).
	convertWrite func(crg rowGroupWriter, c *chunk) error
	// extra is the bytes of extension values after each raw record.
	extra int

	rg      int // row group being filled
	rgRows  int // its rows so far (in sent chunks)
	rgBytes int
	crg     *parquet.ConcurrentRowGroupWriter // sync: the row group being written

	// groups hands row group writers to the encoders (async).
	groups groupPool
	// spill keeps the pages of the row group being written (Options.TempDir).
	spill *spillPool

	free    chan *chunk
	enc     []chan *chunk // per encoder
	commits chan rgDone
	wg      sync.WaitGroup
	commitW sync.WaitGroup
	errMu   sync.Mutex
	err     error
	closed  bool
}

type rgDone struct {
	seq int
	g   groupWriter
	err error
}

// newTable starts a Parquet file on out. async encodes on other
// goroutines while the next rows fill.
func newTable(out io.Writer, name string, fields []field, o *Options, meta map[string]string, async bool) *table {
	schema := parquet.NewSchema(name, newGroup(fields))
	opts := []parquet.WriterOption{schema, parquet.Compression(o.compression().Codec()),
		parquet.CreatedBy("etwkit tracerpt-go", "", ""), parquet.MaxRowsPerRowGroup(int64(o.rows()) + 1)}
	for _, f := range fields {
		if _, ok := largeText[f.name]; ok {
			// Min and max of JSON text and payloads help no reader.
			opts = append(opts, parquet.SkipPageBounds(f.name))
		}
	}
	if !async {
		// Split tables are many: smaller pages keep the column buffers
		// of all of them small.
		opts = append(opts, parquet.PageBufferSize(smallPageBuffer))
	} else if o != nil && o.PageBufferSize > 0 {
		opts = append(opts, parquet.PageBufferSize(o.PageBufferSize))
	}
	var spill *spillPool
	if async && o != nil && o.TempDir != "" {
		spill = newSpillPool(o.TempDir)
		opts = append(opts, parquet.ColumnPageBuffers(spill))
	}
	keys := make([]string, 0, len(meta))
	for k := range meta {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		opts = append(opts, parquet.KeyValueMetadata(k, meta[k]))
	}
	t := &table{schema: schema, pw: parquet.NewGenericWriter[any](out, opts...), maxRows: o.rows(), maxBytes: o.bytes(), async: async, chunkBytes: chunkRawBytes, spill: spill,
		out: out, opts: opts, codec: o.compression().Codec(), pageSize: parquet.DefaultPageBufferSize}
	if o != nil && o.PageBufferSize > 0 {
		t.pageSize = o.PageBufferSize
		// Small pages are for small memory: the chunks in flight (three
		// on two cores) hold 8 pages' worth of records each.
		t.chunkBytes = min(chunkRawBytes, 8*o.PageBufferSize)
	}
	for _, path := range schema.Columns() {
		t.repeated = append(t.repeated, len(path) > 1)
	}
	if !async {
		t.cur = t.newChunk()
		return t
	}
	// An encoder per row group in flight: a row group's chunks go to
	// one encoder, and the next row group begins when the previous one
	// is committed, so with one row group in flight (rowGroupsInFlight)
	// a second encoder only held a chunk queued for the next row group
	// while the first flushed (a chunk's columns are written on every
	// core: parcols.go).
	workers := min(runtime.GOMAXPROCS(0), 4, rowGroupsInFlight)
	// Chunks in flight: one filling, one per encoder, and one queued at
	// the encoder. Each holds up to chunkRawBytes of records (1 MiB: three
	// on any machine, 3.2 MB of the Parquet dump's live heap;
	// docs/performance.md, "Parquet chunks in flight" and pq16mem). With
	// two, the writer waited for the encoder whenever it flushed a page
	// or a row group, and the encoder in turn for the writer: the third
	// took 6 % off the dump's wall (docs/performance.md, "Session 25").
	t.free = make(chan *chunk, workers+2)
	for range cap(t.free) {
		t.free <- &chunk{}
	}
	t.commits = make(chan rgDone, workers)
	// One row group in flight (see groupPool): the encoders take row
	// groups in turn, the next one beginning when the previous is committed.
	t.groups.init(t.pw, rowGroupsInFlight, len(t.repeated))
	for range workers {
		ch := make(chan *chunk, 2)
		t.enc = append(t.enc, ch)
		t.wg.Add(1)
		go func() {
			defer t.wg.Done()
			var g groupWriter
			var err error
			for c := range ch {
				if g.crg == nil {
					g = t.groups.get(c.rg)
				}
				// The row group's values: a chunk's exist only while
				// it is converted and written.
				c.cols = g.cols
				clear(c.stacks[:])
				if err == nil {
					err = t.encode(g.crg, c)
				}
				g.cols, c.cols = c.cols, nil
				// Records grown for a large one are let go, and with
				// them the values that may point into them.
				grown := cap(c.raw) > t.chunkBytes+chunkRawSlack
				for i := range g.cols {
					if grown {
						clear(g.cols[i][:cap(g.cols[i])])
					}
					g.cols[i] = g.cols[i][:0]
				}
				if c.last {
					t.commits <- rgDone{c.rg, g, err}
					g, err = groupWriter{}, nil
				}
				c.reset()
				if grown {
					c.raw, c.rec = nil, rec{}
				}
				t.free <- c
			}
		}()
	}
	t.commitW.Add(1)
	go t.commitLoop()
	t.cur = <-t.free
	return t
}

// rowGroupWriter is a row group's writer: parquet-go's, or ours
// (ownRowGroup).
type rowGroupWriter interface {
	Flush() error
	Commit() (int64, error)
}

// useOwnWriter has the table's file written by ownWriter, when its
// options allow (ownWriterFits); before any row is added.
func (t *table) useOwnWriter(o *Options) error {
	if !t.async || !ownWriterFits(o) {
		return nil
	}
	var pool parquet.BufferPool
	if t.spill != nil {
		pool = t.spill
	}
	own, err := newOwnWriter(t.out, t.schema, t.opts, t.codec, t.pageSize, largeText, pool)
	if err != nil || own == nil {
		return err
	}
	// parquet-go's writer of the file is not used from here on: its
	// column writers' buffers go (0.19 MB in a heap profile of
	// net.4.5.2's dump).
	t.own, t.groups.own = own, own
	t.pw, t.groups.pw = nil, nil
	return nil
}

// encode converts and writes c into crg on an encoder goroutine, and
// flushes crg after the row group's last chunk; a panic becomes its
// error.
func (t *table) encode(crg rowGroupWriter, c *chunk) (err error) {
	defer panicerr.Recover(&err)
	if t.convertWrite != nil {
		err = t.convertWrite(crg, c)
	} else {
		err = t.writeChunk(crg.(*parquet.ConcurrentRowGroupWriter), c)
	}
	if err != nil {
		return err
	}
	if c.last {
		return crg.Flush()
	}
	return nil
}

func (t *table) newChunk() *chunk {
	return &chunk{cols: make([][]parquet.Value, len(t.repeated))}
}

// addRaw adds one record, whole, to the current chunk of an async table
// with convertWrite; full chunks and row groups go out.
func (t *table) addRaw(b []byte) error { return t.addRawExt(b, nil) }

// addRawExt is addRaw for a record followed by its extension's values
// (t.extra bytes).
func (t *table) addRawExt(b, ext []byte) error {
	c := t.cur
	if n := len(b) + len(ext); cap(c.raw)-len(c.raw) < n {
		// The records of a chunk reach chunkRawBytes, or its rows
		// chunkRows, first: grow at once to hold them, not by doubling;
		// a record larger than the slack makes the chunk just as large
		// as it needs (and is let go when the chunk is reused).
		raw := make([]byte, len(c.raw), max(len(c.raw)+n, t.chunkBytes+chunkRawSlack))
		c.raw = raw[:copy(raw, c.raw)]
	}
	c.raw = append(c.raw, b...)
	c.raw = append(c.raw, ext...)
	c.rows++
	if len(b) >= fixedSize && binary.LittleEndian.Uint32(b[offPresent:])&hasStack != 0 {
		c.headers += stackHeader
	}
	if t.rgRows+c.rows >= t.maxRows || t.rgBytes+c.rawSize() >= t.maxBytes {
		return t.send(true)
	}
	if c.rows >= chunkRows || c.rawSize() >= t.chunkBytes {
		return t.send(false)
	}
	return nil
}

// chunkRawBytes bounds the records of a chunk; chunkRawSlack is room for
// the record that crosses it.
const (
	chunkRawBytes = 1 << 20
	chunkRawSlack = 64 << 10
)

// writeChunk gives a chunk's values to the row group's column writers.
func (t *table) writeChunk(crg *parquet.ConcurrentRowGroupWriter, c *chunk) error {
	if c.rows == 0 {
		return nil
	}
	for i, cw := range crg.ColumnWriters() {
		if _, err := cw.WriteRowValues(c.cols[i]); err != nil {
			return err
		}
	}
	return nil
}

// commitLoop commits finished row groups in sequence order.
func (t *table) commitLoop() {
	defer t.commitW.Done()
	inorder.Each(t.commits, func(d rgDone) int { return d.seq }, func(d rgDone) {
		err := t.commit(d.g.crg, d.err)
		t.groups.put(d.g, err == nil)
	})
}

// commit commits crg unless err, and records the first error.
func (t *table) commit(crg rowGroupWriter, err error) error {
	if err == nil {
		err = commitGroup(crg)
	}
	t.setErr(err)
	return err
}

// commitGroup commits crg on the commit goroutine; a panic becomes its
// error.
func commitGroup(crg rowGroupWriter) (err error) {
	defer panicerr.Recover(&err)
	_, err = crg.Commit()
	return err
}

func (t *table) setErr(err error) {
	if err == nil {
		return
	}
	t.errMu.Lock()
	if t.err == nil {
		t.err = err
	}
	t.errMu.Unlock()
}

func (t *table) firstErr() error {
	t.errMu.Lock()
	defer t.errMu.Unlock()
	return t.err
}

// endRow closes the current row; full chunks and row groups go out.
func (t *table) endRow() error {
	c := t.cur
	c.rows++
	if t.rgRows+c.rows >= t.maxRows || t.rgBytes+c.arena.size >= t.maxBytes {
		return t.send(true)
	}
	if c.rows >= chunkRows || c.values >= chunkValues {
		return t.send(false)
	}
	return nil
}

// flush ends the row group being filled (if it has rows).
func (t *table) flush() error {
	if t.rgRows+t.cur.rows == 0 {
		return t.firstErr()
	}
	return t.send(true)
}

// send gives the current chunk to its row group; last ends the group.
func (t *table) send(last bool) error {
	c := t.cur
	c.rg, c.last = t.rg, last
	t.rgRows += c.rows
	t.rgBytes += c.arena.size + c.rawSize()
	if last {
		t.rg++
		t.rgRows, t.rgBytes = 0, 0
	}
	if !t.async {
		if t.crg == nil {
			t.crg = t.pw.BeginRowGroup()
		}
		err := t.writeChunk(t.crg, c)
		if last {
			if err == nil {
				err = t.crg.Flush()
			}
			t.commit(t.crg, err)
			t.crg = nil
		} else {
			t.setErr(err)
		}
		c.reset()
		return t.firstErr()
	}
	t.enc[c.rg%len(t.enc)] <- c
	t.cur = <-t.free
	return t.firstErr()
}

// close writes what is left and the file's footer.
func (t *table) close() error {
	if t.closed {
		return t.firstErr()
	}
	t.closed = true
	err := t.flush()
	if t.async {
		for _, ch := range t.enc {
			close(ch)
		}
		t.wg.Wait()
		close(t.commits)
		t.commitW.Wait()
		if err == nil {
			err = t.firstErr()
		}
	}
	if t.own != nil {
		if cerr := t.own.Close(); err == nil {
			err = cerr
		}
	} else if cerr := t.pw.Close(); err == nil {
		err = cerr
	}
	if t.spill != nil {
		if cerr := t.spill.close(); err == nil {
			err = cerr
		}
	}
	return err
}

// Value helpers: each appends one value of the current row to column c.
// The row's values go to the current chunk.

// The column writers take values with their repetition and definition
// levels; the column index comes from the writer, so it is left unset.

func (k *chunk) null(c int) {
	k.cols[c] = append(k.cols[c], parquet.Value{})
}

// put appends a present value; in an optional column its definition
// level is 1.
func (k *chunk) put(c int, v parquet.Value, optional bool) {
	if optional {
		v.SetDefinitionLevel(1)
	}
	k.cols[c] = append(k.cols[c], v)
}

func (k *chunk) bytes(c int, b []byte, optional bool) {
	k.put(c, parquet.ByteArrayValue(k.keep(b)), optional)
}

// keep returns b, or a copy of it that lives until the chunk is written.
func (k *chunk) keep(b []byte) []byte {
	if k.borrow {
		return b
	}
	return k.arena.copy(b)
}

// uint appends an unsigned integer to a UINT(width) column.
func (k *chunk) uint(c int, n uint64, width int, optional bool) {
	if width == 64 {
		k.put(c, parquet.Int64Value(int64(n)), optional)
	} else {
		k.put(c, parquet.Int32Value(int32(uint32(n))), optional)
	}
}

// int appends a signed integer to an INT(width) column.
func (k *chunk) int(c int, n int64, width int, optional bool) {
	k.put(c, intValue(n, width == 64), optional)
}

// intValue is n as the value of an INT64 column (wide) or an INT32 one
// (its low 32 bits).
func intValue(n int64, wide bool) parquet.Value {
	if wide {
		return parquet.Int64Value(n)
	}
	return parquet.Int32Value(int32(n))
}

// stackFields is the "stack" column: a list of frames.
func stackField() field {
	return field{"stack", parquet.Optional(parquet.List(newGroup([]field{
		{"address", keepBounds(parquet.Uint(64))},
		{"module", parquet.Optional(dictString())},
		{"offset", parquet.Optional(keepBounds(parquet.Uint(64)))},
		{"method", parquet.Optional(dictString())},
	})))}
}

// stackColumns finds the leaf columns of the stack list.
type stackColumns struct{ address, module, offset, method int }

func (t *table) stackColumns() stackColumns {
	s := stackColumns{-1, -1, -1, -1}
	for i, path := range t.schema.Columns() {
		if len(path) < 2 || path[0] != "stack" {
			continue
		}
		switch path[len(path)-1] {
		case "address":
			s.address = i
		case "module":
			s.module = i
		case "offset":
			s.offset = i
		case "method":
			s.method = i
		}
	}
	return s
}

// growValues returns col grown by n values (or levels) and the n new ones.
func growValues[T any](col []T, n int) (grown, added []T) {
	k := len(col)
	col = slices.Grow(col, n)[:k+n]
	return col, col[k:]
}
