package decode

import (
	"errors"
	"io/fs"
	"os"
	"strings"
	"testing"

	"github.com/etwkit/etw/etl"
)

// TestReadSchemasNotRegular: a folder given as a schema file is refused
// unopened, with the error etl.Open gives (a *fs.PathError wrapping
// etl.ErrNotRegular, naming the kind of file), so the command line's
// exit status is that of an input error.
func TestReadSchemasNotRegular(t *testing.T) {
	dir := t.TempDir() + "/x.man"
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	_, _, err := ReadSchemas(dir)
	var pe *fs.PathError
	if !errors.Is(err, etl.ErrNotRegular) || !errors.As(err, &pe) || pe.Path != dir || !strings.Contains(err.Error(), "a directory") {
		t.Fatalf("ReadSchemas(folder) = %v", err)
	}
}
