package tracerpt

import (
	"reflect"
	"testing"
)

// TestGroupSequences: the members of a sequence are one group, the .etl
// first and the rest by number; other names are their own groups.
func TestGroupSequences(t *testing.T) {
	got := GroupSequences([]string{"b/x.etl.010", "a.etl", "b/x.etl.9", "b/x.etl", "c.etl.1", "d.etl.", "e.log.1", "f.etl.1a"})
	want := [][]string{{"a.etl"}, {"b/x.etl", "b/x.etl.9", "b/x.etl.010"}, {"c.etl.1"}, {"d.etl."}, {"e.log.1"}, {"f.etl.1a"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("GroupSequences = %q, want %q", got, want)
	}
}
