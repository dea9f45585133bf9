package pcapng

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/capfixture"
	"github.com/etwkit/etw/internal/etltest"
)

// BenchmarkWriter writes 1,500-byte packets with a comment, a packet id
// and a direction.
func BenchmarkWriter(b *testing.B) {
	w, _ := NewWriter(io.Discard, nil)
	w.AddInterface(&Interface{LinkType: LinkTypeEthernet, Name: "eth"})
	p := Packet{Data: make([]byte, 1500), Time: time.Unix(1622563857, 0), Direction: DirectionInbound,
		Comment:  "PktGroupId 562949953421313, PktNumber 1, Appearance 1, Direction Rx, Type Ethernet, Component 79, Edge 1, Filter 0, OriginalSize 1500, LoggedSize 1500",
		PacketID: 562949953421313, HasPacketID: true}
	b.SetBytes(int64(len(p.Data)))
	b.ReportAllocs()
	for b.Loop() {
		if err := w.WritePacket(&p); err != nil {
			b.Fatal(err)
		}
	}
	w.Flush()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "packets/s")
}

// benchConvert converts an .etl file image with Convert and reports
// packets/s and input MB/s.
func benchConvert(b *testing.B, data []byte, opts *ConvertOptions) {
	f, err := etl.NewFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var packets int64
	for b.Loop() {
		st, err := Convert(io.Discard, []*etl.File{f}, opts)
		if err != nil {
			b.Fatal(err)
		}
		packets += st.Packets
	}
	b.ReportMetric(float64(packets)/b.Elapsed().Seconds(), "packets/s")
}

// BenchmarkConvertNDIS converts an NDIS capture of 20,000 frames of 600
// bytes (two passes, decoding with the built-in schemas).
func BenchmarkConvertNDIS(b *testing.B) {
	data, err := capfixture.Stream(20000, 600)
	if err != nil {
		b.Fatal(err)
	}
	dec := decode.New()
	benchConvert(b, data, &ConvertOptions{Decoder: dec})
}

// BenchmarkConvertPktMonCorpus converts the 508f5bc1 PktMon capture
// (3,646 packets; schemas from the trace).
func BenchmarkConvertPktMonCorpus(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(etltest.CorpusDir(b), pktmonCaptures[2].path))
	if err != nil {
		b.Fatal(err)
	}
	f, _ := etl.NewFile(bytes.NewReader(data), int64(len(data)))
	dec := decode.New()
	if err := dec.Prescan([]*etl.File{f}); err != nil {
		b.Fatal(err)
	}
	benchConvert(b, data, &ConvertOptions{Decoder: dec})
}
