package tables

import (
	"cmp"
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/pcapng"
)

// packetTable turns the trace's packet events into packets rows through
// package pcapng: its converter writes pcapng (PktMon's packets and drops,
// NDIS's reassembled fragments) into a pipe, and its reader gives the
// packets back with their interface (the PktMon component), direction,
// sizes and pktmon's comment (component id, drop reason). Memory is the
// converter's (interface tables, NDIS packets being reassembled).
type packetTable struct {
	t    *traceState
	conv *pcapng.Converter
	pw   *io.PipeWriter
	done chan error
	n    int64
}

// newPacketTable starts the reader of the converter's output.
func newPacketTable(t *traceState) (*packetTable, error) {
	pr, pw := io.Pipe()
	p := &packetTable{t: t, pw: pw, done: make(chan error, 1)}
	go func() {
		err := p.read(pcapng.NewReader(pr))
		pr.CloseWithError(err) // unblocks the writer after a failure
		p.done <- err
	}()
	w, err := pcapng.NewWriter(pw, &pcapng.SectionOptions{Application: "etwkit tables"})
	if err != nil {
		pw.CloseWithError(err)
		<-p.done
		return nil, err
	}
	p.conv = pcapng.NewConverter(w, &pcapng.Options{IncludeDrops: true})
	return p, nil
}

// learn takes the interface names of PktMon's component list.
func (p *packetTable) learn(ev *etl.Event, res *decode.Result) { p.conv.Learn(ev, res) }

// add converts one packet event.
func (p *packetTable) add(ev *etl.Event, res *decode.Result) error { return p.conv.Add(ev, res) }

// close finishes the conversion and waits for the last rows.
func (p *packetTable) close() (int64, error) {
	err := p.conv.Close()
	p.pw.CloseWithError(err)
	if rerr := <-p.done; err == nil {
		err = rerr
	}
	return p.n, err
}

// read writes a row per packet of r.
func (p *packetTable) read(r *pcapng.Reader) error {
	for {
		pk, err := r.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		row := PacketRow{Trace: p.t.id, TS: pk.Time.UnixNano(), Source: "ndis", Size: int64(len(pk.Data)),
			OriginalSize: int64(max(pk.OriginalLength, len(pk.Data))), PacketID: pk.PacketID}
		if ifs := r.Interfaces(); pk.Interface >= 0 && pk.Interface < len(ifs) {
			row.Component = ifs[pk.Interface].Name
		}
		if pk.Direction != pcapng.DirectionUnknown {
			row.Direction = pk.Direction.String()
		}
		if id, ok := commentField(pk.Comment, "Component "); ok {
			row.Source = "pktmon"
			if n, err := strconv.ParseUint(id, 10, 16); err == nil {
				row.ComponentID = int32(n)
			}
		}
		row.Dropped = strings.HasPrefix(pk.Comment, "Drop: ") || strings.HasPrefix(pk.Comment, "Duplicate Drop: ")
		if row.Dropped {
			row.DropReason, _ = commentField(pk.Comment, "DropReason ")
		}
		p.n++
		if err := p.t.w.packets.add(&row); err != nil {
			return err
		}
	}
}

// commentField returns the value of "Label value" in a pktmon comment
// ("…, Component 79, Edge 1, …").
func commentField(c, label string) (string, bool) {
	i := strings.Index(c, label)
	for i > 0 && c[i-1] != ' ' {
		j := strings.Index(c[i+1:], label)
		if j < 0 {
			return "", false
		}
		i += 1 + j
	}
	if i < 0 {
		return "", false
	}
	v := c[i+len(label):]
	if j := strings.Index(v, ", "); j >= 0 {
		v = v[:j]
	}
	return v, true
}

// sortByID sorts rows by their id.
func sortByID[T any](rows []T, id func(*T) int64) {
	slices.SortFunc(rows, func(a, b T) int { return cmp.Compare(id(&a), id(&b)) })
}
