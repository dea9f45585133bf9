package etl

import (
	"errors"
	"fmt"
)

// ErrNotETL is returned (wrapped) by [Open] and [NewFile] for input that
// does not start with an ETW log-file header.
var ErrNotETL = errors.New("not an ETL file")

// FormatError describes damaged or unexpected bytes in a file.
//
// Offset is the file offset of the problem. For a record inside a
// compressed buffer, Offset is the file offset of the buffer and
// RecordOffset the record's offset within the decompressed buffer;
// otherwise RecordOffset is -1.
type FormatError struct {
	File         string // file name, if known
	Offset       int64  // file offset
	RecordOffset int64  // offset inside a decompressed buffer, or -1
	Msg          string
	Err          error // underlying error, if any
}

func (e *FormatError) Error() string {
	prefix := ""
	if e.File != "" {
		prefix = e.File + ": "
	}
	where := fmt.Sprintf("offset %#x", e.Offset)
	if e.RecordOffset >= 0 {
		where = fmt.Sprintf("buffer at offset %#x, record at +%#x", e.Offset, e.RecordOffset)
	}
	if e.Err != nil {
		return fmt.Sprintf("%s%s: %s: %v", prefix, where, e.Msg, e.Err)
	}
	return fmt.Sprintf("%s%s: %s", prefix, where, e.Msg)
}

func (e *FormatError) Unwrap() error { return e.Err }
