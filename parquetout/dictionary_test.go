package parquetout

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
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
		if _, ok := buf.(*dictBuffer); !ok {
			t.Fatalf("column buffer %T, want *dictBuffer", buf)
		}
		distinct := 1 + rng.IntN(300)
		words := make([][]byte, distinct)
		for i := range words {
			words[i] = randomWord(rng, 6, 4)
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

// TestDictBufferIndexes checks that a dictionary column's buffer gives the
// values the indexes, and the dictionary the values in the order, that the
// library's indexed buffer does: over random values, after the dictionary
// is reset (as for each row group) and after values were inserted into the
// dictionary behind the cache's back.
func TestDictBufferIndexes(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	typ := dictStringType{parquet.String().Type()}
	lib := parquet.String().Type()
	for round := range 50 {
		dict := typ.NewDictionary(0, 0, typ.NewValues(nil, nil))
		want := lib.NewDictionary(0, 0, lib.NewValues(nil, nil))
		buf, wantBuf := dict.Type().NewColumnBuffer(0, 0), want.Type().NewColumnBuffer(0, 0)
		words := make([][]byte, 1+rng.IntN(500))
		for i := range words {
			words[i] = fmt.Appendf(nil, "w%d", rng.IntN(1000))
		}
		for step := range 6 {
			switch step {
			case 2:
				dict.Reset()
				want.Reset()
			case 4:
				extra := []parquet.Value{parquet.ByteArrayValue([]byte("extra")), parquet.ByteArrayValue(words[0])}
				dict.Insert(make([]int32, 2), extra)
				want.Insert(make([]int32, 2), extra)
			}
			buf.Reset()
			wantBuf.Reset()
			for range 1 + rng.IntN(20) {
				values := make([]parquet.Value, rng.IntN(300))
				for i := range values {
					w := words[rng.IntN(len(words))]
					if rng.IntN(4) == 0 {
						w = words[0]
					}
					values[i] = parquet.ByteArrayValue(append([]byte(nil), w...))
				}
				if _, err := buf.WriteValues(values); err != nil {
					t.Fatal(err)
				}
				if _, err := wantBuf.WriteValues(values); err != nil {
					t.Fatal(err)
				}
			}
			got, exp := buf.Page().Data(), wantBuf.Page().Data()
			if !slices.Equal(got.Int32(), exp.Int32()) {
				t.Fatalf("round %d step %d: indexes differ", round, step)
			}
			if buf.Len() != wantBuf.Len() || buf.Size() != wantBuf.Size() || buf.Page().NumValues() != wantBuf.Page().NumValues() {
				t.Fatalf("round %d step %d: len %d size %d, want %d %d", round, step, buf.Len(), buf.Size(), wantBuf.Len(), wantBuf.Size())
			}
			gd, wd := dict.Page().Data(), want.Page().Data()
			gv, _ := gd.ByteArray()
			wv, _ := wd.ByteArray()
			if dict.Len() != want.Len() || !bytes.Equal(gv, wv) {
				t.Fatalf("round %d step %d: dictionaries differ (%d, %d values)", round, step, dict.Len(), want.Len())
			}
			read := make([]parquet.Value, buf.Len()+1)
			n, err := buf.ReadValuesAt(read, 0)
			if n != buf.Len() || (err != io.EOF && n < len(read)) {
				t.Fatalf("ReadValuesAt: %d values, %v", n, err)
			}
			for i, k := range got.Int32() {
				if !bytes.Equal(read[i].ByteArray(), want.Index(k).ByteArray()) {
					t.Fatalf("value %d read %q, want %q", i, read[i].ByteArray(), want.Index(k).ByteArray())
				}
			}
		}
	}
}

// TestDictBufferValuesElsewhere checks that values that reached the
// library's own buffer under a dictBuffer (not through WriteValues) make
// its page a panic, which the encoder turns into an error, not a page
// without them.
func TestDictBufferValuesElsewhere(t *testing.T) {
	typ := dictStringType{parquet.String().Type()}
	dict := typ.NewDictionary(0, 0, typ.NewValues(nil, nil))
	buf := dict.Type().NewColumnBuffer(0, 0).(*dictBuffer)
	if _, err := buf.ColumnBuffer.WriteValues([]parquet.Value{parquet.ByteArrayValue([]byte("x"))}); err != nil {
		t.Fatal(err)
	}
	if buf.Len() != 1 {
		t.Fatalf("Len %d with a value outside the buffer, want 1 (the column writer asks a buffer of none for no page)", buf.Len())
	}
	defer func() {
		if recover() == nil {
			t.Fatal("no panic for values outside the buffer")
		}
	}()
	buf.Page()
}

// TestDictColumnPlainFallback checks that a dictionary column whose
// dictionary outgrows DictionaryMaxBytes (parquet-go then writes the
// column's next pages PLAIN, through the column's type, which it cannot
// unwrap) ends in an error, not in a file of indexes written as strings,
// and that the library's own column writes the same rows into a file that
// reads back.
func TestDictColumnPlainFallback(t *testing.T) {
	for _, lib := range []bool{false, true} {
		node := dictString()
		if lib {
			node = parquet.Encoded(parquet.String(), &parquet.RLEDictionary)
		}
		var out bytes.Buffer
		schema := parquet.NewSchema("t", parquet.Group{"s": node})
		w := parquet.NewGenericWriter[any](&out, schema, parquet.DictionaryMaxBytes(64), parquet.PageBufferSize(256))
		crg := w.BeginRowGroup()
		cw := crg.ColumnWriters()[0]
		var err error
		for i := 0; i < 400 && err == nil; i++ {
			v := parquet.ByteArrayValue(fmt.Appendf(nil, "value-%d", i%50)).Level(0, 0, 0)
			_, err = cw.WriteRowValues([]parquet.Value{v})
		}
		if err == nil {
			err = crg.Flush()
		}
		if err == nil {
			_, err = crg.Commit()
		}
		if err == nil {
			err = w.Close()
		}
		if !lib {
			if err == nil || !strings.Contains(err.Error(), "not as indexes into its dictionary") {
				t.Fatalf("dictString column past DictionaryMaxBytes: error %v, want the PLAIN page refused", err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		f, err := parquet.OpenFile(bytes.NewReader(out.Bytes()), int64(out.Len()))
		if err != nil {
			t.Fatal(err)
		}
		rows := make([]parquet.Row, 401)
		n, _ := parquet.NewReader(f).ReadRows(rows)
		if n != 400 {
			t.Fatalf("library column: read %d rows, want 400", n)
		}
		for i, r := range rows[:n] {
			if got, want := string(r[0].ByteArray()), fmt.Sprintf("value-%d", i%50); got != want {
				t.Fatalf("library column: row %d %q, want %q", i, got, want)
			}
		}
	}
}

// columnBufferMethods returns the names of the exported methods of
// parquet-go's ColumnBuffer, sorted.
func columnBufferMethods() []string {
	iface := reflect.TypeFor[parquet.ColumnBuffer]()
	var names []string
	for i := range iface.NumMethod() {
		if m := iface.Method(i); m.IsExported() {
			names = append(names, m.Name)
		}
	}
	return names
}

// TestDictBufferMethods checks that every exported method of parquet-go's
// ColumnBuffer is one dictBuffer declares or one it leaves to the library
// buffer it embeds (empty: only its type, column, dictionary and bloom
// filter are right), so that a method a later parquet-go adds is looked
// at before the empty buffer answers it.
func TestDictBufferMethods(t *testing.T) {
	declared := []string{"Cap", "Clone", "ColumnIndex", "Len", "Less", "NumValues", "OffsetIndex", "Page", "Pages",
		"ReadValuesAt", "Reset", "Size", "Swap", "WriteValues"}
	library := []string{"BloomFilter", "Column", "Dictionary", "Type"}
	got := columnBufferMethods()
	want := slices.Sorted(slices.Values(append(declared, library...)))
	if !slices.Equal(got, want) {
		t.Fatalf("parquet-go's ColumnBuffer methods %v, dictBuffer knows of %v", got, want)
	}
	// The declared methods answer for the values written, not the empty
	// library buffer.
	typ := dictStringType{parquet.String().Type()}
	buf := typ.NewDictionary(0, 0, typ.NewValues(nil, nil)).Type().NewColumnBuffer(0, 0).(*dictBuffer)
	if _, err := buf.WriteValues([]parquet.Value{parquet.ByteArrayValue([]byte("b")), parquet.ByteArrayValue([]byte("a"))}); err != nil {
		t.Fatal(err)
	}
	if buf.Len() != 2 || buf.NumValues() != 2 || buf.Size() != 8 || buf.Clone().Len() != 2 || buf.Page().NumValues() != 2 || !buf.Less(1, 0) {
		t.Fatalf("dictBuffer len %d values %d size %d", buf.Len(), buf.NumValues(), buf.Size())
	}
	if _, err := buf.ColumnIndex(); err == nil {
		t.Error("a dictBuffer gave a column index")
	}
	if _, err := buf.OffsetIndex(); err == nil {
		t.Error("a dictBuffer gave an offset index")
	}
}

// TestKeepBoundsOptions checks that keepBounds keeps a plain leaf's type
// and refuses a node whose options it would drop.
func TestKeepBoundsOptions(t *testing.T) {
	if got := keepBounds(parquet.Uint(32)); got.Type().String() != parquet.Uint(32).Type().String() || got.Optional() {
		t.Fatalf("keepBounds(Uint(32)) is %v", got)
	}
	for _, n := range []parquet.Node{parquet.Optional(parquet.String()), parquet.Repeated(parquet.Int(64)),
		parquet.Encoded(parquet.String(), &parquet.RLEDictionary), parquet.Compressed(parquet.String(), &parquet.Zstd)} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("keepBounds(%v) did not panic", n)
				}
			}()
			keepBounds(n)
		}()
	}
}

// TestStrWords checks that a value of up to 16 bytes is its length and
// strWords: every value of up to 4 bytes over three letters, and random
// ones to 16 bytes that differ in one byte, all tell apart.
func TestStrWords(t *testing.T) {
	type key struct {
		n      int
		w0, w1 uint64
	}
	seen := map[key]string{}
	var walk func(v []byte)
	walk = func(v []byte) {
		w0, w1 := strWords(v)
		k := key{len(v), w0, w1}
		if s, ok := seen[k]; ok {
			t.Fatalf("%q and %q have the same words", s, v)
		}
		seen[k] = string(v)
		if len(v) < 4 {
			for c := range byte(3) {
				walk(append(v, c))
			}
		}
	}
	walk(nil)
	rng := rand.New(rand.NewPCG(5, 6))
	for range 20000 {
		v := make([]byte, rng.IntN(17))
		for i := range v {
			v[i] = byte(rng.IntN(3))
		}
		if len(v) == 0 {
			continue
		}
		w := slices.Clone(v)
		w[rng.IntN(len(w))]++
		a0, a1 := strWords(v)
		b0, b1 := strWords(w)
		if a0 == b0 && a1 == b1 {
			t.Fatalf("%q and %q have the same words", v, w)
		}
	}
}

// TestDictCacheLongValues checks the cache's indexes against the
// library's dictionary for values longer than 16 bytes that agree in
// their length and first and last eight bytes and differ between them.
func TestDictCacheLongValues(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	typ := dictStringType{parquet.String().Type()}
	lib := parquet.String().Type()
	dict := typ.NewDictionary(0, 0, typ.NewValues(nil, nil))
	want := lib.NewDictionary(0, 0, lib.NewValues(nil, nil))
	buf, wantBuf := dict.Type().NewColumnBuffer(0, 0), want.Type().NewColumnBuffer(0, 0)
	words := make([][]byte, 300)
	for i := range words {
		mid := strings.Repeat("x", rng.IntN(30))
		words[i] = fmt.Appendf(nil, `C:\Windows\%s%c\ntdll.dll`, mid, 'a'+rng.IntN(3))
	}
	for range 30 {
		values := make([]parquet.Value, rng.IntN(200))
		for i := range values {
			values[i] = parquet.ByteArrayValue(slices.Clone(words[rng.IntN(len(words))]))
		}
		if _, err := buf.WriteValues(values); err != nil {
			t.Fatal(err)
		}
		if _, err := wantBuf.WriteValues(values); err != nil {
			t.Fatal(err)
		}
	}
	got, exp := buf.Page().Data(), wantBuf.Page().Data()
	if !slices.Equal(got.Int32(), exp.Int32()) || dict.Len() != want.Len() {
		t.Fatalf("indexes or dictionaries differ (%d, %d values)", dict.Len(), want.Len())
	}
}
