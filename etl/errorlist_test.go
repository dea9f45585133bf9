package etl

import (
	"errors"
	"io"
	"testing"
)

func TestErrorList(t *testing.T) {
	var l ErrorList
	if l.Err() != nil || len(l) != 0 {
		t.Fatalf("empty list: Err %v, Len %d", l.Err(), len(l))
	}
	fe := &FormatError{Offset: 0x6000, Msg: "invalid buffer header"}
	l = append(l, fe, io.ErrUnexpectedEOF)
	err := l.Err()
	if want := errors.Join(fe, io.ErrUnexpectedEOF).Error(); err.Error() != want {
		t.Errorf("Error() = %q, want errors.Join's %q", err, want)
	}
	var got ErrorList
	var gotFE *FormatError
	if !errors.As(err, &got) || len(got) != 2 || !errors.As(err, &gotFE) || gotFE != fe || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("errors.As/Is do not see the list's errors: %v", err)
	}
}
