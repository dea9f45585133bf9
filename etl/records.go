package etl

import (
	"fmt"
)

// RecordReader walks the records of one buffer in buffer order.
//
//	rr := buf.Records()
//	var ev etl.Event
//	for rr.Next(&ev) {
//		...
//	}
//	if err := rr.Err(); err != nil { ... }
type RecordReader struct {
	buf    *Buffer
	data   []byte // the buffer's data from offset base on: buf.Data, or a reader's window of it
	base   int
	window bool // data is a window: a damaged record ends the walk (faulted) instead of a skip
	fault  bool
	rc     recordContext
	clock  *Clock
	off    int
	end    int
	lastTS int64
	ext    []ExtendedItem
	errs   []error
	why    recordFault // what parse found wrong, when it returns 0
}

// Reset points the reader at the start of b's records.
func (rr *RecordReader) Reset(b *Buffer) {
	rr.buf = b
	rr.data, rr.base, rr.window, rr.fault = b.Data, 0, false, false
	rr.rc = b.file.recordContext(&b.Header)
	rr.clock = &b.file.Clock
	rr.off = BufferHeaderSize
	rr.end = int(b.Header.Offset)
	if rr.end > len(b.Data) {
		rr.end = len(b.Data)
	}
	rr.lastTS = b.Header.TimeStamp
	rr.errs = rr.errs[:0]
}

// Err returns the first damaged record met in the buffer, or nil.
func (rr *RecordReader) Err() error {
	if len(rr.errs) == 0 {
		return nil
	}
	return rr.errs[0]
}

// Errors returns every damaged record met in the buffer so far (as
// [*FormatError] values, each saying what was skipped), valid until the
// next [RecordReader.Reset].
func (rr *RecordReader) Errors() []error { return rr.errs }

// Offset returns the offset of the next record in the buffer.
func (rr *RecordReader) Offset() int { return rr.off }

// Next parses the next record into ev. It returns false at the end of the
// buffer's data. A damaged record is recorded (see [RecordReader.Errors])
// and skipped: the walk goes on at the next plausible record header in the
// buffer, if there is one. ev's slices point into the buffer and into the
// reader's scratch space: they are valid until the next call.
func (rr *RecordReader) Next(ev *Event) bool {
	for rr.off < rr.end {
		// parse's common case inlined: a typed header that fits and
		// parses; anything else goes through parse again, which says
		// why.
		data := rr.data[rr.off-rr.base : rr.end-rr.base]
		t, size := typed(data)
		if size == 0 || size > len(data) || !rr.parseRecord(ev, t, data[:size]) {
			size = rr.parse(ev, rr.off)
		}
		if size == 0 {
			if rr.window {
				rr.fault = true // the reader reads the whole buffer again
				return false
			}
			rr.skip(ev, rr.why.message())
			continue
		}
		if ev.Header == HeaderMessage && ev.MessageFlags&(wppTimestamp|wppPerfTimestamp) == 0 {
			ev.Timestamp = rr.lastTS
		}
		rr.lastTS = ev.Timestamp
		ev.Time = rr.clock.FileTime(ev.Timestamp)
		ev.BufferOffset = rr.buf.FileOffset
		ev.BufferIndex = rr.buf.Index
		ev.RecordOffset = rr.off
		rr.off += (size + 7) &^ 7
		return true
	}
	return false
}

// parse parses the record at off into ev and returns its size, or 0 and
// why it is not a record in rr.why (formatted only if reported: no
// allocation).
func (rr *RecordReader) parse(ev *Event, off int) int {
	data := rr.data[off-rr.base : rr.end-rr.base]
	t, size := typed(data) // classify, its common case inlined
	if size == 0 {
		if t, size = classifySlow(data, &rr.why); size == 0 {
			return 0
		}
	}
	if size > len(data) {
		rr.why = recordFault{kind: faultPastData, a: size, b: len(data)}
		return 0
	}
	if !rr.parseRecord(ev, t, data[:size]) {
		return 0
	}
	return size
}

// skip records the damaged record at rr.off and moves to the next
// plausible record: an 8-byte aligned position where a record parses and
// is followed by the end of the data or by another record header. Records
// are aligned to 8 bytes, so the search steps by 8.
func (rr *RecordReader) skip(ev *Event, msg string) {
	from := rr.off
	next := rr.end
	for p := from + 8; p+8 <= rr.end; p += 8 {
		size := rr.parse(ev, p)
		if size == 0 {
			continue
		}
		after := p + (size+7)&^7
		if after < rr.end {
			if _, n := classify(rr.data[after-rr.base:rr.end-rr.base], &rr.why); n == 0 {
				continue
			}
		}
		next = p
		break
	}
	b := rr.buf
	fe := &FormatError{File: b.file.Name, Offset: b.FileOffset, RecordOffset: int64(from)}
	where := fmt.Sprintf("+%#x", next)
	if !b.Compressed() {
		fe.Offset += int64(from)
		fe.RecordOffset = -1
		where = fmt.Sprintf("%#x", b.FileOffset+int64(next))
	}
	if next < rr.end {
		fe.Msg = fmt.Sprintf("%s; skipped %d bytes to the next record at %s", msg, next-from, where)
	} else {
		fe.Msg = fmt.Sprintf("%s; skipped the %d bytes left in the buffer (no record header after it)", msg, next-from)
	}
	rr.errs = append(rr.errs, fe)
	rr.off = next
}

// Compressed reports whether the buffer was stored compressed.
func (b *Buffer) Compressed() bool { return b.Header.Compressed() }

// ParseRecordIn parses the single record at offset off of a buffer's data
// (header included), as [RecordReader] would, with prevTimestamp standing
// for the previous record's timestamp (WPP messages without their own).
// It is meant for tools and tests; walking a buffer is RecordReader's job.
func ParseRecordIn(data []byte, off int, prevTimestamp int64) (*Event, error) {
	h, err := ParseBufferHeader(data)
	if err != nil {
		return nil, err
	}
	f := &File{Header: LogfileHeader{SubVersion: 1, SubMinorVersion: 5}}
	b := &Buffer{BufferInfo: BufferInfo{Header: h}, Data: data, file: f}
	var rr RecordReader
	rr.Reset(b)
	rr.off, rr.lastTS = off, prevTimestamp
	ev := new(Event)
	if !rr.Next(ev) || rr.Err() != nil {
		if rr.Err() != nil {
			return nil, rr.Err()
		}
		return nil, fmt.Errorf("etl: no record at offset %#x", off)
	}
	return ev, nil
}
