package tracerpt_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/etltest"
	"github.com/etwkit/etw/pipeline"
	"github.com/etwkit/etw/tracerpt"
)

// FuzzPipeline feeds whole files through the reader, every decoder and
// an output format (each input picks one): no panic, JSON Lines stay
// valid JSON. Inputs are
// squeezed files (etltest.Squeeze: without the fill after each buffer's
// records), a fraction of the files' size, so that the fuzzer's
// minimisation of each new input, which runs the pipeline once per byte
// it tries to remove, takes seconds rather than minutes.
func FuzzPipeline(f *testing.F) {
	dir := filepath.Join("..", "testdata", "etl")
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".etl") {
			if b, err := os.ReadFile(filepath.Join(dir, e.Name())); err == nil && len(b) <= 32<<10 {
				f.Add(etltest.Squeeze(b))
			}
		}
	}
	if os.Getenv("ETL_CORPUS") != "" {
		for _, p := range etltest.CorpusTraces(f) {
			if b, err := os.ReadFile(p); err == nil && len(b) <= 32<<10 {
				f.Add(etltest.Squeeze(b))
			}
		}
	}
	// One decoder for the whole run, with the fixtures' schemas imported.
	dec := decode.New()
	dec.Import(filepath.Join(dir, "manifest-types.man"), filepath.Join(dir, "classic.mof"), filepath.Join(dir, "wpp.tmf"))
	f.Fuzz(func(t *testing.T, b []byte) {
		// One format per input (by its length): a third of the work per
		// run, which the minimisation of each new input repeats per byte.
		format := []tracerpt.Format{tracerpt.XML, tracerpt.CSV, tracerpt.JSON}[len(b)%3]
		b = etltest.Expand(b, 1<<20)
		file, err := etl.NewFile(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return
		}
		files := []*etl.File{file}
		var out bytes.Buffer
		sum := tracerpt.NewSummary(files, []string{"fuzz.etl"})
		_, err = pipeline.Run(context.Background(), &pipeline.Config[byte]{
			Files: files, Workers: 1, Decoder: dec.Clone(),
			Encoder: tracerpt.NewEncoder(format, files, &tracerpt.Options{}), Output: &out, Counter: sum,
		})
		if err != nil && err != io.EOF {
			return
		}
		sum.WriteTo(io.Discard, &tracerpt.Options{})
		if format == tracerpt.JSON {
			for i, line := range bytes.Split(bytes.TrimSpace(out.Bytes()), []byte("\n")) {
				if len(line) > 0 && !json.Valid(line) {
					t.Fatalf("JSON line %d is not valid JSON: %.200s", i+1, line)
				}
			}
		}
	})
}
