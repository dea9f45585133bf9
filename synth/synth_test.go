package synth_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
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
	f, err := etl.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := etl.NewReader([]*etl.File{f}, nil)
	defer r.Close()
	d := decode.New()
	var got []string
	for r.Next() {
		ev := r.Event()
		res := d.Decode(ev)
		if res.Schema == nil || res.Origin.Kind != "tracelogging" {
			continue
		}
		got = append(got, res.Schema.EventName+" "+string(tdh.AppendPropertiesJSON(nil, res.Decoded)))
	}
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
