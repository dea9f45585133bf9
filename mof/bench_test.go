package mof

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/tdh"
)

type benchEvent struct {
	schema  *tdh.Event
	payload []byte
	ptrSize int
}

// benchEvents returns the kernel records of ShutdownPerfDiagLogger.etl
// with their schemas when ETL_CORPUS is set, else one synthetic Process
// Start v4 event.
func benchEvents(b *testing.B) []benchEvent {
	reg := tdh.NewRegistry()
	RegisterKernel(reg)
	if dir := os.Getenv("ETL_CORPUS"); dir != "" {
		f, err := etl.Open(filepath.Join(dir, "airbus-cert+etl-parser", "tests", "example", "ShutdownPerfDiagLogger.etl"))
		if err == nil {
			defer f.Close()
			var evs []benchEvent
			r := etl.NewReader([]*etl.File{f}, nil)
			for r.Next() {
				ev := r.Event()
				if !isKernelRecord(ev.Header) {
					continue
				}
				if s, ok := reg.Lookup(ev.ProviderID, uint16(ev.Descriptor.Opcode), ev.Descriptor.Version); ok {
					evs = append(evs, benchEvent{s, append([]byte(nil), ev.UserData...), ev.PointerSize()})
				}
			}
			r.Close()
			if len(evs) > 0 {
				return evs
			}
		}
		b.Fatalf("ETL_CORPUS is set but ShutdownPerfDiagLogger.etl gives no kernel events (%v)", err)
	}
	s, _ := reg.Lookup(processGUID, 1, 4)
	return []benchEvent{{s, processStartV4(8, 0xFFFF8000DEAD0000), 8}}
}

// BenchmarkKernelDecode decodes kernel events with the built-in schemas
// (no string conversion), reporting events per second.
func BenchmarkKernelDecode(b *testing.B) {
	evs := benchEvents(b)
	b.Run("mof.Decoder", func(b *testing.B) {
		var dec Decoder
		benchLoop(b, evs, func(e *benchEvent) error {
			_, err := dec.Decode(e.schema, e.payload, e.ptrSize)
			return err
		})
	})
	b.Run("tdh.Decoder", func(b *testing.B) {
		var dec tdh.Decoder
		benchLoop(b, evs, func(e *benchEvent) error {
			_, err := dec.Decode(e.schema, e.payload, e.ptrSize)
			return err
		})
	})
}

func benchLoop(b *testing.B, evs []benchEvent, decode func(*benchEvent) error) {
	for i := range evs {
		if err := decode(&evs[i]); err != nil {
			b.Fatal(err)
		}
	}
	bytes := 0
	for i := range evs {
		bytes += len(evs[i].payload)
	}
	b.SetBytes(int64(bytes / len(evs)))
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		decode(&evs[i%len(evs)])
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "events/s")
}

// BenchmarkCompileKernelTable compiles the built-in kernel table, which
// every process does once, at its first decoder (decode.New): part of
// each command's start.
func BenchmarkCompileKernelTable(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if k := compileTable(kernelTable); len(k.errs) != 0 {
			b.Fatal(k.errs)
		}
	}
}
