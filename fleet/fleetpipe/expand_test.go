package fleetpipe

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// Over the names List returned for the globs (BuildListed), the pipeline's
// first step emits the elements it emits over the globs (Build), without
// listing them again.
func TestExpandListed(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"b.etl", "a.etl", "c.etl", "c.etl.001", "c.etl.002"} {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	globs := []string{filepath.Join(dir, "*.etl"), filepath.Join(dir, "*.etl.*")}
	expand := func(f *expandFn, in []string) []Element {
		var got []Element
		if err := f.ProcessElement(ctx, in, func(e Element) { got = append(got, e) }); err != nil {
			t.Fatal(err)
		}
		return got
	}
	want := expand(&expandFn{}, globs)
	names, err := List(ctx, globs)
	if err != nil {
		t.Fatal(err)
	}
	if got := expand(&expandFn{Listed: true}, names); len(want) != 3 || !reflect.DeepEqual(got, want) {
		t.Errorf("over the listing: %v; over the globs: %v (want 3 elements)", got, want)
	}
	// The names are not listed again: a name that no longer exists is
	// still an element's file.
	if err := os.Remove(filepath.Join(dir, "a.etl")); err != nil {
		t.Fatal(err)
	}
	if got := expand(&expandFn{Listed: true}, names); !reflect.DeepEqual(got, want) {
		t.Errorf("listed again: %v, want %v", got, want)
	}
}
