package tracerpt_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/etwkit/etw/analysis"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/eventjson"
	"github.com/etwkit/etw/internal/etltest"
	"github.com/etwkit/etw/pipeline"
	"github.com/etwkit/etw/tdh"
	"github.com/etwkit/etw/tracerpt"
)

// TestCorpusJSONIntegerRule dumps every corpus file as JSON Lines (with
// the analysis model, as the command line does) and checks the integer
// rule of docs/cli.md over every value: each integer literal is within
// ±2^53, and a float64 reader (jq, JavaScript, pandas: strconv.ParseFloat
// here) gets from the JSON exactly the integers the Go values hold, for
// the header fields, every integer property (at any depth), the extended
// items and the stack frames, with the integers above 2^53 as decimal
// strings.
func TestCorpusJSONIntegerRule(t *testing.T) {
	dir := corpus(t)
	paths := etltest.CorpusTraces(t)
	total := map[string]int{}
	for _, p := range paths {
		rel, _ := filepath.Rel(dir, p)
		t.Run(rel, func(t *testing.T) {
			n := checkIntegerRule(t, p)
			for k, v := range n {
				total[k] += v
			}
		})
	}
	t.Logf("%d files; integers checked against the Go values: %v", len(paths), total)
	if total["big"] == 0 || total["property"] == 0 || total["stack"] == 0 {
		t.Errorf("the corpus exercised too little: %v", total)
	}
}

// intCheck compares one JSON value with the integer it must carry.
type intCheck struct {
	t     *testing.T
	where string
	count map[string]int
	fails int
}

// exact reports whether JSON value v (from a UseNumber decode) is the
// integer neg/mag as a float64 reader sees it: a number literal up to
// 2^53 whose float64 is exactly the integer, or a decimal string above.
func (c *intCheck) exact(kind, key string, v any, neg bool, mag uint64) {
	c.count[kind]++
	if mag > tdh.MaxExactJSONInt {
		c.count["big"]++
	}
	want := strconv.FormatUint(mag, 10)
	if neg && mag != 0 {
		want = "-" + want
	}
	switch v := v.(type) {
	case json.Number:
		if mag > tdh.MaxExactJSONInt {
			c.fail("%s: %s is a number above 2^53", key, v)
			return
		}
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil || f != math.Trunc(f) || math.Abs(f) > tdh.MaxExactJSONInt {
			c.fail("%s: %s is not an exact integer", key, v)
			return
		}
		if got := strconv.FormatFloat(f, 'f', -1, 64); got != want {
			c.fail("%s: a float64 reader gets %s, the value is %s", key, got, want)
		}
	case string:
		if mag <= tdh.MaxExactJSONInt {
			c.fail("%s: %q is a string, want the number %s", key, v, want)
		} else if v != want {
			c.fail("%s: %q, want %q", key, v, want)
		}
	default:
		c.fail("%s: %v (%T), want the integer %s", key, v, v, want)
	}
}

func (c *intCheck) u(kind, key string, v any, n uint64) { c.exact(kind, key, v, false, n) }
func (c *intCheck) i(kind, key string, v any, n int64) {
	if n < 0 {
		c.exact(kind, key, v, true, uint64(-n))
	} else {
		c.exact(kind, key, v, false, uint64(n))
	}
}

func (c *intCheck) fail(format string, args ...any) {
	c.fails++
	if c.fails <= 10 {
		c.t.Errorf("%s: "+format, append([]any{c.where}, args...)...)
	}
}

// literals checks every number literal of a decoded line: integers within
// ±2^53.
func (c *intCheck) literals(key string, v any) {
	switch v := v.(type) {
	case json.Number:
		s := string(v)
		if strings.ContainsAny(s, ".eE") {
			return // a float (property of a float type, rel_ms)
		}
		if f, err := strconv.ParseFloat(s, 64); err != nil || math.Abs(f) > tdh.MaxExactJSONInt {
			c.fail("%s: integer literal %s beyond 2^53", key, s)
		}
	case map[string]any:
		for k, x := range v {
			c.literals(key+"."+k, x)
		}
	case []any:
		for i, x := range v {
			c.literals(key+"["+strconv.Itoa(i)+"]", x)
		}
	}
}

// otherKind reports whether integer property p renders as another kind of
// value (docs/cli.md): boolean, character, IPv4 address, time.
func otherKind(p *tdh.Property) bool {
	switch p.EffectiveOutType() {
	case tdh.OutTypeBoolean, tdh.OutTypeString, tdh.OutTypeIPv4, tdh.OutTypeDateTime, tdh.OutTypeDateTimeUTC, tdh.OutTypeCultureInsensitiveDateTime:
		return true
	}
	return false
}

// value compares a decoded value with its JSON rendering.
func (c *intCheck) value(key string, d *tdh.Decoded, v *tdh.Value, j any) {
	if v.Prop == nil {
		return
	}
	switch v.Kind {
	case tdh.Array:
		arr, ok := j.([]any)
		if !ok {
			return // character arrays are strings
		}
		kids := d.Values[v.First : v.First+v.N]
		if len(arr) != len(kids) {
			c.fail("%s: %d elements, want %d", key, len(arr), len(kids))
			return
		}
		for i := range kids {
			c.value(fmt.Sprintf("%s[%d]", key, i), d, &kids[i], arr[i])
		}
		return
	case tdh.Struct:
		obj, ok := j.(map[string]any)
		if !ok {
			c.fail("%s: %v is not an object", key, j)
			return
		}
		kids := d.Values[v.First : v.First+v.N]
		for i := range kids {
			mp := kids[i].Prop
			if i < len(v.Prop.Members) {
				mp = &v.Prop.Members[i]
			}
			if mp == nil || !tdh.Printable(mp) {
				continue
			}
			c.value(key+"."+mp.Name, d, &kids[i], obj[mp.Name])
		}
		return
	}
	p := v.Prop
	size := len(v.Data)
	switch in := p.InType; {
	case in == tdh.InTypePointer || in == tdh.InTypeSizeT:
		if size != 4 && size != 8 {
			return
		}
	case in.IsInteger():
		if size != in.FixedSize(8) {
			return
		}
	default:
		return
	}
	if p.EffectiveOutType() == tdh.OutTypePort && size == 2 {
		c.u("property", key, j, uint64(binary.BigEndian.Uint16(v.Data)))
		return
	}
	if otherKind(p) {
		if _, isNum := j.(json.Number); isNum {
			// Only a map's entry keeps such a value a number.
			if p.Map == nil {
				c.fail("%s: %v is a number, out-type %v", key, j, p.EffectiveOutType())
			}
		} else {
			return
		}
	}
	if p.InType.IsSigned() {
		n, _ := v.Int()
		c.i("property", key, j, n)
	} else {
		n, _ := v.Uint()
		c.u("property", key, j, n)
	}
}

// extended compares the integers of an extended item.
func (c *intCheck) extended(key string, x etl.ExtendedItem, j any) {
	obj, _ := j.(map[string]any)
	if obj == nil {
		c.fail("%s: %v", key, j)
		return
	}
	if _, bad := obj["error"]; bad {
		return
	}
	v, err := x.Value()
	if err != nil {
		c.fail("%s: no error key for %v", key, err)
		return
	}
	jv := obj["value"]
	m, _ := jv.(map[string]any)
	switch v := v.(type) {
	case uint32:
		c.u("extended", key, jv, uint64(v))
	case uint64:
		c.u("extended", key, jv, v)
	case []uint64:
		arr, _ := jv.([]any)
		if len(arr) != len(v) {
			c.fail("%s: %d counters, want %d", key, len(arr), len(v))
			return
		}
		for i := range v {
			c.u("extended", key, arr[i], v[i])
		}
	case etl.StackTrace:
		c.u("extended", key+".match_id", m["match_id"], v.MatchID)
		arr, _ := m["addresses"].([]any)
		if len(arr) != len(v.Addresses) {
			c.fail("%s: %d addresses, want %d", key, len(arr), len(v.Addresses))
			return
		}
		for i, a := range v.Addresses {
			c.u("stack", key+".addresses", arr[i], a)
		}
	case etl.StackKey:
		c.u("extended", key+".match_id", m["match_id"], v.MatchID)
		c.u("extended", key+".stack_key", m["stack_key"], v.StackKey)
	case etl.InstanceInfo:
		c.u("extended", key+".instance_id", m["instance_id"], uint64(v.InstanceID))
		c.u("extended", key+".parent_instance_id", m["parent_instance_id"], uint64(v.ParentInstanceID))
	}
}

// frames checks the stack frames: addresses and offsets by the rule, an
// offset never above its address.
func (c *intCheck) frames(j any) {
	arr, _ := j.([]any)
	for _, f := range arr {
		fr, _ := f.(map[string]any)
		addr, ok1 := ruleUint(fr["address"])
		if !ok1 {
			c.fail("stack address %v breaks the rule", fr["address"])
			continue
		}
		c.count["stack"]++
		if off, ok := fr["offset"]; ok {
			o, ok2 := ruleUint(off)
			if !ok2 || o > addr {
				c.fail("stack offset %v (address %d)", off, addr)
			}
		}
	}
}

// ruleUint reads an unsigned integer written by the rule.
func ruleUint(v any) (uint64, bool) {
	switch v := v.(type) {
	case json.Number:
		n, err := strconv.ParseUint(string(v), 10, 64)
		return n, err == nil && n <= tdh.MaxExactJSONInt
	case string:
		n, err := strconv.ParseUint(v, 10, 64)
		return n, err == nil && n > tdh.MaxExactJSONInt
	}
	return 0, false
}

// checkIntegerRule dumps one file and checks every line against the
// events a second reader delivers.
func checkIntegerRule(t *testing.T, path string) map[string]int {
	files := open(t, path)
	dec := decode.New()
	model, _ := analysis.Build(files, dec, nil)
	pr, pw := io.Pipe()
	go func() {
		_, err := pipeline.Run(context.Background(), &pipeline.Config[byte]{
			Files: files, Decoder: dec, Encoder: tracerpt.NewEncoder(tracerpt.JSON, files, nil),
			Output: pw, Workers: 2, Analysis: model,
		})
		pw.CloseWithError(err)
	}()
	defer pr.Close()

	ref := decode.New()
	ref.Prescan(files)
	r := etl.NewReader(files, nil)
	defer r.Close()
	start := eventjson.TraceStart(files)
	c := &intCheck{t: t, count: map[string]int{}}
	br := bufio.NewReaderSize(pr, 1<<20)
	line := 0
	for r.Next() {
		ev := r.Event()
		res := ref.Decode(ev)
		line++
		c.where = fmt.Sprintf("line %d", line)
		text, err := br.ReadBytes('\n')
		if err != nil {
			t.Fatalf("%s: %v (the dump ends before the events)", c.where, err)
		}
		var m map[string]any
		jd := json.NewDecoder(bytes.NewReader(text))
		jd.UseNumber()
		if err := jd.Decode(&m); err != nil {
			t.Fatalf("%s: %v: %.200s", c.where, err, text)
		}
		c.literals("", m)

		c.i("header", "filetime", m["filetime"], ev.Time)
		c.i("header", "raw_timestamp", m["raw_timestamp"], ev.Timestamp)
		c.i("header", "time_ns", m["time_ns"], (ev.Time-116444736000000000)*100)
		if rel, ok := m["rel_ms"].(json.Number); !ok {
			c.fail("rel_ms %v", m["rel_ms"])
		} else if f, _ := rel.Float64(); math.Abs(f-float64(ev.Time-start)/1e4) > 1e-6*math.Max(1, math.Abs(f)) {
			c.fail("rel_ms %v, want %v", rel, float64(ev.Time-start)/1e4)
		}
		c.u("header", "cpu", m["cpu"], uint64(ev.Processor))
		// The header's ids are "pid" and "tid", or "header_pid" and
		// "header_tid" where the event belongs to another process.
		headerID := func(key string, id uint32) {
			if id == analysis.NoID {
				return
			}
			if v, ok := m["header_"+key]; ok {
				c.u("header", "header_"+key, v, uint64(id))
			} else {
				c.u("header", key, m[key], uint64(id))
			}
		}
		headerID("pid", ev.ProcessID)
		headerID("tid", ev.ThreadID)
		c.u("header", "flags", m["flags"], uint64(ev.Flags))
		c.u("header", "keywords", m["keywords"], ev.Descriptor.Keyword)
		c.u("header", "event_id", m["event_id"], uint64(ev.Descriptor.ID))
		if _, ok := m["hook_id"]; ok {
			c.u("header", "hook_id", m["hook_id"], uint64(ev.HookID))
		}
		if _, ok := m["processor_time"]; ok {
			c.u("header", "processor_time", m["processor_time"], ev.ProcessorTime)
		}
		ext, _ := m["extended"].([]any)
		if len(ext) != len(ev.Extended) {
			c.fail("%d extended items, want %d", len(ext), len(ev.Extended))
		} else {
			for i, x := range ev.Extended {
				c.extended(fmt.Sprintf("extended[%d]", i), x, ext[i])
			}
		}
		if res.Schema != nil && res.Err == nil {
			props, ok := m["properties"].(map[string]any)
			if !ok {
				c.fail("no properties")
			} else {
				d := res.Decoded
				top := d.Schema.Properties[:len(d.Top())]
				for i := range top {
					if i < len(d.Values) && tdh.Printable(&top[i]) {
						c.value(top[i].Name, d, &d.Values[i], props[top[i].Name])
					}
				}
			}
		}
		c.frames(m["stack"])
		if c.fails > 10 {
			t.FailNow()
		}
	}
	if rest, _ := io.ReadAll(br); len(rest) != 0 {
		t.Errorf("the dump has more lines than the reader has events: %.200s", rest)
	}
	return c.count
}

// TestAppendEventJSONDoesNotAllocate: the one-event function keeps no
// caches (the encoder's per-worker caches would be allocated per call).
func TestAppendEventJSONDoesNotAllocate(t *testing.T) {
	ev := &etl.Event{Header: etl.HeaderEvent64, Time: 132404548206528893, ProviderID: etl.GUIDFromWindows([]byte{0x23, 0x0d, 0x3c, 0xe1, 0xbc, 0xcc, 0x12, 0x4e, 0x93, 0x1b, 0xd9, 0xcc, 0x2e, 0xee, 0x27, 0xe4}),
		Descriptor: etl.EventDescriptor{ID: 10, Level: 5}, UserData: []byte{1, 2, 3}}
	res := &decode.Result{}
	buf := make([]byte, 0, 4096)
	if n := testing.AllocsPerRun(100, func() { buf = tracerpt.AppendEventJSON(buf[:0], ev, res, false, false) }); n != 0 {
		t.Errorf("AppendEventJSON: %v allocations per event", n)
	}
}
