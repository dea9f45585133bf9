package tables

import (
	"errors"
	"io"
	"maps"
	"slices"
	"strings"
	"testing"
)

// nopCloser is an io.WriteCloser that keeps nothing.
type nopCloser struct{}

func (nopCloser) Write(p []byte) (int, error) { return len(p), nil }
func (nopCloser) Close() error                { return nil }

// TestNewWriterOpensNames: NewWriter creates one file per table of Names,
// in Names' order, Rows counts each of them, and a create that fails
// stops it with the error, naming the table.
func TestNewWriterOpensNames(t *testing.T) {
	var opened []string
	w, err := NewWriter(func(name string) (io.WriteCloser, error) {
		opened = append(opened, name)
		return nopCloser{}, nil
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(opened, Names) {
		t.Errorf("opened %v, want Names %v", opened, Names)
	}
	if rows := slices.Sorted(maps.Keys(w.Rows())); !slices.Equal(rows, slices.Sorted(slices.Values(Names))) {
		t.Errorf("Rows counts %v, want Names", rows)
	}

	full := errors.New("disk full")
	for _, name := range Names {
		_, err := NewWriter(func(n string) (io.WriteCloser, error) {
			if n == name {
				return nil, full
			}
			return nopCloser{}, nil
		}, nil)
		if !errors.Is(err, full) || !strings.Contains(err.Error(), "table "+name+":") {
			t.Errorf("create %s fails: NewWriter returned %v", name, err)
		}
	}
}
