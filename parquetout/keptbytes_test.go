package parquetout

import (
	"bytes"
	"io"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// TestKeptBytesMatchesLibrary checks a byte array column's keptBytes
// against the library's buffer over random values, page after page: the
// same length and size after every write (which decide where pages end),
// the same page data, encoding and bounds, and the same values read back;
// for the string, JSON and plain byte array types; keepBounds without
// room keeps the library's buffer.
func TestKeptBytesMatchesLibrary(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, lib := range []parquet.Type{parquet.String().Type(), parquet.JSON().Type(), parquet.ByteArrayType} {
		buf := keepRoom(parquet.Leaf(lib)).Type().NewColumnBuffer(2, 0)
		if _, ok := buf.(*keptBytes); !ok {
			t.Fatalf("%v: column buffer %T, want *keptBytes", lib, buf)
		}
		if other := keepBounds(parquet.Leaf(lib)).Type().NewColumnBuffer(2, 0); reflect.TypeOf(other) != reflect.TypeFor[*keptBuffer]() {
			t.Fatalf("%v: keepBounds' column buffer %T, want the library's in a *keptBuffer (the split tables')", lib, other)
		}
		for page := range 20 {
			want := lib.NewColumnBuffer(2, 0)
			for range 1 + rng.IntN(10) {
				values := make([]parquet.Value, rng.IntN(50))
				for i := range values {
					values[i] = parquet.ByteArrayValue(randomWord(rng, 40, 3))
				}
				if _, err := buf.WriteValues(values); err != nil {
					t.Fatal(err)
				}
				if _, err := want.WriteValues(values); err != nil {
					t.Fatal(err)
				}
				if buf.Len() != want.Len() || buf.Size() != want.Size() || buf.NumValues() != want.NumValues() {
					t.Fatalf("%v page %d: len %d size %d, want %d %d", lib, page, buf.Len(), buf.Size(), want.Len(), want.Size())
				}
			}
			got, exp := buf.Page(), want.Page()
			gd, ed := got.Data(), exp.Data()
			gv, go_ := gd.ByteArray()
			ev, eo := ed.ByteArray()
			if !bytes.Equal(gv, ev) || !slices.Equal(go_, eo) || got.NumValues() != exp.NumValues() || got.Type() != exp.Type() || got.Column() != 2 {
				t.Fatalf("%v page %d: page differs from the library's", lib, page)
			}
			genc, err := got.Type().Encode(nil, gd, &parquet.DeltaLengthByteArray)
			if err != nil {
				t.Fatal(err)
			}
			eenc, _ := exp.Type().Encode(nil, ed, &parquet.DeltaLengthByteArray)
			if !bytes.Equal(genc, eenc) {
				t.Fatalf("%v page %d: encoded page differs", lib, page)
			}
			gmin, gmax, gok := got.Bounds()
			emin, emax, eok := exp.Bounds()
			if gok != eok || !bytes.Equal(gmin.ByteArray(), emin.ByteArray()) || !bytes.Equal(gmax.ByteArray(), emax.ByteArray()) {
				t.Fatalf("%v page %d: bounds %q %q, want %q %q", lib, page, gmin.ByteArray(), gmax.ByteArray(), emin.ByteArray(), emax.ByteArray())
			}
			read := make([]parquet.Value, buf.Len()+1)
			n, err := buf.ReadValuesAt(read, 0)
			if n != buf.Len() || err != io.EOF {
				t.Fatalf("ReadValuesAt: %d values, %v", n, err)
			}
			for i := range n {
				if !bytes.Equal(read[i].ByteArray(), ev[eo[i]:eo[i+1]]) {
					t.Fatalf("value %d read %q", i, read[i].ByteArray())
				}
			}
			buf.Reset()
			if buf.Len() != 0 || buf.Size() != 0 {
				t.Fatalf("reset buffer: len %d size %d", buf.Len(), buf.Size())
			}
		}
	}
}

// TestKeptBytesSwap checks Less and Swap against the values swapped in a
// slice, and that the page after swaps holds the values in their order.
func TestKeptBytesSwap(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	buf := newKeptBytes(parquet.String().Type(), 0, 0)
	var want [][]byte
	for range 30 {
		v := randomWord(rng, 9, 26)
		want = append(want, v)
		if _, err := buf.WriteValues([]parquet.Value{parquet.ByteArrayValue(v)}); err != nil {
			t.Fatal(err)
		}
	}
	for range 200 {
		i, j := rng.IntN(len(want)), rng.IntN(len(want))
		if buf.Less(i, j) != (bytes.Compare(want[i], want[j]) < 0) {
			t.Fatalf("Less(%d, %d) wrong", i, j)
		}
		buf.Swap(i, j)
		want[i], want[j] = want[j], want[i]
	}
	data := buf.Page().Data()
	values, offsets := data.ByteArray()
	for i, w := range want {
		if got := values[offsets[i]:offsets[i+1]]; !bytes.Equal(got, w) {
			t.Fatalf("value %d is %q after swaps, want %q", i, got, w)
		}
	}
	if clone := buf.Clone(); clone.Len() != len(want) {
		t.Fatalf("clone of %d values", clone.Len())
	}
}

// TestKeptBytesMethods checks that every exported method of parquet-go's
// ColumnBuffer is one keptBytes declares or the library type it embeds
// answers, so that a method a later parquet-go adds is looked at before
// the empty library buffer answers it; and that values which reached that
// buffer fail the page, and the indexes are errors.
func TestKeptBytesMethods(t *testing.T) {
	declared := []string{"BloomFilter", "Cap", "Clone", "Column", "ColumnIndex", "Dictionary", "Len", "Less", "NumValues",
		"OffsetIndex", "Page", "Pages", "ReadValuesAt", "Reset", "Size", "Swap", "WriteValues"}
	library := []string{"Type"}
	got := columnBufferMethods()
	if want := slices.Sorted(slices.Values(append(declared, library...))); !slices.Equal(got, want) {
		t.Fatalf("parquet-go's ColumnBuffer methods %v, keptBytes knows of %v", got, want)
	}
	buf := newKeptBytes(parquet.String().Type(), 0, 0)
	if _, err := buf.ColumnIndex(); err == nil {
		t.Error("a keptBytes gave a column index")
	}
	if _, err := buf.OffsetIndex(); err == nil {
		t.Error("a keptBytes gave an offset index")
	}
	if _, err := buf.ColumnBuffer.WriteValues([]parquet.Value{parquet.ByteArrayValue([]byte("x"))}); err != nil {
		t.Fatal(err)
	}
	if buf.Len() != 1 {
		t.Fatalf("Len %d with a value in the library buffer, want 1", buf.Len())
	}
	defer func() {
		if recover() == nil {
			t.Error("the page of a keptBytes whose library buffer has values did not panic")
		}
	}()
	buf.Page()
}

// randomWord returns a word of fewer than n letters, each among the first
// letters of the alphabet.
func randomWord(rng *rand.Rand, n, letters int) []byte {
	w := make([]byte, rng.IntN(n))
	for j := range w {
		w[j] = byte('a' + rng.IntN(letters))
	}
	return w
}

// TestKeptBytesRoom checks that a keptBytes keeps its room from page to
// page, but not room past keptRoom that a page of large values left
// (kept to the end of the run, it held 1.4 MB for pages of 0.3-0.9 MB).
func TestKeptBytesRoom(t *testing.T) {
	b := keepRoom(parquet.Leaf(parquet.JSON().Type())).Type().NewColumnBuffer(0, 0).(*keptBytes)
	write := func(n, size int) {
		t.Helper()
		values := make([]parquet.Value, n)
		for i := range values {
			values[i] = parquet.ByteArrayValue(make([]byte, size))
		}
		if _, err := b.WriteValues(values); err != nil {
			t.Fatal(err)
		}
	}
	write(100, 1000)
	room := cap(b.values)
	b.Reset()
	if cap(b.values) != room || b.Size() != 0 {
		t.Fatalf("after a page of 100 KB: room %d, size %d; want the room kept (%d) and size 0", cap(b.values), b.Size(), room)
	}
	write(4, 290_000) // four large events' properties
	if got := b.Size(); got != 4*290_000+4*4 {
		t.Fatalf("size %d, want %d", got, 4*290_000+4*4)
	}
	b.Reset()
	if cap(b.values) > keptRoom {
		t.Errorf("after a page of 1.16 MB the buffer keeps %d bytes of room, want at most %d", cap(b.values), keptRoom)
	}
	write(100, 1000)
	if got := b.value(99); len(got) != 1000 {
		t.Errorf("value 99 after the reset: %d bytes, want 1000", len(got))
	}
}
