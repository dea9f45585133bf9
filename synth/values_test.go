package synth_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/etltest"
	"github.com/etwkit/etw/synth"
	"github.com/etwkit/etw/tdh"
)

// null, [] and {} are not dropped silently: an empty array is kept (it
// reads back as []), null and an empty object, which TraceLogging cannot
// encode, are errors that name the line and the property.
func TestConvertNullAndEmpty(t *testing.T) {
	const ok = `{"time":"2024-05-01T10:00:00Z","provider_name":"P","event_name":"E","properties":{"A":[],"B":1}}`
	path, err := convert(t, ok+"\n")
	if err != nil {
		t.Fatal(err)
	}
	d := decode.New()
	got := ""
	etltest.ForEachEvent(t, path, func(_ *etl.File, ev *etl.Event) {
		if res := d.Decode(ev); res.Origin.Kind == "tracelogging" && res.Err == nil {
			got = string(tdh.AppendPropertiesJSON(nil, res.Decoded))
		}
	})
	if got != `{"A":[],"B":1}` {
		t.Errorf("read back %s", got)
	}
	for _, c := range []struct{ props, want string }{
		{`{"A":null}`, "A: null"},
		{`{"S":{"X":{}}}`, "X: an empty object"},
		{`{"L":[1,null]}`, "L[1]: null"},
		{`{"L":["a",null]}`, "L[1]: null"},
	} {
		in := ok + "\n" + `{"time":"2024-05-01T10:00:01Z","provider_name":"P","event_name":"E","properties":` + c.props + "}\n"
		_, err := convert(t, in)
		var ie *synth.InputError
		if !errors.As(err, &ie) || ie.Line != 2 || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one at line 2 with %q", c.props, err, c.want)
		}
	}
}
