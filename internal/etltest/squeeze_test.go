package etltest

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSqueezeExpand(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "etl")
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".etl") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		s := Squeeze(b)
		if got := Expand(s, 1<<20); !bytes.Equal(got, b) {
			t.Errorf("%s: squeezed to %d bytes, expanded to %d, not the file (%d bytes)", e.Name(), len(s), len(got), len(b))
		}
		if len(s) >= len(b) && e.Name() != "compressed.etl" {
			t.Errorf("%s: squeezed to %d bytes of %d", e.Name(), len(s), len(b))
		}
	}
	Expand([]byte{0xFF}, 10)
	Expand(bytes.Repeat([]byte{0x48, 0, 0, 0x10}, 40), 1<<20)
}
