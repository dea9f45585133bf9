package etl

import (
	"fmt"
	"strconv"
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
	rc     recordContext
	clock  *Clock
	off    int
	end    int
	lastTS int64
	ext    []ExtendedItem
	err    error
}

// Reset points the reader at the start of b's records.
func (rr *RecordReader) Reset(b *Buffer) {
	rr.buf = b
	rr.rc = b.file.recordContext(&b.Header)
	rr.clock = &b.file.Clock
	rr.off = BufferHeaderSize
	rr.end = int(b.Header.Offset)
	if rr.end > len(b.Data) {
		rr.end = len(b.Data)
	}
	rr.lastTS = b.Header.TimeStamp
	rr.err = nil
}

// Err returns the problem that stopped the walk early, or nil.
func (rr *RecordReader) Err() error { return rr.err }

// Offset returns the offset of the next record in the buffer.
func (rr *RecordReader) Offset() int { return rr.off }

// Next parses the next record into ev. It returns false at the end of the
// buffer's data or at a damaged record (see [RecordReader.Err]); the rest of
// the buffer is then skipped, as ProcessTrace does. ev's slices point into
// the buffer and into the reader's scratch space: they are valid until the
// next call.
func (rr *RecordReader) Next(ev *Event) bool {
	if rr.err != nil || rr.off >= rr.end {
		return false
	}
	data := rr.buf.Data[rr.off:rr.end]
	t, size, err := classifyRecord(data)
	if err != nil {
		rr.fail(err.Error())
		return false
	}
	if size > len(data) {
		rr.fail("record of " + strconv.Itoa(size) + " bytes runs past the end of the buffer data (" + strconv.Itoa(len(data)) + " bytes left)")
		return false
	}
	rr.ext, err = parseRecord(ev, t, data[:size], &rr.rc, rr.ext)
	if err != nil {
		rr.fail(err.Error())
		return false
	}
	if t == HeaderMessage && ev.MessageFlags&(wppTimestamp|wppPerfTimestamp) == 0 {
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

func (rr *RecordReader) fail(msg string) {
	b := rr.buf
	fe := &FormatError{File: b.file.Name, Offset: b.FileOffset, RecordOffset: int64(rr.off), Msg: msg}
	if !b.Compressed() {
		fe.Offset += int64(rr.off)
		fe.RecordOffset = -1
	}
	rr.err = fe
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
	if !rr.Next(ev) {
		if rr.Err() != nil {
			return nil, rr.Err()
		}
		return nil, fmt.Errorf("etl: no record at offset %#x", off)
	}
	return ev, nil
}
