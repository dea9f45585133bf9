package pcapng_test

import (
	"bytes"
	"fmt"
	"io"
	"log"
	"time"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/capfixture"
	"github.com/etwkit/etw/pcapng"
)

// Convert an NDIS packet capture (netsh trace start capture=yes) to
// pcapng and read the packets back. Nothing is imported: the NDIS schema
// is built in.
func Example() {
	fx, err := capfixture.NDIS(false) // an .etl written by the session emulator
	if err != nil {
		log.Fatal(err)
	}
	f, err := etl.NewFile(bytes.NewReader(fx.ETL), int64(len(fx.ETL)))
	if err != nil {
		log.Fatal(err)
	}
	var out bytes.Buffer // or an *os.File
	st, err := pcapng.Convert(&out, []*etl.File{f}, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d packets, %d interfaces, %d incomplete\n", st.Packets, st.Interfaces, st.Incomplete)

	r := pcapng.NewReader(&out)
	for i := 0; i < 3; i++ {
		p, err := r.Next()
		if err == io.EOF {
			break
		}
		ifc := r.Interfaces()[p.Interface]
		fmt.Printf("%s %s %s %d/%d bytes %s %q\n", p.Time.Format(time.RFC3339Nano), ifc.Name, ifc.LinkType,
			len(p.Data), p.OriginalLength, p.Direction, p.Comment)
	}
	// Output:
	// 12 packets, 7 interfaces, 4 incomplete
	// 2024-01-01T00:00:00.000001Z eth:5:0 ETHERNET 63/63 bytes inbound "PID=4 TID=100"
	// 2024-01-01T00:00:00.000002Z eth:7:0 ETHERNET 74/74 bytes outbound "PID=4 TID=200"
	// 2024-01-01T00:00:00.000005Z eth:5:0 ETHERNET 90/90 bytes inbound "PID=4 TID=100"
}

// Write a pcapng file by hand: a section, an interface added when its
// first packet comes, and packets.
func ExampleWriter() {
	var buf bytes.Buffer
	w, err := pcapng.NewWriter(&buf, &pcapng.SectionOptions{Application: "example"})
	if err != nil {
		log.Fatal(err)
	}
	id, _ := w.AddInterface(&pcapng.Interface{LinkType: pcapng.LinkTypeRaw, Name: "mbb:11"})
	ipv4 := []byte{0x45, 0, 0, 20, 0, 1, 0, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2}
	w.WritePacket(&pcapng.Packet{Interface: id, Time: time.Date(2024, 1, 1, 0, 0, 0, 100, time.UTC), Data: ipv4,
		Direction: pcapng.DirectionOutbound, Comment: "hello"})
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	p, _ := pcapng.NewReader(&buf).Next()
	fmt.Println(len(p.Data), p.Direction, p.Comment, p.Time.Format(time.RFC3339Nano))
	// Output: 20 outbound hello 2024-01-01T00:00:00.0000001Z
}
