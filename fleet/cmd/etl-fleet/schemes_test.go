package main

import (
	"context"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
)

// TestSchemes: the binary registers the file systems docs/fleet.md names
// for --input and --output (s3:// through AWS's default configuration;
// gs:// is registered too, but its client wants credentials to start),
// and an unknown scheme is an error, not a silent local path.
func TestSchemes(t *testing.T) {
	ctx := context.Background()
	for _, p := range []string{"/traces/a.etl", "s3://bucket/traces/a.etl"} {
		fs, err := filesystem.New(ctx, p)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		fs.Close()
	}
	if _, err := filesystem.New(ctx, "nosuch://bucket/a.etl"); err == nil {
		t.Error("nosuch:// accepted")
	}
}
