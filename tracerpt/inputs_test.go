package tracerpt

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestExpandInputs(t *testing.T) {
	dir := t.TempDir()
	touch := func(names ...string) {
		for _, n := range names {
			os.WriteFile(filepath.Join(dir, n), nil, 0o644)
		}
	}
	touch("a.etl", "b.etl", "auto.etl.001", "auto.etl.002", "auto.etl.010", "auto.etl.9", "auto.etl.bak")
	j := func(n ...string) []string {
		for i := range n {
			n[i] = filepath.Join(dir, n[i])
		}
		return n
	}
	got, err := ExpandInputs([]string{filepath.Join(dir, "auto.etl"), filepath.Join(dir, "*.etl"), filepath.Join(dir, "a.etl")})
	want := j("auto.etl.001", "auto.etl.002", "auto.etl.9", "auto.etl.010", "a.etl", "b.etl")
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("ExpandInputs = %q, %v\nwant %q", got, err, want)
	}
	got, _ = ExpandInputs([]string{filepath.Join(dir, "auto.etl.*")})
	if len(got) != 5 || got[2] != filepath.Join(dir, "auto.etl.9") || got[4] != filepath.Join(dir, "auto.etl.bak") {
		t.Errorf("glob of a sequence = %q", got)
	}
	if _, err := ExpandInputs([]string{filepath.Join(dir, "*.nope")}); err == nil {
		t.Error("a glob that matches nothing is an error")
	}
	if got, _ := ExpandInputs([]string{"missing.etl"}); !reflect.DeepEqual(got, []string{"missing.etl"}) {
		t.Errorf("missing file kept as given: %q", got)
	}
}
