package wpp

import (
	"errors"
	"fmt"
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

// TestItems: an argument block after many #typev lines gives its
// arguments to each message; 20,000 of each (a 1 MB file) took 4.5 GB
// and over a minute. What a file describes is bounded by MaxItems,
// refused at the line where it passes.
func TestItems(t *testing.T) {
	var b strings.Builder
	b.WriteString("c0ffee00-1234-4abc-9def-0123456789ab Fixture // SRC=fixture.c\n")
	const n = 1000 // 1,000,000 arguments in all
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "#typev f%d 10 \"%%0 v %%10!d!\"\n", i)
	}
	b.WriteString("{\n")
	for i := 0; i < n; i++ {
		b.WriteString("a, ItemLong -- 10\n")
	}
	b.WriteString("}\n")
	_, err := Parse(strings.NewReader(b.String()), "quad.tmf")
	var e *Error
	if !errors.As(err, &e) || e.Line != 2+n+1+n || !strings.Contains(e.Msg, "wpp.MaxItems") {
		t.Fatalf("error %v, want line %d and the limit", err, 2+n+1+n)
	}
	// Many messages sharing a block within the bound parse, each with
	// the block's arguments.
	b.Reset()
	b.WriteString("c0ffee00-1234-4abc-9def-0123456789ab Fixture // SRC=fixture.c\n")
	for i := 0; i < 100; i++ {
		fmt.Fprintf(&b, "#typev f%d %d \"%%0 v %%10!d! %%11!d!\"\n", i, i)
	}
	b.WriteString("{\na, ItemLong -- 10\nb, ItemLong -- 11\n}\n")
	f, err := Parse(strings.NewReader(b.String()), "shared.tmf")
	if err != nil {
		t.Fatal(err)
	}
	schemas, skipped := f.Schemas()
	if len(schemas) != 100 || len(skipped) != 0 || len(schemas[99].Properties) != 2 {
		t.Errorf("%d schemas, %d skipped", len(schemas), len(skipped))
	}
}
