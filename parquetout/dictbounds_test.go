package parquetout

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// TestDictPageBounds checks that a dictionary column's page bounds are
// the library's, over random dictionaries and pages, and that a page's
// bounds follow the values written after they were first asked.
func TestDictPageBounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	typ := dictStringType{parquet.String().Type()}
	for round := range 200 {
		dict := typ.NewDictionary(3, 0, typ.NewValues(nil, nil))
		buf := dict.Type().NewColumnBuffer(3, 0)
		if _, ok := buf.(*boundsBuffer); !ok {
			t.Fatalf("column buffer %T, want *boundsBuffer", buf)
		}
		distinct := 1 + rng.IntN(300)
		words := make([][]byte, distinct)
		for i := range words {
			w := make([]byte, rng.IntN(6))
			for j := range w {
				w[j] = byte('a' + rng.IntN(4))
			}
			words[i] = w
		}
		for step := range 3 {
			values := make([]parquet.Value, 1+rng.IntN(2000))
			for i := range values {
				values[i] = parquet.ByteArrayValue(words[rng.IntN(len(words))])
			}
			if _, err := buf.WriteValues(values); err != nil {
				t.Fatal(err)
			}
			page := buf.Page()
			data := page.Data()
			idx := data.Int32()
			wantMin, wantMax := dict.Bounds(idx)
			for range 2 { // computed, then kept
				gotMin, gotMax, ok := page.Bounds()
				if !ok || !bytes.Equal(gotMin.ByteArray(), wantMin.ByteArray()) || !bytes.Equal(gotMax.ByteArray(), wantMax.ByteArray()) {
					t.Fatalf("round %d step %d: bounds %q %q %v, want %q %q", round, step,
						gotMin.ByteArray(), gotMax.ByteArray(), ok, wantMin.ByteArray(), wantMax.ByteArray())
				}
				if gotMin.Column() != 3 || gotMax.Column() != 3 {
					t.Fatalf("bounds' column %d %d, want 3", gotMin.Column(), gotMax.Column())
				}
			}
		}
		buf.Reset()
		if _, _, ok := buf.Page().Bounds(); ok {
			t.Fatal("bounds of an empty page")
		}
	}
}

// TestDictStringSchema checks that the wrapped dictionary string type
// leaves the schema as the library's.
func TestDictStringSchema(t *testing.T) {
	want := parquet.NewSchema("t", parquet.Group{"s": parquet.Optional(parquet.Encoded(parquet.String(), &parquet.RLEDictionary))})
	got := parquet.NewSchema("t", parquet.Group{"s": parquet.Optional(dictString())})
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("schema\n%v\nwant\n%v", got, want)
	}
}
