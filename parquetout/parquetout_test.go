package parquetout_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/etwkit/etw/analysis"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/etltest"
	"github.com/etwkit/etw/parquetout"
	"github.com/etwkit/etw/pipeline"
	"github.com/etwkit/etw/tracerpt"
)

func fixture(t testing.TB, name string) string {
	p, err := filepath.Abs(filepath.Join("..", "testdata", "etl", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func open(t testing.TB, paths ...string) []*etl.File { return etltest.OpenFiles(t, paths...) }

func decoder(t testing.TB, imports ...string) *decode.Decoder {
	d := decode.New()
	for _, p := range imports {
		if err := d.Import(p); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

// dumpJSON returns the JSON dump's lines.
func dumpJSON(t testing.TB, files []*etl.File, dec *decode.Decoder, m *analysis.Model, workers int) []string {
	var out bytes.Buffer
	_, err := pipeline.Run(context.Background(), &pipeline.Config[byte]{Files: files, Decoder: dec, Encoder: tracerpt.NewEncoder(tracerpt.JSON, files, nil),
		Output: &out, Workers: workers, Analysis: m})
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
}

// dumpParquet returns the Parquet dump's bytes.
func dumpParquet(t testing.TB, files []*etl.File, dec *decode.Decoder, m *analysis.Model, workers int, o *parquetout.Options) []byte {
	var out bytes.Buffer
	enc := parquetout.NewEncoder(files, false)
	w := parquetout.NewWriter(&out, enc, o)
	_, err := pipeline.Run(context.Background(), &pipeline.Config[byte]{Files: files, Decoder: dec, Encoder: enc, Output: w, Workers: workers, Analysis: m})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// row is what the tests read of the events table.
type row struct {
	Time         int64    `parquet:"time"`
	TimeNS       *int64   `parquet:"time_ns,optional"`
	RelMS        *float64 `parquet:"rel_ms,optional"`
	Filetime     int64    `parquet:"filetime"`
	RawTimestamp int64    `parquet:"raw_timestamp"`
	CPU          uint16   `parquet:"cpu"`
	PID          uint32   `parquet:"pid"`
	TID          uint32   `parquet:"tid"`
	ProcessName  *string  `parquet:"process_name,optional"`
	Header       string   `parquet:"header"`
	Flags        uint16   `parquet:"flags"`
	ProviderGUID string   `parquet:"provider_guid"`
	EventID      uint16   `parquet:"event_id"`
	Keywords     uint64   `parquet:"keywords"`
	HookID       *uint16  `parquet:"hook_id,optional"`
	Extended     *string  `parquet:"extended,optional"`
	EventName    *string  `parquet:"event_name,optional"`
	LevelName    *string  `parquet:"level_name,optional"`
	Properties   *string  `parquet:"properties,optional"`
	Maps         *string  `parquet:"maps,optional"`
	Message      *string  `parquet:"message,optional"`
	UserData     []byte   `parquet:"user_data,optional"`
	DecodeError  *string  `parquet:"decode_error,optional"`
	Stack        []struct {
		Address uint64  `parquet:"address"`
		Module  *string `parquet:"module,optional"`
		Offset  *uint64 `parquet:"offset,optional"`
		Method  *string `parquet:"method,optional"`
	} `parquet:"stack,optional,list"`
}

func readRows(t testing.TB, b []byte) []row {
	rows, err := parquet.Read[row](bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// jsonLine is what the tests compare of a JSON line.
type jsonLine struct {
	Filetime     json.Number     `json:"filetime"`
	RawTimestamp json.Number     `json:"raw_timestamp"`
	RelMS        *float64        `json:"rel_ms"`
	TimeNS       json.Number     `json:"time_ns"`
	CPU          uint16          `json:"cpu"`
	PID          uint32          `json:"pid"`
	TID          uint32          `json:"tid"`
	ProcessName  *string         `json:"process_name"`
	Header       string          `json:"header"`
	Flags        uint16          `json:"flags"`
	ProviderGUID string          `json:"provider_guid"`
	EventID      uint16          `json:"event_id"`
	Keywords     json.Number     `json:"keywords"`
	HookID       *uint16         `json:"hook_id"`
	Extended     json.RawMessage `json:"extended"`
	EventName    *string         `json:"event_name"`
	LevelName    *string         `json:"level_name"`
	Properties   json.RawMessage `json:"properties"`
	Maps         json.RawMessage `json:"maps"`
	Message      *string         `json:"message"`
	UserData     *string         `json:"user_data"`
	DecodeError  *string         `json:"decode_error"`
	Stack        []struct {
		Address json.Number `json:"address"`
		Module  *string     `json:"module"`
		Offset  *uint64     `json:"offset"`
		Method  *string     `json:"method"`
	} `json:"stack"`
}

// compare checks that the Parquet rows carry what the JSON lines do.
func compare(t *testing.T, lines []string, rows []row) {
	t.Helper()
	if len(rows) != len(lines) {
		t.Fatalf("%d rows, %d JSON lines", len(rows), len(lines))
	}
	fails := 0
	for i, l := range lines {
		var j jsonLine
		if err := json.Unmarshal([]byte(l), &j); err != nil {
			t.Fatal(err)
		}
		r := &rows[i]
		str := func(p *string) string {
			if p == nil {
				return "<nil>"
			}
			return *p
		}
		raw := func(m json.RawMessage) string {
			if m == nil {
				return "<nil>"
			}
			return string(m)
		}
		var ud string
		if r.UserData != nil {
			ud = strings.ToLower(strings.TrimSpace(hexString(r.UserData)))
		}
		got := []any{r.Filetime, r.RawTimestamp, r.CPU, r.PID, r.TID, str(r.ProcessName), r.Header, r.Flags, r.ProviderGUID, r.EventID, r.Keywords,
			r.HookID != nil, str(r.Extended), str(r.EventName), str(r.LevelName), str(r.Properties), str(r.Maps), str(r.Message), ud, str(r.DecodeError), len(r.Stack)}
		ft, _ := j.Filetime.Int64()
		raws, _ := j.RawTimestamp.Int64()
		kw := mustUint(t, j.Keywords)
		jud := ""
		if j.UserData != nil {
			jud = *j.UserData
		}
		want := []any{ft, raws, j.CPU, j.PID, j.TID, str(j.ProcessName), j.Header, j.Flags, j.ProviderGUID, j.EventID, kw,
			j.HookID != nil, raw(j.Extended), str(j.EventName), str(j.LevelName), raw(j.Properties), raw(j.Maps), str(j.Message), jud, str(j.DecodeError), len(j.Stack)}
		for k := range got {
			if got[k] != want[k] {
				t.Errorf("row %d field %d: %v, JSON %v", i, k, got[k], want[k])
				fails++
			}
		}
		if j.HookID != nil && r.HookID != nil && *j.HookID != *r.HookID {
			t.Errorf("row %d hook_id %d, JSON %d", i, *r.HookID, *j.HookID)
		}
		if tn, _ := j.TimeNS.Int64(); r.TimeNS == nil || *r.TimeNS != tn || r.Time != floorDiv(tn, 1000) {
			t.Errorf("row %d time %d / %v, JSON time_ns %d", i, r.Time, r.TimeNS, tn)
		}
		if (j.RelMS == nil) != (r.RelMS == nil) || j.RelMS != nil && *j.RelMS != *r.RelMS {
			t.Errorf("row %d rel_ms %v, JSON %v", i, r.RelMS, j.RelMS)
		}
		for k, f := range j.Stack {
			g := r.Stack[k]
			if mustUint(t, f.Address) != g.Address || str(f.Module) != str(g.Module) || str(f.Method) != str(g.Method) ||
				(f.Offset == nil) != (g.Offset == nil) || f.Offset != nil && *f.Offset != *g.Offset {
				t.Errorf("row %d frame %d: %+v, JSON %+v", i, k, g, f)
			}
		}
		if fails > 20 {
			t.FailNow()
		}
	}
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

func mustUint(t *testing.T, n json.Number) uint64 {
	var u uint64
	if err := json.Unmarshal([]byte(n), &u); err != nil {
		t.Fatalf("%q: %v", n, err)
	}
	return u
}

func hexString(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, digits[c>>4], digits[c&15])
	}
	return string(out)
}

// TestWriterMatchesJSON: every fixture's events table holds, row by row,
// what its JSON dump says, with one worker and several, with row groups
// of a few rows (many row groups, chunks cut inside them) and the default.
func TestWriterMatchesJSON(t *testing.T) {
	for _, c := range []struct{ file, schema string }{
		{"sample.etl", ""}, {"manifest-types.etl", "manifest-types.man"}, {"classic.etl", "classic.mof"},
		{"tracelogging-types.etl", ""}, {"compressed.etl", ""}, {"wpp.etl", "wpp.tmf"}, {"record-kinds.etl", "classic.mof"},
		{"lost-events.etl", ""}, {"tracelogging-32.etl", ""},
	} {
		t.Run(c.file, func(t *testing.T) {
			var imp []string
			if c.schema != "" {
				imp = append(imp, fixture(t, c.schema))
			}
			files := open(t, fixture(t, c.file))
			dec := decoder(t, imp...)
			m, _ := analysis.Build(files, dec, nil)
			lines := dumpJSON(t, files, dec, m, 2)
			for _, workers := range []int{1, 3} {
				for _, o := range []*parquetout.Options{nil, {RowGroupRows: 7, Compression: parquetout.Zstd}} {
					whole := dumpParquet(t, files, dec, m, workers, o)
					compare(t, lines, readRows(t, whole))
					// Pages that wait in a file make the same file.
					so := parquetout.Options{TempDir: t.TempDir()}
					if o != nil {
						so = *o
						so.TempDir = t.TempDir()
					}
					if !bytes.Equal(dumpParquet(t, files, dec, m, workers, &so), whole) {
						t.Errorf("%d workers, %+v: another file with the pages in a temporary file", workers, so)
					}
				}
			}
		})
	}
}

// TestRecordsCutAnywhere: the writer takes records cut at any byte.
func TestRecordsCutAnywhere(t *testing.T) {
	files := open(t, fixture(t, "manifest-types.etl"))
	dec := decoder(t, fixture(t, "manifest-types.man"))
	var recs bytes.Buffer
	enc := parquetout.NewEncoder(files, false)
	if _, err := pipeline.Run(context.Background(), &pipeline.Config[byte]{Files: files, Decoder: dec, Encoder: enc, Output: &recs, Workers: 1}); err != nil {
		t.Fatal(err)
	}
	whole := dumpParquet(t, files, dec, nil, 1, nil)
	for _, step := range []int{1, 3, 17, 1000} {
		var out bytes.Buffer
		w := parquetout.NewWriter(&out, enc, nil)
		b := recs.Bytes()
		for len(b) > 0 {
			n := min(step, len(b))
			if _, err := w.Write(b[:n]); err != nil {
				t.Fatal(err)
			}
			b = b[n:]
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out.Bytes(), whole) {
			t.Errorf("writes of %d bytes give another file", step)
		}
	}
	// A truncated stream is an error, not a short file.
	w := parquetout.NewWriter(io.Discard, enc, nil)
	w.Write(recs.Bytes()[:recs.Len()-1])
	if err := w.Close(); err == nil {
		t.Error("no error for a truncated record")
	}
}

// TestSplitTables: one typed table per event type, with the values the
// JSON dump has.
func TestSplitTables(t *testing.T) {
	files := open(t, fixture(t, "manifest-types.etl"))
	dec := decoder(t, fixture(t, "manifest-types.man"))
	dir := t.TempDir()
	enc := parquetout.NewEncoder(files, false)
	w, err := parquetout.NewSplitWriter(dir, enc, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pipeline.Run(context.Background(), &pipeline.Config[byte]{Files: files, Decoder: dec, Encoder: enc, Output: w, Workers: 2}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	total := 0
	byName := map[string]string{}
	for _, p := range w.Files() {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		st, _ := f.Stat()
		pf, err := parquet.OpenFile(f, st.Size())
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		total += int(pf.NumRows())
		rel, _ := filepath.Rel(dir, p)
		byName[filepath.ToSlash(rel)] = pf.Schema().String()
		f.Close()
	}
	if info := files[0].Scan(); total != info.Events {
		t.Errorf("%d rows in %d tables, %d events", total, len(byName), info.Events)
	}
	ints, ok := byName["EtwKit-Fixtures-Manifest/IntegersEvent.parquet"]
	if !ok {
		t.Fatalf("no Integers table: %v", byName)
	}
	for _, col := range []string{"optional int32 I16 (INT(16,true))", "optional int64 U64 (INT(64,false))", "optional int32 Win32Error (INT(32,false))",
		"optional binary Win32Error_name (STRING)", "optional boolean Boolean", "optional binary IPv4 (STRING)", "optional double Double", "optional int64 Pointer (INT(64,false))"} {
		if !strings.Contains(ints, col) {
			t.Errorf("Integers table lacks %q:\n%s", col, ints)
		}
	}
	// Values, read back by name.
	type integers struct {
		U32Hex     *uint32 `parquet:"U32Hex,optional"`
		Port       *uint16 `parquet:"Port,optional"`
		I64        *int64  `parquet:"I64,optional"`
		Win32Error *uint32 `parquet:"Win32Error,optional"`
		Win32Name  *string `parquet:"Win32Error_name,optional"`
	}
	rows, err := parquet.ReadFile[integers](filepath.Join(dir, "EtwKit-Fixtures-Manifest", "IntegersEvent.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || *rows[0].U32Hex != 0xDEADBEEF || *rows[0].Port != 443 || *rows[0].I64 != -6400000000 || *rows[0].Win32Error != 5 || *rows[0].Win32Name != "Access is denied." {
		t.Errorf("Integers: %+v", rows)
	}
}

// The CLI tests and the DuckDB checks cover the corpus; here the events
// table of the largest corpus file is compared with its JSON dump.
func TestCorpusWriterMatchesJSON(t *testing.T) {
	dir := os.Getenv("ETL_CORPUS")
	if dir == "" {
		t.Skip("ETL_CORPUS is not set: no real .etl corpus to test against")
	}
	if testing.Short() {
		t.Skip("short")
	}
	p := filepath.Join(dir, "microsoft+perfview/src/TraceEvent/TraceEvent.Tests/inputs/net.4.5.2.x64.etl.zip.unzipped/net.4.5.2.x64.etl")
	files := open(t, p)
	dec := decode.New()
	m, _ := analysis.Build(files, dec, nil)
	var out bytes.Buffer
	_, err := pipeline.Run(context.Background(), &pipeline.Config[byte]{Files: files, Decoder: dec, Encoder: tracerpt.NewEncoder(tracerpt.JSON, files, nil), Output: &out, Analysis: m})
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	sc := bufio.NewScanner(&out)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	compare(t, lines, readRows(t, dumpParquet(t, files, dec, m, 2, nil)))
}

// TestEncoderDoesNotAllocate: rendering a decoded event into a record
// (properties, maps, message, typed values) allocates nothing once warm.
func TestEncoderDoesNotAllocate(t *testing.T) {
	files := open(t, fixture(t, "manifest-types.etl"))
	dec := decoder(t, fixture(t, "manifest-types.man"))
	r := etl.NewReader(files, nil)
	defer r.Close()
	var evs []etl.Event
	for r.Next() {
		e := *r.Event()
		e.UserData = append([]byte(nil), e.UserData...)
		e.Extended, e.Raw = nil, nil
		evs = append(evs, e)
	}
	enc := parquetout.NewEncoder(files, false)
	split := parquetout.NewEncoder(files, false)
	if _, err := parquetout.NewSplitWriter(t.TempDir(), split, nil); err != nil {
		t.Fatal(err)
	}
	var buf []byte
	for _, e := range []*parquetout.Encoder{enc, split} {
		for i := range evs {
			res := dec.Decode(&evs[i])
			if res.Schema == nil || res.Err != nil {
				continue
			}
			buf = e.AppendEvent(buf[:0], &evs[i], res, nil) // warm: schema numbers, buffer
			if n := testing.AllocsPerRun(50, func() { buf = e.AppendEvent(buf[:0], &evs[i], res, nil) }); n != 0 {
				t.Errorf("%s: %v allocations per event", res.Schema.EventName, n)
			}
		}
	}
}
