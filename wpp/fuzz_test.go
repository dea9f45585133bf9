package wpp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func FuzzParse(f *testing.F) {
	f.Add(allTypes)
	if b, err := os.ReadFile(filepath.Join("..", "testdata", "etl", "wpp.tmf")); err == nil {
		f.Add(string(b))
	}
	f.Add("11111111-2222-3333-4444-555555555555 C\n#typev a 10 \"%0%10!d! %!FUNC! %!FILE!:%!LINE!\"\n{\nx, ItemSetLong(a,b) -- 10\n}\n")
	f.Fuzz(func(t *testing.T, s string) {
		file, err := Parse(strings.NewReader(s), "fuzz.tmf")
		if err != nil {
			return
		}
		schemas, _ := file.Schemas()
		for _, ev := range schemas {
			if ev == nil {
				t.Fatal("nil schema")
			}
		}
	})
}
