package report

import (
	"bytes"
	"encoding/json"
	"io"
	"testing"

	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/etltest"
)

// FuzzBuild runs report.Build over mutated traces, seeded with the
// report's synthetic trace, the corpus's small files and the attack
// run's time reproducers: no panic, the JSON and the page write, the
// timeline stays within its buckets.
func FuzzBuild(f *testing.F) {
	f.Add(etltest.Squeeze(synthTrace()))
	etltest.FuzzSeeds(f, 64<<10, "mytrace-evtime-min.etl", "mytrace-starttime-min.etl", "pktmon-159.etl")
	base := decode.New()
	f.Fuzz(func(t *testing.T, b []byte) {
		b = etltest.Expand(b, 1<<20)
		file, err := etl.NewFile(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return
		}
		d, _ := Build([]*etl.File{file}, base.Clone(), &Options{Buckets: 100})
		if tl := d.Timeline; tl != nil && (tl.Buckets < 1 || tl.Buckets > 101) {
			t.Fatalf("timeline of %d buckets", tl.Buckets)
		}
		if _, err := json.Marshal(d); err != nil {
			t.Fatalf("JSON: %v", err)
		}
		if err := d.WriteHTML(io.Discard); err != nil {
			t.Fatalf("HTML: %v", err)
		}
	})
}
