package tracerpt_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/google/uuid"

	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/eventinfo"
	"github.com/etwkit/etw/internal/etltest"
	"github.com/etwkit/etw/manifest"
	"github.com/etwkit/etw/pipeline"
	"github.com/etwkit/etw/tdh"
	"github.com/etwkit/etw/tracelogging"
	"github.com/etwkit/etw/tracerpt"
)

// The schema sources a trace carries, fuzzed end to end: hostile schema
// content goes into an .etl file with events that use it, and the file
// through pipeline.Run (prescan, registry, decoder, rendering, an
// encoder: each input picks one of the three formats, which keeps the
// fuzzer's minimisation of new inputs short). Invariants: no panic, no hang, JSON Lines stay
// valid, and each event's rendering stays within the documented bounds.

// maxEventOutput bounds one event's rendering in any format: the
// properties (tdh.MaxTextBytes, six times over for XML escaping), the
// message (tdh.MaxMessageBytes, escaped too) and the fixed fields.
const maxEventOutput = 6*(tdh.MaxTextBytes+tdh.MaxMessageBytes) + 1<<20

// runSchemaFile dumps a file in one of the three formats (sel picks it)
// with a new decoder, and checks the output.
func runSchemaFile(t *testing.T, b []byte, events int, sel uint8) {
	file, err := etl.NewFile(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatalf("fixture does not open: %v", err)
	}
	files := []*etl.File{file}
	format := []tracerpt.Format{tracerpt.XML, tracerpt.CSV, tracerpt.JSON}[int(sel)%3]
	var out bytes.Buffer
	start := time.Now()
	_, err = pipeline.Run(context.Background(), &pipeline.Config[byte]{Files: files, Workers: 1, Decoder: decode.New(),
		Encoder: tracerpt.NewEncoder(format, files, &tracerpt.Options{}), Output: &out})
	if err != nil {
		t.Fatalf("%v: %v", format, err)
	}
	if el := time.Since(start); el > 20*time.Second {
		t.Fatalf("%v: %v for %d events", format, el, events)
	}
	if out.Len() > (events+4)*maxEventOutput {
		t.Fatalf("%v: %d bytes for %d events", format, out.Len(), events)
	}
	if format == tracerpt.JSON {
		for i, line := range bytes.Split(bytes.TrimSpace(out.Bytes()), []byte("\n")) {
			if len(line) > 0 && !json.Valid(line) {
				t.Fatalf("JSON line %d is not valid JSON: %.200s", i+1, line)
			}
		}
	}
}

// schemaFile builds a 64-bit file of one 64 KiB buffer holding recs.
func schemaFile(recs ...[]byte) []byte {
	tf := etltest.NewFile(64<<10, true)
	var buf [][]byte
	size := etl.BufferHeaderSize
	for _, r := range recs {
		if size+(len(r)+7)&^7 > 64<<10 {
			tf.AddBuffer(0, 80000000000+int64(len(tf.Buffers)), buf...)
			buf, size = nil, etl.BufferHeaderSize
		}
		buf = append(buf, r)
		size += (len(r) + 7) &^ 7
	}
	if len(buf) > 0 {
		tf.AddBuffer(0, 80000000000+int64(len(tf.Buffers)), buf...)
	}
	return tf.Bytes()
}

// attackSeed reads a hostile input of the attack run as a seed when
// ETL_ATTACK (or ETL_CORPUS) says where they are: never stored here.
func attackSeed(name string) []byte {
	dir := os.Getenv("ETL_ATTACK")
	if dir == "" && os.Getenv("ETL_CORPUS") != "" {
		dir = filepath.Join(os.Getenv("ETL_CORPUS"), "..", "attack")
	}
	if dir == "" {
		return nil
	}
	b, _ := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
	return b
}

const fuzzManifest = `<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"><instrumentation><events>` +
	`<provider name="Fuzz-ES" guid="{a8a71ac1-040f-54a2-07ca-00a89b5ab761}" symbol="F"><maps><valueMap name="M"><map value="1" message="one"/></valueMap></maps>` +
	`<templates><template tid="T"><data name="N" inType="win:UInt16"/><data name="S" inType="win:UnicodeString"/>` +
	`<struct name="P" count="N"><data name="K" inType="win:UInt8" map="M"/></struct></template></templates>` +
	`<events><event value="7" version="0" level="win:Informational" template="T" message="$(string.m)"/></events></provider></events></instrumentation>` +
	`<localization><resources culture="en-US"><stringTable><string id="m" value="%2 has %1 items: %3"/></stringTable></resources></localization></instrumentationManifest>`

// FuzzEventSourceManifest: a manifest logged by an EventSource provider
// (in one to four chunks), then events of the events it declares (four
// per provider at most) with the payload; sel picks the output format and
// the number of chunks.
func FuzzEventSourceManifest(f *testing.F) {
	payload := []byte{2, 0}
	payload = append(payload, etltest.UTF16Z("job")...)
	payload = append(payload, 1, 1)
	for sel := uint8(0); sel < 12; sel += 5 { // each format, one to three chunks
		f.Add([]byte(fuzzManifest), payload, sel)
	}
	f.Add([]byte(strings.Replace(fuzzManifest, "%2 has %1 items: %3", strings.Repeat("%2", 2000), 1)), payload, uint8(1))
	f.Add([]byte(strings.Replace(fuzzManifest, `<data name="K" inType="win:UInt8" map="M"/>`, `<struct name="E" count="65535"></struct>`, 1)), payload, uint8(3))
	for _, name := range []string{"schemas/msg_repeat_1000.man", "schemas/zero_size_struct_empty.man"} {
		if b := attackSeed(name); b != nil {
			f.Add(b, bytes.Repeat([]byte{'A', 0}, 3000), uint8(2))
		}
	}
	f.Fuzz(func(t *testing.T, xml, payload []byte, sel uint8) {
		if len(xml) > 48<<10 || len(payload) > 32<<10 {
			return
		}
		n := int(sel/3%4) + 1 // chunks
		var recs [][]byte
		size := (len(xml) + n - 1) / n
		g := uuid.MustParse("a8a71ac1-040f-54a2-07ca-00a89b5ab761")
		m, err := manifest.Parse(bytes.NewReader(xml), "fuzz.man")
		if err == nil && len(m.Providers) > 0 {
			g = m.Providers[0].GUID
		}
		for i := 0; i < n; i++ {
			part := xml[min(len(xml), i*size):min(len(xml), (i+1)*size)]
			env := []byte{1, 1, 0, 0x5B, 0, 0, 0, 0}
			binary.LittleEndian.PutUint16(env[4:], uint16(n))
			binary.LittleEndian.PutUint16(env[6:], uint16(i))
			recs = append(recs, etltest.Event(etl.HeaderEvent64, 0, 1, 2, 80000000100, g,
				etl.EventDescriptor{ID: 0xFFFE, Version: 1, Opcode: 0xFE}, uuid.Nil, nil, append(env, part...)))
		}
		events := n
		if m != nil {
			for _, p := range m.Providers {
				for i, e := range p.Events {
					if i >= 4 {
						break
					}
					recs = append(recs, etltest.Event(etl.HeaderEvent64, 0, 1, 2, 80000000200, p.GUID,
						etl.EventDescriptor{ID: e.ID, Version: e.Version, Level: 4}, uuid.Nil, nil, payload))
					events++
				}
			}
		}
		runSchemaFile(t, schemaFile(recs...), events, sel)
	})
}

// FuzzTraceLoggingEvent: TraceLogging metadata (extended item 11) and a
// payload, in two events (the second one finds the schema cached); sel
// picks the output format.
func FuzzTraceLoggingEvent(f *testing.F) {
	ev := &tracelogging.Event{Name: "E", Fields: []tracelogging.FieldValue{
		tracelogging.UnicodeString("S", "hello"),
		tracelogging.Array("A", []uint32{1, 2, 3}, tracelogging.Uint32),
		tracelogging.Struct("St", []tracelogging.FieldValue{tracelogging.Uint8("X", 7), tracelogging.Struct("In", []tracelogging.FieldValue{tracelogging.Bool32("B", true)})}),
		tracelogging.Array("SA", []tracelogging.FieldValue{tracelogging.Struct("e", []tracelogging.FieldValue{tracelogging.Int64("V", -1)})}, func(_ string, v tracelogging.FieldValue, _ ...tracelogging.Option) tracelogging.FieldValue { return v }),
	}}
	meta, payload, err := ev.Encode()
	if err != nil {
		f.Fatal(err)
	}
	for sel := uint8(0); sel < 3; sel++ {
		f.Add(meta, payload, sel)
	}
	// Nested deeper than the bound.
	deep := []byte{0, 0, 0, 'D', 0}
	for i := 0; i < 200; i++ {
		deep = append(deep, 'a', 0, 0x80|tracelogging.InStruct, 1)
	}
	deep = append(deep, 'v', 0, 4)
	binary.LittleEndian.PutUint16(deep, uint16(len(deep)))
	f.Add(deep, []byte{1}, uint8(2))
	f.Fuzz(func(t *testing.T, meta, payload []byte, sel uint8) {
		if len(meta) > 30<<10 || len(payload) > 30<<10 {
			return
		}
		ext := []etltest.Ext{{Type: etl.ExtProvTraits, Data: tracelogging.EncodeProviderTraits("Fuzz-TL", nil)}, {Type: etl.ExtEventSchemaTL, Data: meta}}
		rec := etltest.Event(etl.HeaderEvent64, 0, 1, 2, 80000000200, tracelogging.ProviderGUID("Fuzz-TL"),
			etl.EventDescriptor{Channel: tracelogging.ChannelTraceLogging, Level: 4}, uuid.Nil, ext, payload)
		runSchemaFile(t, schemaFile(rec, rec), 2, sel)
	})
}

// teiProp is one EVENT_PROPERTY_INFO of a seed: a struct when members > 0
// or isStruct (in, out: StructStartIndex, NumOfStructMembers).
type teiProp struct {
	name          string
	flags         uint32
	in, out       uint16
	count, length uint16
}

// teiBytes builds a TRACE_EVENT_INFO of a manifest event.
func teiBytes(provider uuid.UUID, id uint16, props []teiProp, top int) []byte {
	le := binary.LittleEndian
	b := make([]byte, 112+24*len(props))
	etl.PutGUIDWindows(b[0:], provider)
	le.PutUint16(b[32:], id)
	b[36] = 4
	str := func(s string) uint32 {
		off := uint32(len(b))
		for _, c := range utf16.Encode([]rune(s)) {
			b = le.AppendUint16(b, c)
		}
		b = append(b, 0, 0)
		return off
	}
	name := str("Fuzz-TEI") // before slicing b: str may move it
	le.PutUint32(b[52:], name)
	le.PutUint32(b[100:], uint32(len(props)))
	le.PutUint32(b[104:], uint32(top))
	for i, p := range props {
		e := 112 + 24*i
		off := str(p.name)
		le.PutUint32(b[e:], p.flags)
		le.PutUint32(b[e+4:], off)
		le.PutUint16(b[e+8:], p.in)
		le.PutUint16(b[e+10:], p.out)
		le.PutUint16(b[e+16:], p.count)
		le.PutUint16(b[e+18:], p.length)
	}
	return b
}

// FuzzTraceEventInfo: a relogged trace's TDH metadata (a KernelTraceControl
// MetaData EventInfo event carrying a TRACE_EVENT_INFO), then an event of
// the schema it describes with the payload; sel picks the output format.
func FuzzTraceEventInfo(f *testing.F) {
	g := uuid.MustParse("0a1b2c3d-0000-4000-8000-000000000001")
	const (
		propStruct      = 0x1
		propParamCount  = 0x4
		propFixedCount  = 0x20
		inUInt16, inStr = 6, 1
	)
	for sel := uint8(0); sel < 3; sel++ {
		f.Add(teiBytes(g, 1, []teiProp{{name: "N", in: inUInt16, count: 1}, {name: "S", in: inStr, count: 1}}, 2), []byte{1, 0, 'a', 0, 0, 0}, sel)
	}
	f.Add(teiBytes(g, 1, []teiProp{{name: "N", in: inUInt16, count: 1}, {name: "P", flags: propStruct | propParamCount, in: 2, out: 1, count: 0}, {name: "K", in: 4, count: 1}}, 2), []byte{2, 0, 1, 2}, uint8(2))
	// An array of an empty struct: rejected, whatever the payload.
	f.Add(teiBytes(g, 1, []teiProp{{name: "E", flags: propStruct | propFixedCount, in: 1, out: 0, count: 65535}}, 1), []byte{}, uint8(0))
	f.Fuzz(func(t *testing.T, tei, payload []byte, sel uint8) {
		if len(tei) > 30<<10 || len(payload) > 30<<10 {
			return
		}
		recs := [][]byte{etltest.Classic(etl.HeaderClassic64, eventinfo.OpcodeEventInfo, 0, 0, 1, 2, 80000000100, eventinfo.MetadataGUID, tei)}
		events := 1
		if s, err := eventinfo.ParseEventInfo(tei); err == nil {
			d := etl.EventDescriptor{ID: s.ID, Version: s.Version, Level: s.Level, Opcode: s.Opcode}
			if s.Source == tdh.SourceMOF {
				recs = append(recs, etltest.Classic(etl.HeaderClassic64, s.Opcode, s.Level, uint16(s.Version), 1, 2, 80000000200, s.ProviderGUID, payload))
			} else {
				recs = append(recs, etltest.Event(etl.HeaderEvent64, 0, 1, 2, 80000000200, s.ProviderGUID, d, uuid.Nil, nil, payload))
			}
			events++
		}
		runSchemaFile(t, schemaFile(recs...), events, sel)
	})
}
