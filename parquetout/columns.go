package parquetout

import (
	"encoding/binary"
	"math"
	"slices"
	"sync"

	"github.com/parquet-go/parquet-go"
)

// The header columns of the events table are made one column at a time
// for all the rows of a chunk, and each column's values go to its column
// writer at once: one scratch slice of values, which stays in the cache,
// instead of a slice per column filled row by row (forty-five streams of
// 24-byte values, a megabyte per chunk, written and read back from
// memory). A column writer sees the same values in the same calls, so the
// pages and the file are the same.

// rowSet is the records of a chunk laid out field by field: each row's
// fixed part with its trace start, and where each of its strings is.
type rowSet struct {
	raw     []byte           // the records the strings are in
	fixed   []byte           // per row: the fixed part, then the trace start (i64)
	str     []uint64         // per row, nStrings: offset in raw << 32 | length, or absentRef
	ext     []byte           // per row: the extension's values, 8 bytes a column
	n       int              // rows
	vals    []parquet.Value  // scratch: one column's values
	defs    []byte           // scratch: their definition levels (appendColumn)
	nums    []uint64         // scratch: one integer column's fields
	present []uint32         // per row: the has* bits of its fixed part
	one     [1]parquet.Value // scratch: a bulk write's value (bulkValues)
	// anyHas and anyStr are the has* bits and the strings (bit i: string
	// i) present in some row: a column present in none is all nulls.
	anyHas, anyStr uint32
}

const (
	rowStride = fixedSize + 8
	absentRef = math.MaxUint64
)

var rowSets = sync.Pool{New: func() any { return new(rowSet) }}

// reset empties s for records in raw.
func (s *rowSet) reset(raw []byte) {
	s.raw, s.fixed, s.ext, s.n = raw, s.fixed[:0], s.ext[:0], 0
	s.present = s.present[:0]
	s.str = s.str[:0]
	s.anyHas, s.anyStr = 0, 0
}

// addFixed ends adding a row, its strings' refs added: its fixed part,
// whose rel_ms counts from start.
func (s *rowSet) addFixed(fixed []byte, start int64) {
	s.fixed = append(s.fixed, fixed...)
	has := binary.LittleEndian.Uint32(fixed[offPresent:])
	s.present = append(s.present, has)
	s.anyHas |= has
	s.fixed = binary.LittleEndian.AppendUint64(s.fixed, uint64(start))
	s.n++
}

// addRecordWith adds record b, at offset off of s.raw, whose rel_ms
// counts from start: its fixed part and where its strings are, read from
// b without a rec. Its frames are read by frames, given where they
// start: it returns where the record goes on after them, ok false when
// they are malformed (then the record is an error and adds no row). A
// record with more after its frames (typed values) is parsed whole, to
// check them.
func (s *rowSet) addRecordWith(b []byte, off int, start int64, r *rec, frames func(pos int) (next int, ok bool)) error {
	if len(b) < fixedSize {
		return errRecord
	}
	// The refs go straight into s.str, taken back if the record fails.
	n0 := len(s.str)
	s.str = slices.Grow(s.str, nStrings)[:n0+nStrings]
	strs, err := recordRefs(b, off, s.str[n0:n0+nStrings:n0+nStrings], r, frames)
	if err != nil {
		s.str = s.str[:n0]
		return err
	}
	// A row is added whole, once the record is read.
	s.anyStr |= strs
	s.addFixed(b[:fixedSize], start)
	return nil
}

// recordRefs reads where the strings of record b (at offset off of the
// row set's records) are into refs, then its frames (frames) and, when
// more follows them, the whole record (r.parse); strs has bit i set when
// string i is present.
func recordRefs(b []byte, off int, refs []uint64, r *rec, frames func(pos int) (next int, ok bool)) (strs uint32, err error) {
	pos := fixedSize
	for i := range refs {
		// A string is its length (absent: 0xFFFFFFFF), then its bytes.
		if len(b)-pos < 4 {
			return 0, errRecord
		}
		n := binary.LittleEndian.Uint32(b[pos:])
		pos += 4
		if n == absent {
			refs[i] = absentRef
			continue
		}
		if uint64(n) > uint64(len(b)-pos) {
			return 0, errRecord
		}
		refs[i] = uint64(off+pos)<<32 | uint64(n)
		strs |= 1 << i
		pos += int(n)
	}
	var ok bool
	if pos, ok = frames(pos); !ok {
		return 0, errRecord
	}
	if pos != len(b) {
		if err := r.parse(b); err != nil {
			return 0, err
		}
	}
	return strs, nil
}

// setOne makes s the one record r (a sync table's row); past the first
// row, s's slices have room and it does not allocate.
func (s *rowSet) setOne(r *rec, start int64) {
	s.reset(r.b)
	for i := range nStrings {
		s.str = append(s.str, strRef(r, i))
		if r.has[i] {
			s.anyStr |= 1 << i
		}
	}
	s.addFixed(r.fixed, start)
}

// strRef is where string i of record r is in r.b.
func strRef(r *rec, i int) uint64 {
	if !r.has[i] {
		return absentRef
	}
	return uint64(r.at[i])<<32 | uint64(len(r.str[i]))
}

// colKind is how a header column's value is made.
type colKind uint8

const (
	colInt    colKind = iota // a signed integer of the fixed part
	colUint                  // an unsigned integer of the fixed part
	colString                // a string of the record
	colTime                  // "time": microseconds since 1970
	colTimeNS                // "time_ns"
	colRelMS                 // "rel_ms"
	colHeader                // the header type's name
)

// colSpec is one header column: its kind, the field's offset and size in
// the fixed part, the column's width in bits, the presence bit (0: always
// present) or the string, and whether the column is optional.
type colSpec struct {
	kind     colKind
	off      uint8
	size     uint8
	width    uint8
	has      uint32
	str      uint8
	optional bool
}

func fixedCol(kind colKind, off, size, width int) colSpec {
	return colSpec{kind: kind, off: uint8(off), size: uint8(size), width: uint8(width)}
}

func optUintCol(off, size, width int, has uint32) colSpec {
	return colSpec{kind: colUint, off: uint8(off), size: uint8(size), width: uint8(width), has: has, optional: true}
}

func strCol(s int, optional bool) colSpec {
	return colSpec{kind: colString, str: uint8(s), optional: optional}
}

// headerCols are the header columns, in the order of the c* constants.
var headerCols = [nMainColumns]colSpec{
	cTime:              {kind: colTime},
	cTimeNS:            {kind: colTimeNS, optional: true},
	cRelMS:             {kind: colRelMS, has: hasRelMS, optional: true},
	cFiletime:          fixedCol(colInt, offTime, 8, 64),
	cRawTimestamp:      fixedCol(colInt, offRaw, 8, 64),
	cFile:              fixedCol(colUint, offFile, 4, 32),
	cCPU:               fixedCol(colUint, offCPU, 2, 16),
	cPID:               fixedCol(colUint, offPID, 4, 32),
	cTID:               fixedCol(colUint, offTID, 4, 32),
	cProcessName:       strCol(sProcessName, true),
	cHeader:            {kind: colHeader},
	cFlags:             fixedCol(colUint, offFlags, 2, 16),
	cProviderGUID:      strCol(sProviderGUID, false),
	cEventID:           fixedCol(colUint, offEventID, 2, 16),
	cVersion:           fixedCol(colUint, offVersion, 1, 8),
	cChannel:           fixedCol(colUint, offChannel, 1, 8),
	cLevel:             fixedCol(colUint, offLevel, 1, 8),
	cOpcode:            fixedCol(colUint, offOpcode, 1, 8),
	cTask:              fixedCol(colUint, offTask, 2, 16),
	cKeywords:          fixedCol(colUint, offKeywords, 8, 64),
	cHookID:            optUintCol(offHook, 2, 16, hasHook),
	cInstanceID:        optUintCol(offInstance, 4, 32, hasInstance),
	cParentInstanceID:  optUintCol(offParentInst, 4, 32, hasInstance),
	cParentGUID:        strCol(sParentGUID, true),
	cMessageFlags:      optUintCol(offMsgFlags, 2, 16, hasWPP),
	cSequence:          optUintCol(offSequence, 4, 32, hasWPP),
	cComponentID:       optUintCol(offComponent, 4, 32, hasWPP),
	cKernelTime:        optUintCol(offKernelTime, 4, 32, hasCPUTimes),
	cUserTime:          optUintCol(offUserTime, 4, 32, hasCPUTimes),
	cProcessorTime:     optUintCol(offProcTime, 8, 64, hasProcTime),
	cActivityID:        strCol(sActivityID, true),
	cRelatedActivityID: strCol(sRelatedActivityID, true),
	cExtended:          strCol(sExtended, true),
	cProviderName:      strCol(sProviderName, true),
	cEventName:         strCol(sEventName, true),
	cTaskName:          strCol(sTaskName, true),
	cOpcodeName:        strCol(sOpcodeName, true),
	cLevelName:         strCol(sLevelName, true),
	cSchemaVersion:     optUintCol(offSchemaVer, 1, 8, hasSchemaVer),
	cSchemaSource:      strCol(sSchemaSource, true),
	cProperties:        strCol(sProperties, true),
	cMaps:              strCol(sMaps, true),
	cMessage:           strCol(sMessage, true),
	cUserData:          strCol(sUserData, true),
	cDecodeError:       strCol(sDecodeError, true),
}

// appendColumn appends to vals the values of header column col for the
// rows of s; byte values go through k.keep. The column's kind, field and
// presence bit are looked at once, not per row: each kind has its loop.
// s.defs is left holding the values' definition levels, made with them
// (ownColumn.writeRowLevels takes them: reading a level back from a Value
// copies the whole 24-byte Value).
func (s *rowSet) appendColumn(vals []parquet.Value, col int, k *chunk) []parquet.Value {
	spec := &headerCols[col]
	vals, out := growValues(vals, s.n)
	s.defs = slices.Grow(s.defs[:0], len(out))[:len(out)]
	defs := s.defs
	def := 0 // definition level of a present value
	if spec.optional {
		def = 1
	}
	fixed := s.fixed[:len(out)*rowStride]
	switch spec.kind {
	case colInt, colUint:
		s.appendInts(out, defs, spec, def)
	case colString:
		s.appendStrings(out, defs, spec, def, k)
	case colHeader:
		names := headerNames()
		for i := range out {
			p := &out[i]
			*p = parquet.ByteArrayValue(k.keep(names[fixed[i*rowStride+offHeader]]))
			p.SetDefinitionLevel(def)
		}
		fillLevels(defs, def)
	case colTime:
		for i := range out {
			ft := int64(binary.LittleEndian.Uint64(fixed[i*rowStride+offTime:]))
			p := &out[i]
			*p = parquet.Int64Value(unixMicros(ft))
			p.SetDefinitionLevel(def)
		}
		fillLevels(defs, def)
	case colTimeNS:
		for i := range out {
			ns, ok := unixNanos(int64(binary.LittleEndian.Uint64(fixed[i*rowStride+offTime:])))
			if !ok {
				out[i], defs[i] = parquet.Value{}, 0
				continue
			}
			p := &out[i]
			*p = parquet.Int64Value(ns)
			p.SetDefinitionLevel(def)
			defs[i] = byte(def)
		}
	case colRelMS:
		for i := range out {
			f := fixed[i*rowStride : (i+1)*rowStride]
			if spec.has != 0 && binary.LittleEndian.Uint32(f[offPresent:])&spec.has == 0 {
				out[i], defs[i] = parquet.Value{}, 0
				continue
			}
			ft, start := int64(binary.LittleEndian.Uint64(f[offTime:])), int64(binary.LittleEndian.Uint64(f[fixedSize:]))
			p := &out[i]
			*p = parquet.DoubleValue(relMS(ft, start))
			p.SetDefinitionLevel(def)
			defs[i] = byte(def)
		}
	}
	return vals
}

// fillLevels sets every level of defs to def.
func fillLevels(defs []byte, def int) {
	for i := range defs {
		defs[i] = byte(def)
	}
}

// allNull tells whether header column c is null in every row of s, as
// appendInts and appendStrings find it.
func (s *rowSet) allNull(c int) bool {
	spec := &headerCols[c]
	switch {
	case !spec.optional:
		return false
	case spec.kind == colString:
		return s.anyStr&(1<<spec.str) == 0
	case spec.kind == colInt || spec.kind == colUint:
		return spec.has != 0 && s.anyHas&spec.has == 0
	}
	return false
}

// appendInts fills out with the values of integer column spec (present
// values at definition level def), and defs with their levels: the
// column's field is read for every row first, a loop for each size, then
// the values are made and the rows whose presence bit is clear made null.
// INT32 values of a signed or an unsigned field are the same: the field's
// low 32 bits.
func (s *rowSet) appendInts(out []parquet.Value, defs []byte, spec *colSpec, def int) {
	if spec.has != 0 && s.anyHas&spec.has == 0 {
		clear(out) // null in every row
		clear(defs)
		return
	}
	// Row i's field is at f[i*rowStride:].
	f := s.fixed[spec.off : len(out)*rowStride]
	wide := spec.width == 64
	if spec.has == 0 && s.requiredInts(out, f, spec.size, wide, byte(def)) {
		fillLevels(defs, def)
		return
	}
	nums := slices.Grow(s.nums[:0], len(out))[:len(out)]
	s.nums = nums
	switch spec.size {
	case 1:
		for i := range nums {
			nums[i] = uint64(f[i*rowStride])
		}
	case 2:
		for i := range nums {
			nums[i] = uint64(binary.LittleEndian.Uint16(f[i*rowStride:]))
		}
	case 4:
		for i := range nums {
			nums[i] = uint64(binary.LittleEndian.Uint32(f[i*rowStride:]))
		}
	default:
		for i := range nums {
			nums[i] = binary.LittleEndian.Uint64(f[i*rowStride:])
		}
	}
	out = out[:len(nums)]
	// One loop for each kind of value and whether rows may be null.
	if has := spec.has; has != 0 {
		present := s.present[:len(nums)]
		defs = defs[:len(nums)]
		for i, n := range nums {
			p := &out[i]
			switch {
			case present[i]&has == 0:
				*p, defs[i] = parquet.Value{}, 0
				continue
			case wide:
				*p = parquet.Int64Value(int64(n))
			default:
				*p = parquet.Int32Value(int32(n))
			}
			p.SetDefinitionLevel(def)
			defs[i] = byte(def)
		}
		return
	}
	fillLevels(defs, def)
	level := byte(def) // a byte: SetDefinitionLevel's range check goes
	if wide {
		for i, n := range nums {
			p := &out[i]
			*p = parquet.Int64Value(int64(n))
			p.SetDefinitionLevel(int(level))
		}
		return
	}
	for i, n := range nums {
		p := &out[i]
		*p = parquet.Int32Value(int32(n))
		p.SetDefinitionLevel(int(level))
	}
}

// requiredInts makes the values of a column present in every row, of
// fields of size bytes at f[i*rowStride:], in one pass: an INT64 column
// of 8-byte fields or an INT32 one of narrower fields (the usual ones; it
// returns false for others, which appendInts makes in two passes).
func (s *rowSet) requiredInts(out []parquet.Value, f []byte, size uint8, wide bool, level byte) bool {
	switch {
	case size == 8 && wide:
		for i := range out {
			p := &out[i]
			*p = parquet.Int64Value(int64(binary.LittleEndian.Uint64(f[i*rowStride:])))
			p.SetDefinitionLevel(int(level))
		}
	case wide:
		return false
	case size == 4:
		for i := range out {
			p := &out[i]
			*p = parquet.Int32Value(int32(binary.LittleEndian.Uint32(f[i*rowStride:])))
			p.SetDefinitionLevel(int(level))
		}
	case size == 2:
		for i := range out {
			p := &out[i]
			*p = parquet.Int32Value(int32(binary.LittleEndian.Uint16(f[i*rowStride:])))
			p.SetDefinitionLevel(int(level))
		}
	case size == 1:
		for i := range out {
			p := &out[i]
			*p = parquet.Int32Value(int32(f[i*rowStride]))
			p.SetDefinitionLevel(int(level))
		}
	default:
		return false
	}
	return true
}

// appendStrings fills out with the values of string column spec (present
// values at definition level def), and defs with their levels.
func (s *rowSet) appendStrings(out []parquet.Value, defs []byte, spec *colSpec, def int, k *chunk) {
	if spec.optional && s.anyStr&(1<<spec.str) == 0 {
		clear(out) // null in every row
		clear(defs)
		return
	}
	refs := s.str[:len(out)*nStrings]
	raw := s.raw
	defs = defs[:len(out)]
	for i := range out {
		ref := refs[i*nStrings+int(spec.str)]
		var b []byte
		if ref == absentRef {
			if spec.optional {
				out[i], defs[i] = parquet.Value{}, 0
				continue
			}
		} else {
			at, n := ref>>32, ref&math.MaxUint32
			b = raw[at : at+n : at+n]
		}
		if !k.borrow {
			b = k.keep(b)
		}
		p := &out[i]
		*p = parquet.ByteArrayValue(b)
		p.SetDefinitionLevel(def)
		defs[i] = byte(def)
	}
}

// convertWrite converts the raw records of chunk c (an async table's) and
// writes its values to the row group's column writers: the header columns
// one at a time (appendColumn), the stack and the extension's columns
// from c's columns, filled record by record.
func (w *Writer) convertWrite(crg rowGroupWriter, c *chunk) error {
	if c.rows == 0 {
		return nil
	}
	t := w.t
	for i, rep := range t.repeated {
		if i >= nMainColumns && !rep && cap(c.cols[i]) < c.rows {
			c.cols[i] = make([]parquet.Value, 0, c.rows)
		}
	}
	s := rowSets.Get().(*rowSet)
	defer func() {
		s.reset(nil) // the pool keeps s, not the chunk's records
		rowSets.Put(s)
	}()
	s.reset(c.raw)
	c.borrow = true
	defer func() { c.borrow = false }()
	for off := 0; off < len(c.raw); {
		p := c.raw[off:]
		n := int(binary.LittleEndian.Uint32(p))
		if n < fixedSize || len(p) < n+t.extra {
			return errRecord
		}
		extra := p[n : n+t.extra]
		start := w.start
		if w.x != nil {
			start = int64(binary.LittleEndian.Uint64(extra))
		}
		b := p[:n]
		// The frames go to the stack columns as they are read; a
		// malformed record fails the table.
		err := s.addRecordWith(b, off, start, &c.rec, func(pos int) (int, bool) {
			return c.stackRecord(w.stack, b, pos)
		})
		if err != nil {
			return err
		}
		if w.x != nil {
			s.ext = append(s.ext, extra[8:]...)
		}
		off += n + t.extra
	}
	if w.x != nil {
		w.extend(c, s)
	}
	if g, ok := crg.(*ownRowGroup); ok {
		return writeColumns(w, g.cols, s, c)
	}
	return writeColumns(w, crg.(*parquet.ConcurrentRowGroupWriter).ColumnWriters(), s, c)
}
