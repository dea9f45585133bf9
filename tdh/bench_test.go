package tdh

import (
	"testing"
)

// typicalEvent is a 10-field template of the kind manifest providers log:
// integers, a pointer, a GUID, a FILETIME, a hex value and a string.
func typicalEvent() (*Event, []byte) {
	ev := &Event{Properties: []Property{
		prop("ProcessID", InTypeUInt32), prop("ThreadID", InTypeUInt32), prop("Flags", InTypeHexInt32),
		prop("Address", InTypePointer), prop("Size", InTypeUInt64), prop("Activity", InTypeGUID),
		prop("When", InTypeFileTime), prop("Status", InTypeInt32), prop("Kind", InTypeUInt8),
		prop("Name", InTypeUnicodeString),
	}}
	var p payload
	p.u32(1234)
	p.u32(5678)
	p.u32(0x40)
	p.u64(0x7FF612340000)
	p.u64(65536)
	p.Write([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
	p.u64(132247862638609634)
	p.u32(0)
	p.u8(3)
	p.wstr(`C:\Windows\System32\notepad.exe`)
	return ev, p.Bytes()
}

func BenchmarkDecode(b *testing.B) {
	ev, data := typicalEvent()
	var dec Decoder
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := dec.Decode(ev, data, 8); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkDecodeParallel decodes with one Decoder per goroutine, sharing
// the schema: throughput should grow with -cpu.
func BenchmarkDecodeParallel(b *testing.B) {
	ev, data := typicalEvent()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		var dec Decoder
		for pb.Next() {
			if _, err := dec.Decode(ev, data, 8); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}
