package tracerpt

import (
	"bufio"
	"bytes"
	"io"
	"sort"
	"strconv"

	"github.com/google/uuid"

	"github.com/etwkit/etw/catalog"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/eventjson"
	"github.com/etwkit/etw/tdh"
)

// Summary gathers what tracerpt's -summary file reports: the files, the
// totals and two tables of event counts, one by (GUID, task, opcode,
// version) and one by (GUID, event id, version).
//
// Feed it every event with Count, in order (pipeline.Run does, as its
// pipeline.Counter), then write it with WriteTo.
type Summary struct {
	// Names are the file names listed under "Files Processed:", as given
	// (tracerpt prints them as they were typed).
	Names []string
	// Buffers, Lost and Start/End come from the files' headers.
	Buffers    int
	Lost       uint64
	Start, End int64 // FILETIMEs; End falls back to the last event
	// Events is the number of events counted (error records, which
	// ProcessTrace does not deliver, are not).
	Events int
	// Corrupt is the number of damaged buffers and records met; it is
	// reported only when not zero (tracerpt has no such line).
	Corrupt int

	last int64
	byOp map[opKey]int
	ops  []opRow
	byID map[idKey]int
	ids  []idRow
}

type opKey struct {
	guid    uuid.UUID
	task    uint16
	opcode  uint8
	version uint8
}

type opRow struct {
	opKey
	count  int
	schema *tdh.Event
}

type idKey struct {
	guid    uuid.UUID
	id      uint16
	version uint8
}

type idRow struct {
	idKey
	count  int
	schema *tdh.Event
}

// NewSummary returns a summary of files, listed under names (nil: the
// files' names).
func NewSummary(files []*etl.File, names []string) *Summary {
	s := &Summary{byOp: map[opKey]int{}, byID: map[idKey]int{}}
	for i, f := range files {
		name := f.Name
		if i < len(names) {
			name = names[i]
		}
		s.Names = append(s.Names, name)
		s.Buffers += len(f.Buffers())
		s.Lost += uint64(f.Header.EventsLost)
		if st := f.Header.StartTime; st != 0 && (s.Start == 0 || st < s.Start) {
			s.Start = st
		}
		if f.Header.EndTime > s.End {
			s.End = f.Header.EndTime
		}
	}
	return s
}

// Count counts one event, whose schema is sch (nil if none); it makes
// Summary a pipeline.Counter. Error records are not counted.
func (s *Summary) Count(ev *etl.Event, sch *tdh.Event) {
	if ev.Header == etl.HeaderError {
		return
	}
	s.Events++
	if ev.Time > s.last {
		s.last = ev.Time
	}
	d := &ev.Descriptor
	k := opKey{ev.ProviderID, d.Task, d.Opcode, d.Version}
	if i, ok := s.byOp[k]; ok {
		r := &s.ops[i]
		r.count++
		if r.schema == nil {
			r.schema = sch
		}
	} else {
		s.byOp[k] = len(s.ops)
		s.ops = append(s.ops, opRow{k, 1, sch})
	}
	ik := idKey{ev.ProviderID, d.ID, d.Version}
	if i, ok := s.byID[ik]; ok {
		r := &s.ids[i]
		r.count++
		if r.schema == nil {
			r.schema = sch
		}
	} else {
		s.byID[ik] = len(s.ids)
		s.ids = append(s.ids, idRow{ik, 1, sch})
	}
}

// Damaged counts a damaged buffer or record (the "Corrupt Buffers" line).
func (s *Summary) Damaged(error) { s.Corrupt++ }

// guidLess orders GUIDs as memcmp orders them in Windows memory layout
// (Data1, Data2, Data3 little-endian), which is the order of tracerpt's
// tables.
func guidLess(a, b uuid.UUID) bool {
	var wa, wb [16]byte
	etl.PutGUIDWindows(wa[:], a)
	etl.PutGUIDWindows(wb[:], b)
	return bytes.Compare(wa[:], wb[:]) < 0
}

// WriteTo writes the summary in tracerpt's layout. Dates use o's zone
// and culture (nil: UTC, en-US).
func (s *Summary) WriteTo(w io.Writer, o *Options) (int64, error) {
	if o == nil {
		o = &Options{}
	}
	bw := bufio.NewWriter(w)
	cw := &countWriter{w: bw}
	var b []byte
	b = append(b, "Files Processed:\n"...)
	for _, n := range s.Names {
		b = append(b, '\t')
		b = append(b, n...)
		b = append(b, '\n')
	}
	b = append(b, "Total Buffers Processed "...)
	b = strconv.AppendInt(b, int64(s.Buffers), 10)
	b = append(b, "\nTotal Events  Processed "...)
	b = strconv.AppendInt(b, int64(s.Events), 10)
	b = append(b, "\nTotal Events  Lost      "...)
	b = strconv.AppendUint(b, s.Lost, 10)
	b = append(b, '\n')
	if s.Corrupt > 0 {
		b = append(b, "Corrupt Buffers         "...)
		b = strconv.AppendInt(b, int64(s.Corrupt), 10)
		b = append(b, '\n')
	}
	end := s.End
	if end == 0 {
		end = s.last
	}
	if s.Start != 0 {
		tf := newTimeFormatter(o.Zone)
		c := o.culture()
		b = append(b, "Start Time              "...)
		b = append(b, c.FormatLongDate(tf.localTime(s.Start))...)
		b = append(b, "\nEnd Time                "...)
		b = append(b, c.FormatLongDate(tf.localTime(end))...)
		b = append(b, "\nElapsed Time            "...)
		el := (end - s.Start) / 10_000_000
		if el < 0 {
			el = 0
		}
		b = strconv.AppendInt(b, el, 10)
		b = append(b, " sec\n"...)
	}

	// Table 1: by GUID (memcmp order), then the reverse of first
	// appearance.
	ops := make([]int, len(s.ops))
	for i := range ops {
		ops[i] = i
	}
	sort.SliceStable(ops, func(i, j int) bool {
		a, c := &s.ops[ops[i]], &s.ops[ops[j]]
		if a.guid != c.guid {
			return guidLess(a.guid, c.guid)
		}
		return ops[i] > ops[j]
	})
	rule1 := "+" + string(bytes.Repeat([]byte{'-'}, 121)) + "+\n"
	b = append(b, rule1...)
	b = append(b, "|Event Count   Event Name           Task            Opcode          Version         Guid                                  |\n"...)
	b = append(b, rule1...)
	for _, i := range ops {
		r := &s.ops[i]
		b = appendCountName(b, r.count, eventName(r.schema))
		start := len(b)
		b = strconv.AppendUint(b, uint64(r.task), 10)
		b = padRightFrom(b, start, 15)
		b = append(b, ' ')
		start = len(b)
		ev := etl.Event{Descriptor: etl.EventDescriptor{Opcode: r.opcode}}
		b = appendOpcodeText(b, &ev, r.schema)
		b = padRightFrom(b, start, 15)
		b = append(b, ' ')
		b = appendVersionGUID(b, r.version, r.guid)
	}
	b = append(b, rule1...)

	// Table 2: by GUID, event id, version.
	ids := make([]int, len(s.ids))
	for i := range ids {
		ids[i] = i
	}
	sort.SliceStable(ids, func(i, j int) bool {
		a, c := &s.ids[ids[i]], &s.ids[ids[j]]
		if a.guid != c.guid {
			return guidLess(a.guid, c.guid)
		}
		if a.id != c.id {
			return a.id < c.id
		}
		return a.version < c.version
	})
	rule2 := "+" + string(bytes.Repeat([]byte{'-'}, 105)) + "+\n"
	b = append(b, rule2...)
	b = append(b, "|Event Count   Event Name           Event ID        Version         Guid                                  |\n"...)
	b = append(b, rule2...)
	for _, i := range ids {
		r := &s.ids[i]
		b = appendCountName(b, r.count, eventName(r.schema))
		start := len(b)
		b = strconv.AppendUint(b, uint64(r.id), 10)
		b = padRightFrom(b, start, 15)
		b = append(b, ' ')
		b = appendVersionGUID(b, r.version, r.guid)
	}
	b = append(b, rule2...)
	b = s.appendKnownProviders(b, ids)
	if _, err := cw.Write(b); err != nil {
		return cw.n, err
	}
	return cw.n, bw.Flush()
}

// appendCountName appends "|%11d   %-20s ".
func appendCountName(b []byte, count int, name string) []byte {
	b = append(b, '|')
	b = appendUintRight(b, uint64(count), 11)
	b = append(b, "   "...)
	start := len(b)
	b = append(b, name...)
	b = padRightFrom(b, start, 20)
	return append(b, ' ')
}

// appendVersionGUID appends "%-15s %-38s|\n" for the version and GUID.
func appendVersionGUID(b []byte, version uint8, g uuid.UUID) []byte {
	start := len(b)
	b = strconv.AppendUint(b, uint64(version), 10)
	b = padRightFrom(b, start, 15)
	b = append(b, ' ')
	b = eventjson.AppendGUID(b, g)
	return append(b, "|\n"...)
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// appendKnownProviders appends, after the tables, a line for each
// provider whose events no schema decoded and that the catalog knows by
// GUID (a Windows component: its name and what decoding it takes), in
// the order of the second table (ids). Nothing when there is none.
func (s *Summary) appendKnownProviders(b []byte, ids []int) []byte {
	named := map[uuid.UUID]bool{}
	for i := range s.ids {
		if s.ids[i].schema != nil {
			named[s.ids[i].guid] = true
		}
	}
	said := map[uuid.UUID]bool{}
	headed := false
	for _, i := range ids {
		g := s.ids[i].guid
		if named[g] || said[g] {
			continue
		}
		said[g] = true
		k, ok := catalog.LookupProvider(g)
		if !ok {
			continue
		}
		if !headed {
			b = append(b, "Providers without a schema, known by GUID:\n"...)
			headed = true
		}
		b = append(b, "\t{"...)
		b = append(b, g.String()...)
		b = append(b, "} "...)
		b = append(b, k.Hint()...)
		b = append(b, '\n')
	}
	return b
}
