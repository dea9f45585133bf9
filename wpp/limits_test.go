package wpp

import (
	"errors"
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
