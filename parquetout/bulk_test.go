package parquetout

import (
	"bytes"
	"encoding/binary"
	"io"
	"math"
	"math/rand/v2"
	"testing"
)

// genRecords returns n records of random fields: the fixed part's
// integers at random (FILETIMEs at the ends of their range among them:
// "time" saturates, "time_ns" is null), strings present, absent or empty,
// in runs of rows of one kind so that some chunks have columns null in
// every row and others none, stacks of a few frames or none, and long
// property texts now and then (pages of a few rows).
func genRecords(rng *rand.Rand, n int) []byte {
	var out []byte
	words := []string{"", "a", "kernel", "Microsoft-Windows-Kernel-Process", "ProcessStart", "win:Info", "x/y", "ntdll.dll"}
	mode := 0
	for i := range n {
		if i%97 == 0 {
			mode = rng.IntN(4) // 0: strings mixed, 1: all absent, 2: all present, 3: all empty
		}
		start := len(out)
		out = append(out, make([]byte, fixedSize)...)
		f := out[start:]
		ft := int64(133_000_000_000_000_000 + rng.Int64N(1<<40))
		switch rng.IntN(50) {
		case 0:
			ft = math.MaxInt64
		case 1:
			ft = math.MinInt64
		case 2:
			ft = 0
		}
		putU64(f, offTime, uint64(ft))
		for off := offRaw; off < offPresent; off += 4 {
			putU32(f, off, rng.Uint32())
		}
		if rng.IntN(10) == 0 {
			putU64(f, offKeywords, math.MaxUint64) // the largest unsigned value
			putU32(f, offPID, math.MaxUint32)
		}
		putU32(f, offPresent, rng.Uint32()&(1<<7-1))
		f[offHeader] = byte(rng.IntN(24))
		f[offSchemaVer] = byte(rng.IntN(3))
		for s := range nStrings {
			present := mode == 2 || mode == 3 || (mode == 0 && rng.IntN(3) > 0)
			switch {
			case s == sProviderGUID:
				out = appendStr(out, words[rng.IntN(len(words))]) // required
			case !present:
				out = appendAbsent(out)
			case mode == 3:
				out = appendStr(out, "")
			case s == sProperties && rng.IntN(20) == 0:
				out = appendStr(out, bytes.Repeat([]byte(`{"k":1}`), 1+rng.IntN(3000)))
			default:
				out = appendStr(out, words[rng.IntN(len(words))])
			}
		}
		nf := rng.IntN(4)
		out = binary.LittleEndian.AppendUint32(out, uint32(nf))
		if nf > 0 {
			out = binary.LittleEndian.AppendUint64(out, uint64(rng.IntN(5)))
			at := len(out)
			out = binary.LittleEndian.AppendUint32(out, 0)
			for range nf {
				out = binary.LittleEndian.AppendUint64(out, rng.Uint64())
				out = binary.LittleEndian.AppendUint64(out, rng.Uint64N(1<<20))
				flags := byte(rng.IntN(4))
				out = append(out, flags)
				out = appendStr(out, words[rng.IntN(len(words))])
				out = appendStr(out, words[rng.IntN(len(words))])
			}
			putU32(out, at, uint32(len(out)-at-4))
		}
		putU32(out, start, uint32(len(out)-start))
	}
	return out
}

// writeGen writes records through a Writer with options o, cols
// goroutines for a chunk's columns, the bulk columns in bulk or not;
// extended, through NewExtendedWriter's Writer (two columns, files of
// 7,000 rows, one after the other in the bytes returned).
func writeGen(t *testing.T, records []byte, o *Options, cols int, bulk, extended bool) []byte {
	t.Helper()
	var out bytes.Buffer
	var w *Writer
	if extended {
		n := int64(0)
		x := &Extension{Columns: []Column{{"trace", 32, false}, {"utid", 64, true}},
			Values: func(dst []int64) {
				n++
				dst[0], dst[1] = n%3, n%5
			},
			MaxFileRows: 7000, NextFile: func() (io.Writer, error) { return &out, nil }}
		var err error
		if w, err = NewExtendedWriter(&out, o, x); err != nil {
			t.Fatal(err)
		}
		w.SetEncoder(NewEncoder(nil, false))
	} else {
		w = NewWriter(&out, NewEncoder(nil, false), o)
	}
	w.colWorkers = cols
	if w.bulk != bulkColumns() {
		t.Fatalf("extended %v: the Writer writes columns %v in bulk, want %v", extended, w.bulk, bulkColumns())
	}
	if !bulk {
		w.bulk = [nMainColumns]bool{}
	}
	// Writes of a few records at a time, cut anywhere.
	for p := records; len(p) > 0; {
		n := min(len(p), 1+int(binary.LittleEndian.Uint32(p[:4])%5000))
		if _, err := w.Write(p[:n]); err != nil {
			t.Fatal(err)
		}
		p = p[n:]
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// TestBulkColumnsGenerated: the required integer header columns handed to
// their buffers in bulk make the file that their values written one by
// one through parquet-go's column writers make, byte for byte, over
// generated records (every field at random, FILETIMEs out of range,
// strings absent, empty or present in runs, all-null chunks, stacks or
// none, long texts), with default and 4 KiB pages (many pages a chunk),
// small row groups, zstd, pages in a temporary file, on one goroutine
// and on several; NewWriter's and NewExtendedWriter's (package tables'
// events) Writers.
func TestBulkColumnsGenerated(t *testing.T) {
	if bulkColumns() == ([nMainColumns]bool{}) {
		t.Fatal("no header column is written in bulk")
	}
	for c, on := range bulkColumns() {
		if on {
			if _, ok := mainFields()[c].node.Type().NewColumnBuffer(c, 0).(*bulkBuffer); !ok {
				t.Fatalf("column %d: buffer not a bulkBuffer", c)
			}
		}
	}
	rng := rand.New(rand.NewPCG(24, 2026))
	records := genRecords(rng, 20_000)
	for _, o := range []*Options{nil, {PageBufferSize: 4 << 10}, {RowGroupRows: 700, Compression: Zstd},
		{TempDir: t.TempDir(), PageBufferSize: 16 << 10}} {
		for _, extended := range []bool{false, true} {
			want := writeGen(t, records, o, 1, false, extended)
			for _, cols := range []int{1, 2, 5} {
				if got := writeGen(t, records, o, cols, true, extended); !bytes.Equal(got, want) {
					t.Errorf("%+v, extended %v, %d goroutines: bulk columns make %d bytes, values %d (or the same size, other bytes)", o, extended, cols, len(got), len(want))
				}
			}
		}
	}
}
