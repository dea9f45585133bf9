package synth_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/etltest"
	"github.com/etwkit/etw/synth"
	"github.com/etwkit/etw/tdh"
)

const foreign = `{"time":"2024-05-01T10:00:00Z","provider_name":"MyCompany-MyApp","event_name":"Started","pid":42,"tid":7,"properties":{"Build":"1.2.3","Workers":8}}

{"time":"2024-05-01T10:00:01.5Z","provider_name":"MyCompany-MyApp","event_name":"Stopped","level":4,"properties":{"Ok":true,"Ratio":0.25,"Tags":["a","b"]}}
`

func convert(t *testing.T, in string) (string, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "out.etl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return path, synth.Convert(f, strings.NewReader(in), "events.jsonl", nil)
}

// Foreign JSON objects become TraceLogging events that decode back to
// their properties.
func TestConvertForeignJSON(t *testing.T) {
	path, err := convert(t, foreign)
	if err != nil {
		t.Fatal(err)
	}
	d := decode.New()
	var got []string
	etltest.ForEachEvent(t, path, func(_ *etl.File, ev *etl.Event) {
		if res := d.Decode(ev); res.Schema != nil && res.Origin.Kind == "tracelogging" {
			got = append(got, res.Schema.EventName+" "+string(tdh.AppendPropertiesJSON(nil, res.Decoded)))
		}
	})
	want := []string{`Started {"Build":"1.2.3","Workers":8}`, `Stopped {"Ok":true,"Ratio":0.25,"Tags":["a","b"]}`}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("decoded:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Errors name the input and the line.
func TestConvertErrorsNameTheLine(t *testing.T) {
	for _, c := range []struct {
		in   string
		line int
	}{
		{foreign + "{not json\n", 4},
		{`{"time":"yesterday","provider_name":"P","properties":{}}`, 1},
		{"", 0},
	} {
		_, err := convert(t, c.in)
		var ie *synth.InputError
		if !errors.As(err, &ie) || ie.Line != c.line || !strings.HasPrefix(err.Error(), "events.jsonl") {
			t.Errorf("%q: error %v, want an InputError at line %d", c.in, err, c.line)
		}
	}
}

// Dumps of schema etwkit.event/1 (hex strings for flags, keywords and hook
// ids; plain numbers above 2^53) and of etwkit.event/2 (the integer rule)
// give the same file.
func TestConvertReadsBothSchemas(t *testing.T) {
	v1 := `{"time":"2020-01-29T15:44:23.8611634Z","filetime":132247862638611634,"raw_timestamp":80000002000,"cpu":0,"pid":836,"tid":4660,"header":"event64","flags":"0x241","provider_guid":"{3f4a7f2e-5c1d-4b8e-9a61-0c2d3e4f5a6b}","event_id":1,"version":1,"channel":16,"level":4,"opcode":0,"task":10,"keywords":"0x8000000000000001","kernel_time":3,"user_time":4,"extended":[{"type":"stack_trace64","value":{"match_id":0,"addresses":[18446735278180854569,8769521010011]}}],"user_data":"680065006c006c006f000000"}
{"time":"2020-01-29T15:44:23.8612634Z","filetime":132247862638612634,"raw_timestamp":80000003000,"cpu":0,"pid":836,"tid":4660,"header":"perfinfo64","flags":"0x350","provider_guid":"{ce1dbfb4-137e-4da6-87b0-3f59aa102cbc}","event_id":0,"version":2,"channel":0,"level":0,"opcode":46,"task":0,"keywords":"0x0","hook_id":"0xf2e","user_data":"cdab4523018ff8ff3412000001000000"}
`
	v2 := `{"time":"2020-01-29T15:44:23.8611634Z","time_ns":"1580312663861163400","filetime":"132247862638611634","raw_timestamp":80000002000,"cpu":0,"pid":836,"tid":4660,"header":"event64","flags":577,"provider_guid":"{3f4a7f2e-5c1d-4b8e-9a61-0c2d3e4f5a6b}","event_id":1,"version":1,"channel":16,"level":4,"opcode":0,"task":10,"keywords":"9223372036854775809","kernel_time":3,"user_time":4,"extended":[{"type":"stack_trace64","value":{"match_id":0,"addresses":["18446735278180854569",8769521010011]}}],"user_data":"680065006c006c006f000000"}
{"time":"2020-01-29T15:44:23.8612634Z","time_ns":"1580312663861263400","filetime":"132247862638612634","raw_timestamp":80000003000,"cpu":0,"pid":836,"tid":4660,"header":"perfinfo64","flags":848,"provider_guid":"{ce1dbfb4-137e-4da6-87b0-3f59aa102cbc}","event_id":0,"version":2,"channel":0,"level":0,"opcode":46,"task":0,"keywords":0,"hook_id":3886,"user_data":"cdab4523018ff8ff3412000001000000"}
`
	p1, err := convert(t, v1)
	if err != nil {
		t.Fatal(err)
	}
	p2, err := convert(t, v2)
	if err != nil {
		t.Fatal(err)
	}
	b1, _ := os.ReadFile(p1)
	b2, _ := os.ReadFile(p2)
	if len(b1) == 0 || string(b1) != string(b2) {
		t.Errorf("etwkit.event/1 and /2 give different files (%d and %d bytes)", len(b1), len(b2))
	}
	var got []string
	etltest.ForEachEvent(t, p2, func(_ *etl.File, ev *etl.Event) {
		if ev.Header == etl.HeaderEvent64 || ev.Header == etl.HeaderPerfInfo64 {
			got = append(got, fmt.Sprintf("%s %#x %#x %#x %d", ev.Header, ev.Flags, ev.Descriptor.Keyword, ev.HookID, ev.Timestamp))
			for _, x := range ev.Extended {
				v, _ := x.Value()
				got = append(got, fmt.Sprint(v))
			}
		}
	})
	want := "event64 0x241 0x8000000000000001 0x0 80000002000\n{0 [18446735278180854569 8769521010011]}\nperfinfo64 0x350 0x0 0xf2e 80000003000"
	if strings.Join(got, "\n") != want {
		t.Errorf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), want)
	}
}
