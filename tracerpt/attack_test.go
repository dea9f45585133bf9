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
	"github.com/etwkit/etw/tdh"
)

func openAttack(t *testing.T, name string) []*etl.File {
	t.Helper()
	f, err := etl.Open(etltest.AttackFile(t, name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return []*etl.File{f}
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
			var st Stats
			var err error
			el, alloc := measured(func() {
				st, err = Run(context.Background(), &Config{Files: files, Workers: workers, Decoder: decode.New(),
					Encoder: NewEncoder(format, files, &Options{}), Output: &out, Summary: sum})
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
		_, alloc := measured(func() { out = enc.AppendEvent(nil, ev, res) })
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
		if _, err := Run(context.Background(), &Config{Files: files, Workers: 1, Decoder: decode.New(),
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
