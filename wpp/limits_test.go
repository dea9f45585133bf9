package wpp

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// TestLongLine: a TMF line longer than MaxLineBytes is an error that names
// its line and the limit (it read "bufio.Scanner: token too long").
func TestLongLine(t *testing.T) {
	src := "// header\n" + strings.Repeat("x", MaxLineBytes+1) + "\n"
	_, err := Parse(strings.NewReader(src), "long.tmf")
	var e *Error
	if !errors.As(err, &e) || e.Line != 2 || !strings.Contains(e.Msg, "1048576-byte limit") {
		t.Errorf("error %v, want line 2 and the limit", err)
	}
	// At the limit the line is read.
	src = "// header\n// " + strings.Repeat("x", MaxLineBytes-3) + "\n"
	if _, err := Parse(strings.NewReader(src), "ok.tmf"); err != nil {
		t.Errorf("a line of %d bytes: %v", MaxLineBytes, err)
	}
}

// commentLine is a TMF comment line of 64 bytes.
const commentLine = "// padding padding padding padding padding padding padding padd\n"

// commentLines reads as n commentLines without holding them.
type commentLines struct{ n, off int }

func (c *commentLines) Read(p []byte) (int, error) {
	const line = commentLine
	if c.off >= c.n*len(line) {
		return 0, io.EOF
	}
	k := 0
	for k < len(p) && c.off < c.n*len(line) {
		p[k] = line[c.off%len(line)]
		k++
		c.off++
	}
	return k, nil
}

// TestInputSize: a TMF file over MaxInputBytes is refused at the line
// where the bound falls, after reading no more than that line.
func TestInputSize(t *testing.T) {
	if len(commentLine) != 64 {
		t.Fatalf("commentLine has %d bytes", len(commentLine))
	}
	r := &commentLines{n: MaxInputBytes/64 + 100}
	_, err := Parse(r, "big.tmf")
	var e *Error
	if !errors.As(err, &e) || e.Line != MaxInputBytes/64+1 || !strings.Contains(e.Msg, "wpp.MaxInputBytes") {
		t.Fatalf("error %v, want line %d and the limit", err, MaxInputBytes/64+1)
	}
	if r.off > MaxInputBytes+64<<10 {
		t.Errorf("read %d bytes for a limit of %d", r.off, MaxInputBytes)
	}
}
