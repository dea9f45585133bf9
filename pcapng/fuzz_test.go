package pcapng

import (
	"bytes"
	"io"
	"testing"

	"github.com/etwkit/etw/catalog"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/capfixture"
)

// FuzzConverter gives the converter PktMon and NDIS events of any id,
// keywords and payload, decoded by decode.New() (built-in NDIS schemas)
// or by the converter's own layouts: it must not panic, must write a
// stream that reads back and only packets within its interfaces and
// lengths.
func FuzzConverter(f *testing.F) {
	fx, err := fixtureSeeds()
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range fx {
		f.Add(s.provider, s.id, s.kw, s.thread, s.is32, s.payload)
	}
	f.Add(uint8(0), uint16(160), uint64(0x10), uint32(1), false, []byte{})
	f.Add(uint8(1), uint16(1003), uint64(0xC0000000), uint32(1), true, bytes.Repeat([]byte{0xFF}, 64))
	dec := decode.New()
	f.Fuzz(func(t *testing.T, provider uint8, id uint16, kw uint64, thread uint32, is32 bool, payload []byte) {
		var buf bytes.Buffer
		w, err := NewWriter(&buf, nil)
		if err != nil {
			t.Fatal(err)
		}
		c := NewConverter(w, &Options{IncludeDrops: true})
		ev := &etl.Event{Header: etl.HeaderEvent64, ProviderID: PktMonGUID, Time: 133485408000000000, ThreadID: thread,
			Descriptor: etl.EventDescriptor{ID: id, Keyword: kw}}
		if provider&1 == 1 {
			ev.ProviderID = catalog.NDISPacketCaptureGUID
		}
		if is32 {
			ev.Header, ev.Flags = etl.HeaderEvent32, etl.Flag32BitHeader
		}
		// The same event three times (fragments of one packet), then
		// the end of a packet, each decoded both ways.
		for i := range 4 {
			if i == 3 {
				ev.Descriptor.Keyword |= catalog.NDISKeywordPacketEnd
			}
			ev.UserData = payload
			var res *decode.Result
			if provider&2 == 0 {
				res = dec.Decode(ev)
			}
			c.Learn(ev, res)
			if err := c.Add(ev, res); err != nil {
				t.Fatal(err)
			}
		}
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		st := c.Stats()
		r := NewReader(bytes.NewReader(buf.Bytes()))
		n := int64(0)
		for {
			p, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("output does not read back: %v", err)
			}
			if len(p.Data) > MaxCaptureLength || p.OriginalLength < len(p.Data) {
				t.Fatalf("packet of %d bytes of %d", len(p.Data), p.OriginalLength)
			}
			n++
		}
		if n != st.Packets {
			t.Fatalf("%d packets read back, stats say %d", n, st.Packets)
		}
	})
}

type seed struct {
	provider uint8
	id       uint16
	kw       uint64
	thread   uint32
	is32     bool
	payload  []byte
}

// fixtureSeeds returns the packet events of the NDIS fixtures.
func fixtureSeeds() ([]seed, error) {
	var out []seed
	for _, is32 := range []bool{false, true} {
		fx, err := capfixture.NDIS(is32)
		if err != nil {
			return nil, err
		}
		f, err := etl.NewFile(bytes.NewReader(fx.ETL), int64(len(fx.ETL)))
		if err != nil {
			return nil, err
		}
		r := etl.NewReader([]*etl.File{f}, nil)
		for r.Next() {
			ev := r.Event()
			var p uint8
			switch ev.ProviderID {
			case PktMonGUID:
			case catalog.NDISPacketCaptureGUID:
				p = 1
			default:
				continue
			}
			out = append(out, seed{p, ev.Descriptor.ID, ev.Descriptor.Keyword, ev.ThreadID, is32, append([]byte(nil), ev.UserData...)})
		}
		r.Close()
	}
	return out, nil
}

// FuzzReader reads arbitrary bytes as pcapng: no panic, no packet beyond
// its block, and a stream the writer wrote reads back whole.
func FuzzReader(f *testing.F) {
	fx, err := capfixture.NDIS(false)
	if err != nil {
		f.Fatal(err)
	}
	var out bytes.Buffer
	file, err := etl.NewFile(bytes.NewReader(fx.ETL), int64(len(fx.ETL)))
	if err != nil {
		f.Fatal(err)
	}
	if _, err := Convert(&out, []*etl.File{file}, &ConvertOptions{Options: Options{IncludeDrops: true}}); err != nil {
		f.Fatal(err)
	}
	f.Add(out.Bytes())
	f.Add(out.Bytes()[:100])
	f.Fuzz(func(t *testing.T, b []byte) {
		r := NewReader(bytes.NewReader(b))
		for range 10000 {
			p, err := r.Next()
			if err != nil {
				return
			}
			if p.Interface >= len(r.Interfaces()) || len(p.Data) > len(b) || p.OriginalLength < len(p.Data) {
				t.Fatalf("packet %+v of %d interfaces", p, len(r.Interfaces()))
			}
		}
	})
}
