package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"runtime"
	"testing"

	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
)

// TestPassSharedSame: the second pass over several goroutines (passShared,
// with more than one core) gives the report the pass on one goroutine gives,
// on traces with stacks (.NET and kernel), a packet capture and a
// synthetic trace.
func TestPassSharedSame(t *testing.T) {
	build := func(t *testing.T, open func(*testing.T) *etl.File, procs int) []byte {
		t.Helper()
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		f := open(t)
		defer f.Close()
		d, err := Build([]*etl.File{f}, decode.New(), nil)
		b, jerr := json.Marshal(d)
		if jerr != nil {
			t.Fatal(jerr)
		}
		return append(b, fmt.Sprint(err)...)
	}
	cases := []struct {
		name string
		open func(*testing.T) *etl.File
	}{{"synthetic", func(*testing.T) *etl.File { return openBytes(synthTrace()) }}}
	for _, rel := range []string{netRel, pktmonRel, shutdownRel} {
		cases = append(cases, struct {
			name string
			open func(*testing.T) *etl.File
		}{rel, func(t *testing.T) *etl.File {
			f, err := etl.Open(corpusFile(t, rel))
			if err != nil {
				t.Fatal(err)
			}
			return f
		}})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			one, two := build(t, c.open, 1), build(t, c.open, 2)
			if !bytes.Equal(one, two) {
				i := 0
				for i < min(len(one), len(two)) && one[i] == two[i] {
					i++
				}
				t.Fatalf("reports differ from byte %d: one goroutine %.200q, two %.200q", i, one[i:], two[i:])
			}
			if len(one) < 1000 {
				t.Fatalf("report of %d bytes", len(one))
			}
		})
	}
}
