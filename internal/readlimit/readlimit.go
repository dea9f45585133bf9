// Package readlimit reads a whole input of bounded size (a schema file:
// manifest, MOF), so that a hostile input costs memory in proportion to
// the bound, not to what it holds.
package readlimit

import (
	"bytes"
	"fmt"
	"io"
)

// TooLargeError is the error of an input longer than its bound.
type TooLargeError struct {
	// Limit is the bound in bytes.
	Limit int
	// Line is the line (1-based) on which the bound falls.
	Line int
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("line %d: input larger than %d bytes", e.Line, e.Limit)
}

// ReadAll reads r to its end. An input longer than limit bytes is a
// *TooLargeError (after reading limit+1 bytes, no more); a read error is
// returned as it is.
func ReadAll(r io.Reader, limit int) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, int64(limit)+1))
	if err != nil {
		return nil, err
	}
	if len(b) > limit {
		return nil, &TooLargeError{Limit: limit, Line: bytes.Count(b[:limit], []byte{'\n'}) + 1}
	}
	return b, nil
}
