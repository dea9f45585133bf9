package tables

import "testing"

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
