package etl_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/google/uuid"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/etltest"
)

// readAll opens b and reads every event in both orders, checking the
// invariants that must hold for any input.
func readAll(t *testing.T, b []byte) {
	f, err := etl.NewFile(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return
	}
	st := f.Scan()
	sum := 0
	for _, n := range st.HeaderTypes {
		sum += n
	}
	if sum != st.Events {
		t.Fatalf("header types sum to %d, events %d", sum, st.Events)
	}
	r := etl.NewReader([]*etl.File{f}, nil)
	n := 0
	for r.Next() {
		ev := r.Event()
		if len(ev.Raw) < 8 || len(ev.UserData) > len(ev.Raw) {
			t.Fatalf("event with %d raw bytes and %d user bytes", len(ev.Raw), len(ev.UserData))
		}
		for _, x := range ev.Extended {
			x.Value()
		}
		n++
	}
	r.Close()
	if n != st.Events {
		t.Fatalf("time order gave %d events, file order %d", n, st.Events)
	}
}

// FuzzFile feeds whole files to the buffer walk, the decompressors and the
// record parser.
func FuzzFile(f *testing.F) {
	f.Add(etltest.Sample())
	tf := etltest.NewFile(1024, false)
	tf.Compress = etltest.LiteralLZ77
	tf.AddBuffer(0, 0, ev64(1, 80000000010), ev64(2, 80000000020))
	f.Add(tf.Bytes())
	if os.Getenv("ETL_CORPUS") != "" {
		for _, p := range etltest.CorpusTraces(f) {
			if b, err := os.ReadFile(p); err == nil && len(b) <= 64<<10 {
				f.Add(b)
			}
		}
	}
	f.Fuzz(readAll)
}

// FuzzRecord feeds the bytes of one buffer's records to the record parser.
func FuzzRecord(f *testing.F) {
	rel := make([]byte, 16)
	etl.PutGUIDWindows(rel, provA)
	seeds := [][]byte{
		etltest.Sys(etl.HeaderSystem64, 0x8203, 0x0524, 5, 6, 80000000100, make([]byte, 24), []byte("x")),
		etltest.Sys(etl.HeaderCompact32, 2, 0x0301, 7, 8, 80000000200, nil, []byte{1, 2, 3}),
		etltest.Sys(etl.HeaderPerfInfo64, 2, 0x030A, 0, 0, 80000000300, nil, []byte{4}),
		etltest.Classic(etl.HeaderInstance32, 13, 2, 4, 11, 12, 80000000500, provA, []byte{7}),
		etltest.Event(etl.HeaderEvent64, 0, 1, 2, 80000000600, provB, etl.EventDescriptor{ID: 3}, uuid.Nil,
			[]etltest.Ext{{Type: etl.ExtRelatedActivityID, Data: rel}, {Type: etl.ExtSID, Data: []byte{1, 1, 0, 0, 0, 0, 0, 5, 18, 0, 0, 0}}}, []byte("p")),
		etltest.Message(17, 0x2F, make([]byte, 36), []byte("args")),
	}
	for _, s := range seeds {
		f.Add(s)
	}
	if os.Getenv("ETL_CORPUS") != "" {
		for _, rec := range corpusRecords(f, 200) {
			f.Add(rec)
		}
	}
	f.Fuzz(func(t *testing.T, rec []byte) {
		if len(rec) > 60000 {
			return
		}
		tf := etltest.NewFile(64<<10, true)
		b := tf.MakeBuffer(0, 0, etl.BufferTypeGeneric, nil)
		b = append(b, rec...)
		etltest.LE32(b[0x30:], uint32(len(b)))
		tf.Buffers = append(tf.Buffers, b)
		readAll(t, tf.Bytes())
	})
}

// corpusRecords returns up to max records per header type from the corpus.
func corpusRecords(t testing.TB, max int) [][]byte {
	var out [][]byte
	seen := map[etl.HeaderType]int{}
	for _, p := range etltest.CorpusTraces(t) {
		f, err := etl.Open(p)
		if err != nil {
			continue
		}
		r := etl.NewReader([]*etl.File{f}, &etl.ReaderOptions{Order: etl.FileOrder})
		for r.Next() {
			ev := r.Event()
			if seen[ev.Header] < max/10 {
				seen[ev.Header]++
				out = append(out, bytes.Clone(ev.Raw))
			}
		}
		r.Close()
		f.Close()
	}
	return out
}
