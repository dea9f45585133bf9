package tracerpt

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/etltest"
	"github.com/etwkit/etw/pipeline"
	"github.com/etwkit/etw/tdh"
)

func openAttack(t *testing.T, name string) []*etl.File {
	t.Helper()
	return etltest.OpenFiles(t, etltest.AttackFile(t, name))
}

// measured runs fn and returns its wall time and the bytes it allocated.
func measured(fn func()) (time.Duration, uint64) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	fn()
	el := time.Since(start)
	runtime.ReadMemStats(&after)
	return el, after.TotalAlloc - before.TotalAlloc
}

// TestAttackMessageBomb: es_msgbomb_3c carries an EventSource manifest
// whose message repeats %1 30,000 times and three events with a
// 30,000-character string (900 million characters of message each). The
// message is cut at tdh.MaxMessageBytes with the marker, the dump is
// written in every format with one and two workers, the summary counts
// every event, and time and memory stay small (the attack run: an empty
// JSON dump, exit 0, 8.4 GB).
func TestAttackMessageBomb(t *testing.T) {
	files := openAttack(t, "es_msgbomb_3c.etl")
	for _, format := range []Format{JSON, XML, CSV} {
		for _, workers := range []int{1, 2} {
			var out bytes.Buffer
			sum := NewSummary(files, []string{"bomb.etl"})
			var st pipeline.Stats
			var err error
			el, alloc := measured(func() {
				st, err = pipeline.Run(context.Background(), &pipeline.Config[byte]{Files: files, Workers: workers, Decoder: decode.New(),
					Encoder: NewEncoder(format, files, &Options{}), Output: &out, Counter: sum})
			})
			if err != nil {
				t.Fatalf("%v workers %d: %v", format, workers, err)
			}
			if st.Written != 6 || st.Read != 6 {
				t.Errorf("%v workers %d: read %d, wrote %d, want 6", format, workers, st.Read, st.Written)
			}
			var s bytes.Buffer
			sum.WriteTo(&s, &Options{})
			if !strings.Contains(s.String(), "Hostile-ES") {
				t.Errorf("%v workers %d: summary %s", format, workers, s.String())
			}
			// (XML writes the marker's "…" as a character reference.)
			if n := strings.Count(out.String(), "[truncated]"); format != CSV && n != 3 {
				t.Errorf("%v workers %d: %d truncation markers, want 3", format, workers, n)
			}
			if out.Len() > 3<<20 || alloc > 256<<20 || el > 10*time.Second {
				t.Errorf("%v workers %d: %d bytes of output, %d bytes allocated, %v", format, workers, out.Len(), alloc, el)
			}
			t.Logf("%v workers %d: %d bytes out, %.1f MB allocated, %v", format, workers, out.Len(), float64(alloc)/(1<<20), el)
		}
	}
}

// TestAttackMessageRepeat: the same through an imported manifest
// (schemas/msg_repeat_1000.man: a message repeating %1 1,000 times) on an
// event with a 30,000-character string: the message is bounded.
func TestAttackMessageRepeat(t *testing.T) {
	dec := decode.New()
	if err := dec.Import(etltest.AttackFile(t, "schemas/msg_repeat_1000.man")); err != nil {
		t.Fatal(err)
	}
	var payload []byte
	for _, s := range []string{strings.Repeat("A", 30000), "ud", "p"} {
		payload = append(payload, etltest.UTF16Z(s)...)
	}
	ev := &etl.Event{Header: etl.HeaderEvent64, ProviderID: uuid.MustParse("A0C1853B-5C40-4B15-8766-3CF1C58F985A"),
		Descriptor: etl.EventDescriptor{ID: 7937, Version: 1, Level: 4}, UserData: payload}
	res := dec.Decode(ev)
	if res.Schema == nil || res.Err != nil {
		t.Fatalf("decode: %+v", res)
	}
	for _, format := range []Format{JSON, XML, CSV} {
		enc := NewEncoder(format, nil, &Options{})
		var out []byte
		_, alloc := measured(func() { out = enc.AppendEvent(nil, ev, res, nil) })
		if len(out) > 1<<20 || alloc > 32<<20 {
			t.Errorf("%v: %d bytes, %d allocated", format, len(out), alloc)
		}
		if format != CSV && !bytes.Contains(out, []byte("[truncated]")) {
			t.Errorf("%v: no truncation marker", format)
		}
	}
}

// TestAttackHostileNames: tl_hostile_names has provider, event and field
// names with newline, CR, comma, quote, U+FFFE and U+FFFF. The XML dump is
// well-formed XML 1.0 (encoding/xml reads it) and every CSV row parses
// (encoding/csv) into the fixed columns plus one per property.
func TestAttackHostileNames(t *testing.T) {
	files := openAttack(t, "tl_hostile_names.etl")
	dump := func(format Format) []byte {
		var out bytes.Buffer
		if _, err := pipeline.Run(context.Background(), &pipeline.Config[byte]{Files: files, Workers: 1, Decoder: decode.New(),
			Encoder: NewEncoder(format, files, &Options{}), Output: &out}); err != nil {
			t.Fatal(err)
		}
		return out.Bytes()
	}
	x := xml.NewDecoder(bytes.NewReader(dump(XML)))
	events := 0
	for {
		tok, err := x.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("XML is not well-formed: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "Event" {
			events++
		}
	}
	// The expected columns: 19 fixed ones, then one per property that the
	// dump renders (or the user data in hex).
	var want []int
	dec := decode.New()
	dec.Prescan(files)
	r := etl.NewReader(files, nil)
	for r.Next() {
		ev := r.Event()
		res := dec.Decode(ev)
		n := 19
		switch {
		case decodedOK(res, false):
			for i := range res.Decoded.Top() {
				if tdh.Printable(&res.Schema.Properties[i]) {
					n++
				}
			}
		case len(ev.UserData) > 0:
			n++
		}
		want = append(want, n)
	}
	r.Close()
	if events != len(want) {
		t.Errorf("%d XML events, %d in the file", events, len(want))
	}
	cr := csv.NewReader(bytes.NewReader(dump(CSV)))
	cr.TrimLeadingSpace, cr.FieldsPerRecord = true, -1
	rows, err := cr.ReadAll()
	if err != nil {
		t.Fatalf("CSV does not parse: %v", err)
	}
	if len(rows) != len(want)+1 {
		t.Fatalf("%d CSV rows, want a header and %d events", len(rows), len(want))
	}
	hostile := false
	for i, row := range rows[1:] {
		if len(row) != want[i] {
			t.Errorf("row %d: %d fields, want %d: %q", i+1, len(row), want[i], row)
		}
		if strings.ContainsAny(row[0], ",\n\r\"") {
			hostile = true
		}
	}
	if !hostile {
		t.Error("no event name with a comma, quote or line break: the file is not the hostile one")
	}
	for _, line := range bytes.Split(bytes.TrimSpace(dump(JSON)), []byte("\n")) {
		if !json.Valid(line) {
			t.Errorf("invalid JSON line %.200s", line)
		}
	}
}

// TestAttackBombsMemoryFlat: bomb_zeros_1 and bomb_records_1 hold a
// compressed buffer that expands to 16 MiB (of zeros, of tiny records).
// Memory stays flat.
func TestAttackBombsMemoryFlat(t *testing.T) {
	for _, name := range []string{"bomb_zeros_1.etl", "bomb_records_1.etl"} {
		files := openAttack(t, name)
		var st pipeline.Stats
		var err error
		var after runtime.MemStats
		el, alloc := measured(func() {
			st, err = pipeline.Run(context.Background(), &pipeline.Config[byte]{Files: files, Workers: 2, Decoder: decode.New(),
				Encoder: NewEncoder(JSON, files, &Options{}), Output: io.Discard})
		})
		if err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		if alloc > 1<<30 || after.HeapInuse > 256<<20 || el > 30*time.Second {
			t.Errorf("%s: %v, %d bytes allocated, %d in use", name, el, alloc, after.HeapInuse)
		}
		t.Logf("%s: %d events, %v, %.0f MB allocated", name, st.Read, el, float64(alloc)/(1<<20))
	}
}

// TestJSONRenderBounds: an event whose properties render past
// tdh.MaxTextBytes (60,000 structs with a 1,000-byte member name) gives
// valid JSON of about that size with a decode_error saying what was left
// out.
func TestJSONRenderBounds(t *testing.T) {
	g := uuid.MustParse("a0c1853b-5c40-4b15-8766-3cf1c58f985b")
	member := tdh.Property{Name: strings.Repeat("N", 1000), InType: tdh.InTypeUInt8, LengthIndex: -1, CountIndex: -1}
	schema := &tdh.Event{ProviderGUID: g, ID: 1, ProviderName: "Big", Properties: []tdh.Property{
		{Name: "A", IsArray: true, Count: 60000, LengthIndex: -1, CountIndex: -1, Members: []tdh.Property{member}},
	}}
	dec := decode.New()
	dec.Registry.Add(schema)
	ev := &etl.Event{Header: etl.HeaderEvent64, ProviderID: g, Descriptor: etl.EventDescriptor{ID: 1}, UserData: make([]byte, 60000)}
	res := dec.Decode(ev)
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	out := NewJSONEncoder(nil, &Options{}).AppendEvent(nil, ev, res, nil)
	var m map[string]any
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatalf("invalid JSON: %v", err)
	}
	if e, _ := m["decode_error"].(string); !strings.Contains(e, "rendering truncated") || len(out) > tdh.MaxTextBytes+64<<10 {
		t.Errorf("%d bytes, decode_error %q", len(out), m["decode_error"])
	}
	for _, format := range []Format{XML, CSV} {
		out := NewEncoder(format, nil, &Options{}).AppendEvent(nil, ev, res, nil)
		if !bytes.Contains(out, []byte("[truncated]")) || len(out) > tdh.MaxTextBytes+64<<10 {
			t.Errorf("%v: %d bytes", format, len(out))
		}
	}
}
