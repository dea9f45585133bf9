package tracerpt_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/etltest"
	"github.com/etwkit/etw/pipeline"
	"github.com/etwkit/etw/tracerpt"
)

// TestLargeRenderingInParts: 1,200 events whose messages expand to the
// 64 KiB bound render to about 80 MB, so the parallel pipeline's batches
// (512 events) pass their 16 MiB rendering bound and are written in parts:
// the output is the same bytes as with one worker, and every event is
// written and counted (the attack run's dump came out empty, exit 0).
func TestLargeRenderingInParts(t *testing.T) {
	g := uuid.MustParse("a8a71ac1-040f-54a2-07ca-00a89b5ab761")
	xml := strings.Replace(fuzzManifest, "%2 has %1 items: %3", strings.Repeat("%2", 1000), 1)
	env := []byte{1, 1, 0, 0x5B, 1, 0, 0, 0}
	recs := [][]byte{etltest.Event(etl.HeaderEvent64, 0, 1, 2, 80000000100, g, etl.EventDescriptor{ID: 0xFFFE, Version: 1, Opcode: 0xFE}, uuid.Nil, nil, append(env, xml...))}
	const n = 1200
	for i := 0; i < n; i++ {
		payload := binary.LittleEndian.AppendUint16(nil, 0)
		payload = append(payload, etltest.UTF16Z(strings.Repeat("x", 200))...)
		recs = append(recs, etltest.Event(etl.HeaderEvent64, 0, 1, 2, 80000000200+int64(i), g, etl.EventDescriptor{ID: 7, Level: 4}, uuid.Nil, nil, payload))
	}
	b := schemaFile(recs...)
	dump := func(workers int, format tracerpt.Format) ([]byte, int) {
		f, err := etl.NewFile(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatal(err)
		}
		files := []*etl.File{f}
		var out bytes.Buffer
		sum := tracerpt.NewSummary(files, []string{"big.etl"})
		st, err := pipeline.Run(context.Background(), &pipeline.Config[byte]{Files: files, Workers: workers, Decoder: decode.New(),
			Encoder: tracerpt.NewEncoder(format, files, &tracerpt.Options{}), Output: &out, Counter: sum})
		if err != nil {
			t.Fatal(err)
		}
		return out.Bytes(), st.Written
	}
	for _, format := range []tracerpt.Format{tracerpt.JSON, tracerpt.XML} {
		one, w1 := dump(1, format)
		two, w2 := dump(2, format)
		if w1 != n+3 || w2 != w1 || !bytes.Equal(one, two) {
			t.Errorf("%v: %d and %d events written (want %d), outputs of %d and %d bytes equal: %v", format, w1, w2, n+3, len(one), len(two), bytes.Equal(one, two))
		}
		if len(one) < 3*16<<20 {
			t.Errorf("%v: %d bytes: the batches did not pass their bound", format, len(one))
		}
	}
}
