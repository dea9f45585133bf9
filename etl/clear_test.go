package etl_test

import (
	"reflect"
	"testing"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/etltest"
)

// poison sets every field of ev to a value no record gives (all bits set,
// a stray slice), as a walk's event holds another kind's record before it
// is parsed again.
func poison(ev *etl.Event) {
	stray := make([]byte, 3)
	v := reflect.ValueOf(ev).Elem()
	var set func(f reflect.Value)
	set = func(f reflect.Value) {
		switch f.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			f.SetInt(-1)
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			f.SetUint(^uint64(0))
		case reflect.Array, reflect.Struct:
			n := f.Len
			if f.Kind() == reflect.Struct {
				n = f.NumField
			}
			for i := range n() {
				if f.Kind() == reflect.Struct {
					set(f.Field(i))
				} else {
					set(f.Index(i))
				}
			}
		case reflect.Slice:
			if f.Type().Elem().Kind() == reflect.Uint8 {
				f.Set(reflect.ValueOf(stray))
			} else {
				f.Set(reflect.MakeSlice(f.Type(), 1, 1))
			}
		}
	}
	for i := range v.NumField() {
		set(v.Field(i))
	}
}

// TestParseClearsEvent walks every buffer of the sample, the corpus and
// the attack files twice, once into a fresh event a record and once into
// one poisoned before each record: what the walk gives must not depend on
// what the event held (the parser clears or sets every field).
func TestParseClearsEvent(t *testing.T) {
	t.Run("sample", func(t *testing.T) {
		walkTwice(t, []*etl.File{open(t, etltest.Sample())})
	})
	t.Run("corpus", func(t *testing.T) {
		walkTwice(t, etltest.OpenFiles(t, etltest.CorpusTraces(t)...))
	})
	t.Run("attack", func(t *testing.T) {
		var files []*etl.File
		for _, p := range etltest.AttackTraces(t) {
			if f, err := etl.Open(p); err == nil { // hostile: some do not open
				t.Cleanup(func() { f.Close() })
				files = append(files, f)
			}
		}
		walkTwice(t, files)
	})
}

// walkTwice is TestParseClearsEvent's walk of files.
func walkTwice(t *testing.T, files []*etl.File) {
	records := 0
	var fresh, reused etl.RecordReader
	var kept etl.Event
	for _, f := range files {
		for _, bi := range f.Buffers() {
			buf, err := f.ReadBuffer(bi)
			if err != nil {
				continue
			}
			fresh.Reset(buf)
			reused.Reset(buf)
			for {
				var ev etl.Event
				ok := fresh.Next(&ev)
				poison(&kept)
				if ok2 := reused.Next(&kept); ok2 != ok {
					t.Fatalf("%s +%#x: Next %v into a fresh event, %v into a used one", f.Name, bi.FileOffset, ok, ok2)
				}
				if !ok {
					break
				}
				records++
				if !reflect.DeepEqual(ev, kept) {
					t.Fatalf("%s +%#x+%#x: a used event parses to\n%+v\nwant\n%+v", f.Name, bi.FileOffset, ev.RecordOffset, kept, ev)
				}
			}
			buf.Release()
		}
	}
	if records == 0 {
		t.Fatal("no records walked")
	}
	t.Logf("%d records", records)
}
