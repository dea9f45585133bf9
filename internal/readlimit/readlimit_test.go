package readlimit

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestReadAll(t *testing.T) {
	for _, tc := range []struct {
		in    string
		limit int
		line  int // of the TooLargeError, 0: none
	}{
		{"", 0, 0},
		{"abc", 3, 0},
		{"abcd", 3, 1},
		{"a\nb\nc\nd", 4, 3}, // the bound falls after "a\nb\n"
		{"a\nb\nc\nd", 7, 0},
		{"\n\n\n\n", 3, 4},
	} {
		b, err := ReadAll(strings.NewReader(tc.in), tc.limit)
		var tl *TooLargeError
		switch {
		case tc.line == 0 && (err != nil || string(b) != tc.in):
			t.Errorf("%q, %d: %q, %v", tc.in, tc.limit, b, err)
		case tc.line != 0 && (!errors.As(err, &tl) || tl.Line != tc.line || tl.Limit != tc.limit || b != nil):
			t.Errorf("%q, %d: %q, %v; want line %d", tc.in, tc.limit, b, err, tc.line)
		}
	}
	// It reads no more than limit+1 bytes of a longer input.
	r := &countReader{r: strings.NewReader(strings.Repeat("x", 1<<20))}
	if _, err := ReadAll(r, 100); err == nil || r.n > 101 {
		t.Errorf("read %d bytes (%v), want at most 101", r.n, err)
	}
	if _, err := ReadAll(iotest.ErrReader(io.ErrUnexpectedEOF), 10); err != io.ErrUnexpectedEOF {
		t.Errorf("read error: %v", err)
	}
}

type countReader struct {
	r io.Reader
	n int
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}
