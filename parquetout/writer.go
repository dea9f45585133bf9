package parquetout

import (
	"encoding/binary"
	"io"
	"math"
	"sync"

	"github.com/parquet-go/parquet-go"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/eventjson"
)

// The columns of the events table, in order (docs/cli.md).
const (
	cTime = iota
	cTimeNS
	cRelMS
	cFiletime
	cRawTimestamp
	cFile
	cCPU
	cPID
	cTID
	cProcessName
	cHeader
	cFlags
	cProviderGUID
	cEventID
	cVersion
	cChannel
	cLevel
	cOpcode
	cTask
	cKeywords
	cHookID
	cInstanceID
	cParentInstanceID
	cParentGUID
	cMessageFlags
	cSequence
	cComponentID
	cKernelTime
	cUserTime
	cProcessorTime
	cActivityID
	cRelatedActivityID
	cExtended
	cProviderName
	cEventName
	cTaskName
	cOpcodeName
	cLevelName
	cSchemaVersion
	cSchemaSource
	cProperties
	cMaps
	cMessage
	cUserData
	cDecodeError
	nMainColumns
)

func opt(n parquet.Node) parquet.Node { return parquet.Optional(n) }

func dictString() parquet.Node {
	return parquet.Encoded(parquet.Leaf(dictStringType{parquet.String().Type()}), &parquet.RLEDictionary)
}

// timestampMicros is the type of "time": microseconds since 1970, UTC
// (what Spark and Trino read; nanoseconds are in "time_ns").
func timestampMicros() parquet.Node { return parquet.Timestamp(parquet.Microsecond) }

// mainFields returns the events table's columns, in the order of the c*
// constants, then the stack.
func mainFields() []field {
	return []field{
		{"time", bulkCol(keepBounds(timestampMicros()), cTime)},
		{"time_ns", opt(keepBounds(parquet.Int(64)))},
		{"rel_ms", opt(keepBounds(parquet.Leaf(parquet.DoubleType)))},
		{"filetime", bulkCol(keepBounds(parquet.Int(64)), cFiletime)},
		{"raw_timestamp", bulkCol(keepBounds(parquet.Int(64)), cRawTimestamp)},
		{"file", bulkCol(keepBounds(parquet.Uint(32)), cFile)},
		{"cpu", bulkCol(narrowUint(16), cCPU)},
		{"pid", bulkCol(keepBounds(parquet.Uint(32)), cPID)},
		{"tid", bulkCol(keepBounds(parquet.Uint(32)), cTID)},
		{"process_name", opt(dictString())},
		{"header", dictString()},
		{"flags", bulkCol(narrowUint(16), cFlags)},
		{"provider_guid", dictString()},
		{"event_id", bulkCol(narrowUint(16), cEventID)},
		{"version", bulkCol(narrowUint(8), cVersion)},
		{"channel", bulkCol(narrowUint(8), cChannel)},
		{"level", bulkCol(narrowUint(8), cLevel)},
		{"opcode", bulkCol(narrowUint(8), cOpcode)},
		{"task", bulkCol(narrowUint(16), cTask)},
		{"keywords", bulkCol(keepBounds(parquet.Uint(64)), cKeywords)},
		{"hook_id", opt(keepBounds(parquet.Uint(16)))},
		{"instance_id", opt(keepBounds(parquet.Uint(32)))},
		{"parent_instance_id", opt(keepBounds(parquet.Uint(32)))},
		{"parent_guid", opt(keepRoom(parquet.String()))},
		{"message_flags", opt(keepBounds(parquet.Uint(16)))},
		{"sequence", opt(keepBounds(parquet.Uint(32)))},
		{"component_id", opt(keepBounds(parquet.Uint(32)))},
		{"kernel_time", opt(keepBounds(parquet.Uint(32)))},
		{"user_time", opt(keepBounds(parquet.Uint(32)))},
		{"processor_time", opt(keepBounds(parquet.Uint(64)))},
		{"activity_id", opt(keepRoom(parquet.String()))},
		{"related_activity_id", opt(keepRoom(parquet.String()))},
		{"extended", opt(keepRoom(parquet.JSON()))},
		{"provider_name", opt(dictString())},
		{"event_name", opt(dictString())},
		{"task_name", opt(dictString())},
		{"opcode_name", opt(dictString())},
		{"level_name", opt(dictString())},
		{"schema_version", opt(keepBounds(parquet.Uint(8)))},
		{"schema_source", opt(dictString())},
		{"properties", opt(keepRoom(parquet.JSON()))},
		{"maps", opt(keepRoom(parquet.JSON()))},
		{"message", opt(keepRoom(parquet.String()))},
		{"user_data", opt(keepRoom(parquet.Leaf(parquet.ByteArrayType)))},
		{"decode_error", opt(keepRoom(parquet.String()))},
		stackField(),
	}
}

// metadata is the key-value metadata of every file written.
func metadata() map[string]string {
	return map[string]string{"etwkit.schema": eventjson.SchemaName}
}

// recordReader cuts the pipeline's output into records; a record split
// across writes is carried over.
type recordReader struct {
	carry []byte
	r     rec
}

// eachRaw calls fn with the bytes of every whole record of p.
func (rr *recordReader) eachRaw(p []byte, fn func(b []byte) error) error {
	buf := p
	if len(rr.carry) > 0 {
		// Complete the record carried over with p's first bytes, not
		// all of p: the rest is read in place.
		rest, whole, err := rr.complete(p)
		if err != nil || !whole {
			return err
		}
		if err := fn(rr.carry); err != nil {
			return err
		}
		rr.carry = rr.carry[:0]
		buf = rest
	}
	for len(buf) >= 4 {
		n := int(binary.LittleEndian.Uint32(buf))
		if n < fixedSize {
			return errRecord
		}
		if n > len(buf) {
			break
		}
		if err := fn(buf[:n]); err != nil {
			return err
		}
		buf = buf[n:]
	}
	rr.carry = append(rr.carry, buf...)
	return nil
}

// complete moves p's first bytes to the carried-over part of a record
// until it holds the record whole or p runs out; it returns the rest of p.
func (rr *recordReader) complete(p []byte) (rest []byte, whole bool, err error) {
	if len(rr.carry) < 4 {
		k := min(4-len(rr.carry), len(p))
		rr.carry, p = append(rr.carry, p[:k]...), p[k:]
		if len(rr.carry) < 4 {
			return p, false, nil
		}
	}
	n := int(binary.LittleEndian.Uint32(rr.carry))
	if n < fixedSize {
		return p, false, errRecord
	}
	k := min(n-len(rr.carry), len(p))
	rr.carry, p = append(rr.carry, p[:k]...), p[k:]
	return p, len(rr.carry) == n, nil
}

// each calls fn for every whole record of p, parsed.
func (rr *recordReader) each(p []byte, fn func(r *rec) error) error {
	return rr.eachRaw(p, func(b []byte) error {
		if err := rr.r.parse(b); err != nil {
			return err
		}
		return fn(&rr.r)
	})
}

// Writer writes the events table: one row per event, typed columns for
// the header fields, the properties as a JSON column, process and stack
// from the analysis model (docs/cli.md, "-of PARQUET"). It is the
// io.Writer that pipeline.Run writes the Encoder's records to; Close
// finishes the file.
type Writer struct {
	t     *table
	stack stackColumns
	rr    recordReader
	start int64
	err   error
	one   rowSet // a sync table's row (header)
	ext          // NewExtendedWriter's
	// colWorkers is how many goroutines write a chunk's columns
	// (columnWorkers; tests set it).
	colWorkers int
	// bulk has the header columns written in bulk (bulkColumns; tests
	// clear it to write them as values).
	bulk [nMainColumns]bool
}

// NewWriter starts a Parquet file on out for the records of enc. The
// records go, whole, to encoders on other goroutines, which turn them
// into column values, encode and compress the pages of their row group
// while the next fills; memory is a few row groups (Options).
func NewWriter(out io.Writer, enc *Encoder, o *Options) *Writer {
	w := newWriter(out, enc.start, o, true)
	w.t.convertWrite = w.convertWrite
	if ownFile {
		w.err = w.t.useOwnWriter(o)
	}
	return w
}

// ownFile has NewWriter's files written by ownWriter where their options
// allow (tests clear it to compare with parquet-go's).
var ownFile = true

// newSyncWriter is a Writer that converts and writes at once (the
// undecoded events of a split dump).
func newSyncWriter(out io.Writer, start int64, o *Options) *Writer {
	return newWriter(out, start, o, false)
}

func newWriter(out io.Writer, start int64, o *Options, async bool) *Writer {
	w := &Writer{t: newTable(out, "event", mainFields(), o, metadata(), async), start: start, colWorkers: columnWorkers(), bulk: bulkColumns()}
	w.stack = w.t.stackColumns()
	return w
}

// Write takes records from the pipeline.
func (w *Writer) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	switch {
	case w.x != nil:
		w.err = w.rr.eachRaw(p, w.addExtended)
	case w.t.convertWrite != nil:
		w.err = w.rr.eachRaw(p, w.t.addRaw)
	default:
		w.err = w.rr.each(p, w.row)
	}
	if w.err != nil {
		return 0, w.err
	}
	return len(p), nil
}

// Close writes the last row group and the footer; it does not close the
// output.
func (w *Writer) Close() error {
	if len(w.rr.carry) > 0 && w.err == nil {
		w.err = errRecord
	}
	if err := w.t.close(); w.err == nil {
		w.err = err
	}
	return w.err
}

// row converts a record at once (sync tables).
func (w *Writer) row(r *rec) error {
	c := w.t.cur
	w.header(c, r, w.start)
	if _, ok := c.stackRecord(w.stack, r.b, r.framesAt); !ok {
		return errRecord // not expected: r was parsed
	}
	return w.t.endRow()
}

// header appends the header columns (c* order) of record r to t.
func (w *Writer) header(t *chunk, r *rec, start int64) {
	w.one.setOne(r, start)
	for c := range nMainColumns {
		t.cols[c] = w.one.appendColumn(t.cols[c], c, t)
	}
}

// optStr appends record string s to optional column c (null when absent).
func optStr(t *chunk, c int, r *rec, s int) {
	if r.has[s] {
		t.bytes(c, r.str[s], true)
	} else {
		t.null(c)
	}
}

// appendTimes appends "time", "time_ns" and "rel_ms" (columns c, c+1,
// c+2) of FILETIME ft.
func appendTimes(t *chunk, c int, ft, start int64, rel bool) {
	t.int(c, unixMicros(ft), 64, false)
	if ns, ok := unixNanos(ft); ok {
		t.int(c+1, ns, 64, true)
	} else {
		t.null(c + 1)
	}
	if rel {
		t.put(c+2, parquet.DoubleValue(relMS(ft, start)), true)
	} else {
		t.null(c + 2)
	}
}

// unixMicros returns "time": FILETIME ft in microseconds since 1970.
func unixMicros(ft int64) int64 {
	return floorDiv(etl.SubTime(ft, etl.UnixEpochFiletime), 10) // from 100 ns since 1970, saturated
}

// unixNanos returns "time_ns": FILETIME ft in nanoseconds since 1970, ok
// false when they do not fit an int64.
func unixNanos(ft int64) (ns int64, ok bool) {
	u := etl.SubTime(ft, etl.UnixEpochFiletime) // 100 ns since 1970, saturated
	if u >= math.MinInt64/100 && u <= math.MaxInt64/100 {
		return u * 100, true
	}
	return 0, false
}

// relMS returns "rel_ms": the milliseconds from FILETIME start to ft.
func relMS(ft, start int64) float64 { return float64(etl.SubTime(ft, start)) / 1e4 }

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// headerNames are the header types' names, made when a dump first
// writes one (not at every start of a program that links the package).
var headerNames = sync.OnceValue(func() *[256][]byte {
	var n [256][]byte
	for i := range n {
		n[i] = []byte(etl.HeaderType(i).String())
	}
	return &n
})
