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
