package tracelogging

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/etlcorpus"
	"github.com/etwkit/etw/tdh"
)

// corpusDir returns $ETL_CORPUS, the folder of real .etl files, or "".
func corpusDir() string { return os.Getenv("ETL_CORPUS") }

// corpus returns the corpus folder, skipping the test without one.
func corpus(t testing.TB) string { return etlcorpus.Dir(t) }

// eachEvent calls fn for every event of a corpus file.
func eachEvent(t testing.TB, path string, fn func(ev *etl.Event)) {
	f, err := etl.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := etl.NewReader([]*etl.File{f}, nil)
	defer r.Close()
	for r.Next() {
		fn(r.Event())
	}
}

// TestCorpusEveryTraceLoggingEvent compiles and decodes every event that
// carries TraceLogging metadata: no error, the payload is consumed
// exactly, and the properties render as valid JSON. It logs the count of
// each file.
func TestCorpusEveryTraceLoggingEvent(t *testing.T) {
	dir := corpus(t)
	var c Cache
	var dec tdh.Decoder
	total, files := 0, 0
	schemas := map[*tdh.Event]bool{}
	for _, p := range etlcorpus.Traces(t) {
		n, events := 0, map[string]int{}
		eachEvent(t, p, func(ev *etl.Event) {
			s, ok, err := c.Schema(ev)
			if !ok {
				return
			}
			n++
			if err != nil {
				t.Errorf("%s: %v", p, err)
				return
			}
			schemas[s] = true
			events[s.ProviderName+"/"+s.EventName]++
			d, err := dec.Decode(s, ev.UserData, ev.PointerSize())
			if err != nil {
				t.Errorf("%s: event %q: %v", p, s.EventName, err)
				return
			}
			if len(d.Extra) != 0 {
				t.Errorf("%s: event %q: %d bytes after the last field", p, s.EventName, len(d.Extra))
			}
			if js := tdh.AppendPropertiesJSON(nil, d); !json.Valid(js) {
				t.Errorf("%s: event %q: invalid JSON %s", p, s.EventName, js)
			}
		})
		if n > 0 {
			files++
			total += n
			rel, _ := filepath.Rel(dir, p)
			t.Logf("%4d TraceLogging events in %s: %v", n, rel, events)
		}
	}
	t.Logf("%d TraceLogging events in %d files, %d distinct schemas", total, files, len(schemas))
	if total < 126 || files < 8 {
		t.Errorf("only %d TraceLogging events in %d files found (126 in 8 expected)", total, files)
	}
}

// xmlEvent is the part of a tracerpt XML <Event> the tests compare.
type xmlEvent struct {
	Provider struct {
		Name string `xml:"Name,attr"`
		GUID string `xml:"Guid,attr"`
	} `xml:"System>Provider"`
	EventID     int `xml:"System>EventID"`
	TimeCreated struct {
		SystemTime string `xml:"SystemTime,attr"`
	} `xml:"System>TimeCreated"`
	Execution struct {
		ProcessID uint32 `xml:"ProcessID,attr"`
		ThreadID  uint32 `xml:"ThreadID,attr"`
	} `xml:"System>Execution"`
	Data []struct {
		Name  string `xml:"Name,attr"`
		Value string `xml:",chardata"`
	} `xml:"EventData>Data"`
	Task string `xml:"RenderingInfo>Task"`
}

// TestCorpusMytrace compares every TraceLogging event of mytrace.etl with
// the <Event> tracerpt wrote for it in mytrace.xml (matched by process,
// thread and time): the text of each printable property equals the
// <Data Name=…> value, and the event name the <RenderingInfo><Task>.
func TestCorpusMytrace(t *testing.T) {
	dir := filepath.Join(corpus(t), "Marissa1999+Tracing-Application")
	raw, err := os.ReadFile(filepath.Join(dir, "mytrace.xml"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Events []xmlEvent `xml:"Event"`
	}
	if err := xml.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	type at struct {
		pid, tid uint32
		ft       uint64
	}
	want := map[at]*xmlEvent{}
	for i := range doc.Events {
		x := &doc.Events[i]
		if x.Provider.Name == "" {
			continue // kernel and header events
		}
		tm, err := time.Parse(time.RFC3339Nano, x.TimeCreated.SystemTime)
		if err != nil {
			t.Fatal(err)
		}
		ft, _ := ToFileTime(tm)
		want[at{x.Execution.ProcessID, x.Execution.ThreadID, ft}] = x
	}
	var c Cache
	var dec tdh.Decoder
	n, values := 0, 0
	eachEvent(t, filepath.Join(dir, "mytrace.etl"), func(ev *etl.Event) {
		s, ok, err := c.Schema(ev)
		if !ok {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		n++
		x := want[at{ev.ProcessID, ev.ThreadID, uint64(ev.Time)}]
		if x == nil {
			t.Errorf("event %d (%s, pid %d tid %d time %d): not in mytrace.xml", n, s.EventName, ev.ProcessID, ev.ThreadID, ev.Time)
			return
		}
		delete(want, at{ev.ProcessID, ev.ThreadID, uint64(ev.Time)})
		d, err := dec.Decode(s, ev.UserData, ev.PointerSize())
		if err != nil {
			t.Fatal(err)
		}
		if s.EventName != x.Task {
			t.Errorf("event %d: name %q, tracerpt's <Task> %q", n, s.EventName, x.Task)
		}
		if s.ProviderName != x.Provider.Name || "{"+ev.ProviderID.String()+"}" != x.Provider.GUID || int(ev.Descriptor.ID) != x.EventID {
			t.Errorf("event %d: provider %s {%v} id %d, tracerpt %s %s %d", n, s.ProviderName, ev.ProviderID, ev.Descriptor.ID, x.Provider.Name, x.Provider.GUID, x.EventID)
		}
		var got [][2]string
		for i := range d.Top() {
			v := &d.Top()[i]
			if tdh.Printable(v.Prop) {
				got = append(got, [2]string{v.Prop.Name, string(tdh.AppendText(nil, d, v, nil))})
			}
		}
		if len(got) != len(x.Data) {
			t.Errorf("event %d: %d properties %v, tracerpt %d", n, len(got), got, len(x.Data))
			return
		}
		for i, g := range got {
			values++
			if g[0] != x.Data[i].Name || g[1] != x.Data[i].Value {
				t.Errorf("event %d: %s = %q, tracerpt <Data Name=%q>%s</Data>", n, g[0], g[1], x.Data[i].Name, x.Data[i].Value)
			}
		}
	})
	t.Logf("%d TraceLogging events, %d values compared with mytrace.xml", n, values)
	if n != 8 || len(want) != 0 {
		t.Errorf("%d TraceLogging events; %d events of mytrace.xml not matched", n, len(want))
	}
}

// TestCorpusHw3d compares the TraceLogging event of hw3d's trace.etl with
// tracefmt's FmtFile.txt: the property values and the meta provider,
// event, channel and level. FmtFile.txt has two lines (two runs of the
// program); the one matching the event by process, thread and time is
// compared if there is one, else every line (the values do not depend on
// the run).
func TestCorpusHw3d(t *testing.T) {
	dir := filepath.Join(corpus(t), "rbeesley+hw3d/history/eed2678098a9ae21bb86bc11bac38ec02a8052cd")
	raw, err := os.ReadFile(filepath.Join(dir, "FmtFile.txt"))
	if err != nil {
		t.Fatal(err)
	}
	// [1]5FEC.0E48::01/13/2024-23:31:07.097 [Atum-Hw3d]{"lpCmdLine":"",…,"meta":{…}}
	type line struct {
		pid, tid uint64
		when     string
		values   map[string]any
		meta     map[string]any
	}
	var lines []line
	for _, l := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		l = strings.TrimSpace(l)
		head, rest, ok := strings.Cut(l, "::")
		i := strings.IndexByte(rest, '{')
		if !ok || i < 0 {
			t.Fatalf("FmtFile line %q", l)
		}
		ids := head[strings.IndexByte(head, ']')+1:]
		ps, ts, _ := strings.Cut(ids, ".")
		var ln line
		ln.pid, _ = strconv.ParseUint(ps, 16, 32)
		ln.tid, _ = strconv.ParseUint(ts, 16, 32)
		ln.when = strings.TrimSpace(rest[:strings.IndexByte(rest, '[')])
		dj := json.NewDecoder(strings.NewReader(rest[i:]))
		dj.UseNumber()
		if err := dj.Decode(&ln.values); err != nil {
			t.Fatalf("FmtFile line %q: %v", l, err)
		}
		ln.meta, _ = ln.values["meta"].(map[string]any)
		delete(ln.values, "meta")
		lines = append(lines, ln)
	}
	var c Cache
	var dec tdh.Decoder
	n := 0
	eachEvent(t, filepath.Join(dir, "trace.etl"), func(ev *etl.Event) {
		s, ok, err := c.Schema(ev)
		if !ok {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		n++
		d, err := dec.Decode(s, ev.UserData, ev.PointerSize())
		if err != nil {
			t.Fatal(err)
		}
		dj := json.NewDecoder(bytes.NewReader(tdh.AppendPropertiesJSON(nil, d)))
		dj.UseNumber()
		var got map[string]any
		if err := dj.Decode(&got); err != nil {
			t.Fatal(err)
		}
		when := time.Unix(0, 0).Add(time.Duration(ev.Time-116444736000000000) * 100).UTC()
		cmp := lines
		for _, ln := range lines {
			if ln.pid == uint64(ev.ProcessID) && ln.tid == uint64(ev.ThreadID) {
				cmp = []line{ln}
			}
		}
		if len(cmp) != 1 {
			t.Logf("no FmtFile.txt line is this event (pid %d tid %d cpu %d at %s UTC); FmtFile.txt holds other runs (%d lines): comparing the values with each",
				ev.ProcessID, ev.ThreadID, ev.Processor, when.Format("2006-01-02 15:04:05.000"), len(lines))
			for _, ln := range lines {
				t.Logf("  FmtFile: pid %d tid %d at %s (local time), cpu %v", ln.pid, ln.tid, ln.when, ln.meta["cpu"])
			}
		}
		for _, ln := range cmp {
			if !reflect.DeepEqual(got, ln.values) {
				t.Errorf("values %v, tracefmt %v", got, ln.values)
			}
			m := ln.meta
			if m["provider"] != s.ProviderName || m["event"] != s.EventName ||
				m["channel"] != json.Number(strconv.Itoa(int(ev.Descriptor.Channel))) || m["level"] != json.Number(strconv.Itoa(int(ev.Descriptor.Level))) {
				t.Errorf("meta %v; event %s/%s channel %d level %d", m, s.ProviderName, s.EventName, ev.Descriptor.Channel, ev.Descriptor.Level)
			}
		}
		t.Logf("%s/%s %s matches FmtFile.txt values %v", s.ProviderName, s.EventName, tdh.AppendPropertiesJSON(nil, d), lines[0].values)
	})
	if n != 1 {
		t.Errorf("%d TraceLogging events, expected 1", n)
	}
}

// TestCorpusPrimitiveTypes compares every field of primitive-types.etl
// with TraceEvent's baseline for the same file, the two time fields
// included.
//
// TraceEvent prints times as "yy/MM/dd HH:mm:ss.ff", cut to 20
// characters, in the zone of the machine that made the baseline. The
// baseline's header line gives that zone away: its StartTime is the
// header's StartTime (known exactly) printed the same way, and it is the
// UTC time, so the baseline was made at UTC+00:00. Its UtcOffsetMinutes
// (-120) is the recording machine's zone, the header's TimeZone.Bias.
// FILETIME fields must then print as TraceEvent prints them; SYSTEMTIME
// fields are compared to the second, because TraceEvent prints ".03" as
// their fraction in every event whatever the milliseconds, and must equal
// the event's FILETIME field to the millisecond (the test program wrote
// the same instant to both).
func TestCorpusPrimitiveTypes(t *testing.T) {
	dir := filepath.Join(corpus(t), "microsoft+perfview/src/TraceEvent/TraceEvent.Tests/inputs")
	base, err := os.ReadFile(filepath.Join(dir, "primitive-types.baseline.txt"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "primitive-types.etl.zip.unzipped/primitive-types.etl")
	f, err := etl.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()

	const layout = "06/01/02 15:04:05.000000"
	// teTime is a time as TraceEvent prints it, at offset minutes east of UTC.
	teTime := func(ft int64, offset int) string {
		return etl.FiletimeToTime(ft).UTC().Add(time.Duration(offset) * time.Minute).Format(layout)[:20]
	}
	fields := func(line string) map[string]string {
		m := map[string]string{}
		for _, kv := range strings.Split(line, "; ") {
			if k, v, ok := strings.Cut(kv, "="); ok {
				m[k] = strings.TrimSuffix(strings.TrimSuffix(v, "; "), "...")
			}
		}
		return m
	}
	var want []map[string]string
	var header map[string]string
	for _, line := range strings.Split(string(base), "\n") {
		switch {
		case strings.HasPrefix(line, "EVENT ") && strings.Contains(line, " Windows Kernel/EventTrace ") && header == nil:
			header = fields(line)
		case strings.HasPrefix(line, "EVENT ") && strings.Contains(line, "solar_system/PrimitiveTypesTest"):
			m := map[string]string{}
			for k, v := range fields(line) {
				if strings.HasSuffix(k, "_type") {
					m[k] = v
				}
			}
			want = append(want, m)
		}
	}
	if header == nil || len(want) != 5 {
		t.Fatalf("baseline: header line %v, %d PrimitiveTypesTest events, want 5", header != nil, len(want))
	}
	// The recording machine's zone.
	if utcOff, err := strconv.Atoi(header["UtcOffsetMinutes"]); err != nil || int32(utcOff) != f.Header.TimeZone.Bias {
		t.Errorf("UtcOffsetMinutes %q, header TimeZone.Bias %d", header["UtcOffsetMinutes"], f.Header.TimeZone.Bias)
	}
	// The zone TraceEvent printed in: the offset at which the header's
	// StartTime prints as the baseline's.
	printOffset, found := 0, 0
	for off := -14 * 60; off <= 14*60; off += 15 {
		if teTime(f.Header.StartTime, off) == header["StartTime"] {
			printOffset = off
			found++
		}
	}
	if found != 1 || printOffset != 0 {
		t.Fatalf("StartTime %q matches %d offsets (last %+d min), want exactly one: UTC", header["StartTime"], found, printOffset)
	}

	var c Cache
	var dec tdh.Decoder
	i := 0
	checked, times := 0, 0
	eachEvent(t, path, func(ev *etl.Event) {
		s, ok, err := c.Schema(ev)
		if !ok || err != nil {
			return
		}
		d, err := dec.Decode(s, ev.UserData, ev.PointerSize())
		if err != nil {
			t.Fatal(err)
		}
		if i >= len(want) {
			t.Fatalf("more events than the baseline's %d", len(want))
		}
		var fileTime int64
		var sysTime []byte
		for k, v := range d.Top() {
			name := s.Properties[k].Name
			w, ok := want[i][name]
			if !ok {
				continue
			}
			var got string
			switch name {
			case "string_type":
				got = v.String()
			case "boolean_type":
				n, _ := v.Uint()
				got = map[bool]string{true: "True", false: "False"}[n != 0]
			case "guid_type":
				g, _ := v.GUID()
				got = g.String()[:min(36, len(w))]
			case "file_time_type":
				if s.Properties[k].InType != tdh.InTypeFileTime || len(v.Data) != 8 {
					t.Fatalf("event %d: %s is %v of %d bytes", i, name, s.Properties[k].InType, len(v.Data))
				}
				fileTime = int64(binary.LittleEndian.Uint64(v.Data))
				got = teTime(fileTime, printOffset)
				times++
			case "system_time_type":
				if s.Properties[k].InType != tdh.InTypeSystemTime || len(v.Data) != 16 {
					t.Fatalf("event %d: %s is %v of %d bytes", i, name, s.Properties[k].InType, len(v.Data))
				}
				sysTime = v.Data
				st := func(j int) int { return int(binary.LittleEndian.Uint16(v.Data[2*j:])) }
				// wYear, wMonth, wDayOfWeek, wDay, wHour, wMinute, wSecond: to the second.
				got = time.Date(st(0), time.Month(st(1)), st(3), st(4), st(5), st(6), 0, time.UTC).Add(time.Duration(printOffset) * time.Minute).Format(layout)[:17]
				w = w[:min(17, len(w))]
				times++
			default:
				n, ok := v.Int()
				if !ok {
					t.Errorf("event %d: %s has no integer value (%v)", i, name, s.Properties[k].InType)
				}
				got = strconv.FormatInt(n, 10)
				w = strings.ReplaceAll(w, ",", "")
			}
			checked++
			if got != w {
				t.Errorf("event %d: %s = %q, TraceEvent %q", i, name, got, w)
			}
		}
		// The SYSTEMTIME and the FILETIME of an event are the same instant.
		if sysTime != nil {
			st := func(j int) int { return int(binary.LittleEndian.Uint16(sysTime[2*j:])) }
			tm := time.Date(st(0), time.Month(st(1)), st(3), st(4), st(5), st(6), st(7)*int(time.Millisecond), time.UTC)
			if ft := etl.FiletimeToTime(fileTime).UTC(); !tm.Equal(ft.Truncate(time.Millisecond)) {
				t.Errorf("event %d: SYSTEMTIME %v, FILETIME %v", i, tm, ft)
			}
		}
		i++
	})
	if i != len(want) || checked != 60 || times != 10 {
		t.Errorf("%d events (%d values checked, %d of them times), baseline has %d events with 12 values each", i, checked, times, len(want))
	}
}

// TestCorpusReEncode rebuilds every TraceLogging event of the corpus with
// the encoder, from its decoded metadata and values, and checks that the
// metadata blob and the payload come out byte for byte as the producer
// wrote them.
func TestCorpusReEncode(t *testing.T) {
	var c Cache
	var dec tdh.Decoder
	same, equivalent, total := 0, 0, 0
	loggedTags := map[string]bool{}
	for _, p := range etlcorpus.Traces(t) {
		eachEvent(t, p, func(ev *etl.Event) {
			s, ok, err := c.Schema(ev)
			if !ok || err != nil {
				return
			}
			total++
			blob, traits := Items(ev)
			m, err := ParseEventMetadata(blob)
			if err != nil {
				t.Fatal(err)
			}
			d, err := dec.Decode(s, ev.UserData, ev.PointerSize())
			if err != nil {
				t.Fatal(err)
			}
			fields, err := rebuild(d, d.Top(), m.Fields)
			if err != nil {
				t.Errorf("%s: %s: %v", filepath.Base(p), m.Name, err)
				return
			}
			out := Event{Name: m.Name, Tags: m.Tags, Fields: fields}
			ext, payload, err := out.ETLData(s.ProviderName)
			if err != nil {
				t.Errorf("%s: %s: %v", filepath.Base(p), m.Name, err)
				return
			}
			// A provider group trait is not written by ETLData; add it.
			if pt, err := etl.ParseProviderTraits(traits); err == nil && len(pt.Traits) == 1 && pt.Traits[0].GUID != nil {
				g := make([]byte, 16)
				etl.PutGUIDWindows(g, *pt.Traits[0].GUID)
				ext[0].Data = EncodeProviderTraits(pt.Name, g)
			}
			if !bytes.Equal(ext[0].Data, traits) || !bytes.Equal(payload, ev.UserData) {
				t.Errorf("%s: %s: re-encoded\n traits % x\n   want % x\n payload % x\n    want % x",
					filepath.Base(p), m.Name, ext[0].Data, traits, payload, ev.UserData)
				return
			}
			if !bytes.Equal(ext[1].Data, blob) {
				// Producers may write tags longer than needed (LxCore: 80 00
				// for no tags); the metadata must still be the same.
				back, err := ParseEventMetadata(ext[1].Data)
				if err != nil || !reflect.DeepEqual(back, m) {
					t.Errorf("%s: %s: re-encoded metadata\n % x\n want % x", filepath.Base(p), m.Name, ext[1].Data, blob)
					return
				}
				if !loggedTags[m.Name] {
					loggedTags[m.Name] = true
					t.Logf("%s: %s: producer's metadata % x… encodes the same tags (%#x) as our % x…", filepath.Base(p), m.Name, blob[:4], m.Tags, ext[1].Data[:3])
				}
				equivalent++
				return
			}
			same++
		})
	}
	t.Logf("%d of %d TraceLogging events re-encoded byte for byte, %d more with equivalent metadata", same, total, equivalent)
	if same+equivalent != total || total == 0 {
		t.Errorf("%d of %d events re-encoded", same+equivalent, total)
	}
}

// rebuild makes FieldValues from decoded values, with the constructors a
// producer would use for each TraceLogging type.
func rebuild(d *tdh.Decoded, vals []tdh.Value, fields []Field) ([]FieldValue, error) {
	var out []FieldValue
	i := 0
	for _, f := range fields {
		if i < len(vals) && !tdh.Printable(vals[i].Prop) && strings.HasPrefix(vals[i].Prop.Name, f.Name+".") {
			i++ // synthesized length or count
		}
		v := &vals[i]
		i++
		opts := []Option{WithTags(f.Tags)}
		if f.OutType != 0 {
			opts = append(opts, WithOut(f.OutType))
		}
		if f.Arity == ArityVCount && f.OutType == OutString && f.InType == InUInt16 {
			out = append(out, Char16Array(f.Name, v.String(), opts...))
			continue
		}
		one := func(v *tdh.Value, name string) (FieldValue, error) {
			if f.InType == InStruct {
				fs, err := rebuild(d, d.Children(v), f.Fields)
				if err != nil {
					return FieldValue{}, err
				}
				return Struct(name, fs, opts...), nil
			}
			u, _ := v.Uint()
			switch f.InType {
			case InUnicodeString:
				return UnicodeString(name, v.String(), opts...), nil
			case InAnsiString:
				return AnsiString(name, string(v.Data), opts...), nil
			case InCountedString:
				return CountedUnicodeString(name, v.String(), opts...), nil
			case InCountedAnsiString:
				return CountedAnsiString(name, string(v.Data), opts...), nil
			case InUInt8:
				return Uint8(name, uint8(u), opts...), nil
			case InInt16:
				return Int16(name, int16(u), opts...), nil
			case InUInt16:
				return Uint16(name, uint16(u), opts...), nil
			case InInt32:
				return Int32(name, int32(u), opts...), nil
			case InUInt32:
				return Uint32(name, uint32(u), opts...), nil
			case InUInt64:
				return Uint64(name, u, opts...), nil
			case InGUID:
				g, _ := v.GUID()
				return GUID(name, g, opts...), nil
			case InFileTime:
				ft := binary.LittleEndian.Uint64(v.Data)
				return FileTime(name, time.Unix(int64(ft/1e7)-filetimeUnixDifference, int64(ft%1e7)*100), opts...), nil
			case InSystemTime:
				w := func(i int) int { return int(binary.LittleEndian.Uint16(v.Data[2*i:])) }
				return SystemTime(name, time.Date(w(0), time.Month(w(1)), w(3), w(4), w(5), w(6), w(7)*1e6, time.UTC), opts...), nil
			}
			return FieldValue{}, fmt.Errorf("field %q: in-type %d not rebuilt by this test", f.Name, f.InType)
		}
		if f.Arity != ArityScalar {
			return nil, fmt.Errorf("field %q: arity %#x not rebuilt by this test", f.Name, f.Arity)
		}
		fv, err := one(v, f.Name)
		if err != nil {
			return nil, err
		}
		out = append(out, fv)
	}
	return out, nil
}
