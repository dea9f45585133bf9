package pprof_test

import (
	"bytes"
	"fmt"

	"github.com/google/pprof/profile"

	"github.com/etwkit/etw/pprof"
)

// A profile of one CPU sample in one function, written and read back by
// pprof's own package.
func Example() {
	fn := &pprof.Function{ID: 1, Name: "App.Program.Main", SystemName: "App.Program.Main"}
	loc := &pprof.Location{ID: 1, Address: 0x401000, Line: []pprof.Line{{Function: fn}}}
	p := &pprof.Profile{
		SampleType: []*pprof.ValueType{{Type: "cpu", Unit: "nanoseconds"}},
		PeriodType: &pprof.ValueType{Type: "cpu", Unit: "nanoseconds"},
		Period:     1_000_000,
		Sample:     []*pprof.Sample{{Location: []*pprof.Location{loc}, Value: []int64{1_000_000}}},
		Location:   []*pprof.Location{loc},
		Function:   []*pprof.Function{fn},
	}
	var b bytes.Buffer
	if err := p.Write(&b); err != nil {
		fmt.Println(err)
		return
	}
	q, err := profile.Parse(&b)
	if err != nil {
		fmt.Println(err)
		return
	}
	s := q.Sample[0]
	fmt.Println(s.Location[0].Line[0].Function.Name, s.Value[0], q.SampleType[0].Unit)
	// Output: App.Program.Main 1000000 nanoseconds
}
