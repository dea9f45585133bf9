package tracerpt_test

import (
	"bytes"
	"context"
	"io"
	"path/filepath"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/etltest"
	"github.com/etwkit/etw/pipeline"
	"github.com/etwkit/etw/tracerpt"
)

// Benchmarks of the writers, in events per second:
//
//	go test ./tracerpt -run '^$' -bench . -benchmem [-cpu 1,2]
//
// BenchmarkEncode renders events already in memory (decoding included);
// BenchmarkRun is a whole dump of a synthetic file (reading, decoding,
// rendering, writing to io.Discard) with one and with two workers.

const samplePath = "../testdata/etl/sample.etl"

// sampleEvents returns copies of the sample fixture's events.
func sampleEvents(b testing.TB) ([]*etl.File, []etl.Event) {
	files := open(b, samplePath)
	r := etl.NewReader(files, nil)
	defer r.Close()
	var evs []etl.Event
	for r.Next() {
		e := *r.Event()
		e.UserData = append([]byte(nil), e.UserData...)
		var ext []etl.ExtendedItem
		for _, x := range e.Extended {
			ext = append(ext, etl.ExtendedItem{Type: x.Type, Data: append([]byte(nil), x.Data...)})
		}
		e.Extended, e.Raw = ext, nil
		evs = append(evs, e)
	}
	return files, evs
}

func BenchmarkEncode(b *testing.B) {
	files, evs := sampleEvents(b)
	var tl etl.Event
	for _, e := range evs {
		if len(e.Extended) > 0 && e.Extended[0].Type == etl.ExtProvTraits {
			tl = e
		}
	}
	sets := map[string][]etl.Event{
		"sample":       evs,              // kernel header (MOF), TraceLogging, unknown, WPP
		"tracelogging": {tl, tl, tl, tl}, // the common modern case
	}
	for _, set := range []string{"sample", "tracelogging"} {
		for _, f := range []tracerpt.Format{tracerpt.XML, tracerpt.CSV, tracerpt.JSON} {
			b.Run(set+"/"+f.String(), func(b *testing.B) {
				dec := decode.New()
				enc := tracerpt.NewEncoder(f, files, nil)
				evs := sets[set]
				var buf []byte
				var bytesOut int64
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					ev := &evs[i%len(evs)]
					buf = enc.AppendEvent(buf[:0], ev, dec.Decode(ev), nil)
					bytesOut += int64(len(buf))
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
				b.ReportMetric(float64(bytesOut)/float64(b.N), "B/event")
			})
		}
	}
}

var (
	synthOnce sync.Once
	synthData []byte
	synthN    int
)

// synthetic builds a 4-CPU file of TraceLogging events (the sample's
// Checkout event) with one unknown manifest event in five.
func synthetic(b testing.TB) ([]byte, int) {
	synthOnce.Do(func() {
		_, evs := sampleEvents(b)
		var tl etl.Event
		for _, e := range evs {
			if len(e.Extended) > 0 && e.Extended[0].Type == etl.ExtProvTraits {
				tl = e
			}
		}
		var ext []etltest.Ext
		for _, x := range tl.Extended {
			ext = append(ext, etltest.Ext{Type: x.Type, Data: x.Data})
		}
		tf := etltest.NewFile(64<<10, true)
		ts := tf.TLH.HeaderTimestamp
		for buf := 0; buf < 400; buf++ {
			var recs [][]byte
			size := 0
			for size < 60<<10 {
				ts += 10
				var r []byte
				if synthN%5 == 4 {
					r = etltest.Event(etl.HeaderEvent64, 0, 10, 20, ts, etltest.SampleProvider, etl.EventDescriptor{ID: 7, Level: 4}, uuid.Nil, nil, []byte("unknown payload"))
				} else {
					r = etltest.Event(etl.HeaderEvent64, 0, 10, 20, ts, tl.ProviderID, tl.Descriptor, uuid.Nil, ext, tl.UserData)
				}
				recs = append(recs, r)
				size += (len(r) + 7) &^ 7
				synthN++
			}
			tf.AddBuffer(uint16(buf%4), ts, recs...)
		}
		synthData = tf.Bytes()
		synthN += 2 // header events
	})
	return synthData, synthN
}

func BenchmarkRun(b *testing.B) {
	data, n := synthetic(b)
	f, err := etl.NewFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		b.Fatal(err)
	}
	files := []*etl.File{f}
	for _, workers := range []int{1, 2} {
		for _, fm := range []tracerpt.Format{tracerpt.XML, tracerpt.CSV, tracerpt.JSON} {
			b.Run(fm.String()+"/workers="+string(rune('0'+workers)), func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					_, err := pipeline.Run(context.Background(), &pipeline.Config[byte]{
						Files: files, Decoder: decode.New(), Workers: workers,
						Encoder: tracerpt.NewEncoder(fm, files, nil), Output: io.Discard,
					})
					if err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
			})
		}
	}
}

// BenchmarkCorpus dumps the corpus's largest compressed file.
func BenchmarkCorpus(b *testing.B) {
	p := filepath.Join(corpus(b), "microsoft+perfview/src/TraceEvent/TraceEvent.Tests/inputs/net.4.5.2.x64.etl.zip.unzipped/net.4.5.2.x64.etl")
	files := open(b, p)
	n := files[0].Scan().Events
	for _, workers := range []int{1, 2} {
		for _, fm := range []tracerpt.Format{tracerpt.XML, tracerpt.CSV, tracerpt.JSON} {
			b.Run(fm.String()+"/workers="+string(rune('0'+workers)), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					_, err := pipeline.Run(context.Background(), &pipeline.Config[byte]{
						Files: files, Decoder: decode.New(), Workers: workers,
						Encoder: tracerpt.NewEncoder(fm, files, nil), Output: io.Discard,
					})
					if err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
			})
		}
	}
}
