package tables

import (
	"io"
	"strings"
	"testing"
)

// TestPartName: the first part has the bare name, the next ones -N.
func TestPartName(t *testing.T) {
	for _, c := range []struct {
		base string
		n    int
		want string
	}{{"events", 1, "events.parquet"}, {"events", 2, "events-2.parquet"}, {"trace.etl", 12, "trace.etl-12.parquet"}} {
		if got := PartName(c.base, c.n); got != c.want {
			t.Errorf("PartName(%q, %d) = %q, want %q", c.base, c.n, got, c.want)
		}
	}
}

// TestPartNumber: PartNumber inverts PartName for the parts after the
// first and refuses every name PartName does not write.
func TestPartNumber(t *testing.T) {
	for n := 2; n < 120; n++ {
		if got, ok := PartNumber("events", PartName("events", n)); !ok || got != n {
			t.Errorf("PartNumber(PartName(events, %d)) = %d, %v", n, got, ok)
		}
	}
	for _, name := range []string{"events.parquet", "events-1.parquet", "events-02.parquet", "events-+3.parquet", "events--3.parquet",
		"events-3.parquet.tmp", "events-x.parquet", "events-.parquet", "stacks-3.parquet", "events-3"} {
		if n, ok := PartNumber("events", name); ok {
			t.Errorf("PartNumber(events, %q) = %d, true", name, n)
		}
	}
}

// TestNumberParts: each table's files are numbered from 1 in the order
// they are asked for, whatever the other tables do, and create's error
// is the writer's.
func TestNumberParts(t *testing.T) {
	var got []string
	create := NumberParts(func(table string, part int) (io.WriteCloser, error) {
		got = append(got, PartName(table, part))
		if table == "bad" {
			return nil, errFull
		}
		return &memFile{}, nil
	})
	for _, table := range []string{"events", "stacks", "events", "events", "stacks", "bad"} {
		if _, err := create(table); (err != nil) != (table == "bad") {
			t.Errorf("create(%s): %v", table, err)
		}
	}
	want := "events.parquet stacks.parquet events-2.parquet events-3.parquet stacks-2.parquet bad.parquet"
	if strings.Join(got, " ") != want {
		t.Errorf("files %s, want %s", strings.Join(got, " "), want)
	}
}
