package driver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"runtime"
	"testing"

	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/driver"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/etltest"
	"github.com/etwkit/etw/pipeline"
)

// TestDumpAttributedPID: with the analysis, --pid (Filter.PIDs) and
// --process select the events by the process the JSON dump shows, not by
// the header's: the dump of process 3676 of net.4.5.2.x64 (Test.x64.exe)
// is exactly the lines of the whole dump whose "pid" is 3676, its 5,129
// CPU samples (stats' count) among them, whose header has no process.
func TestDumpAttributedPID(t *testing.T) {
	files := etltest.OpenFiles(t, etltest.CorpusFile(t, net452))
	dump := func(o driver.Options) []byte {
		t.Helper()
		return dumpJSON(t, files, o)
	}
	var want bytes.Buffer
	all := 0
	for _, line := range bytes.SplitAfter(dump(driver.Options{}), []byte("\n")) {
		var ev struct {
			PID uint32 `json:"pid"`
		}
		if len(line) == 0 {
			continue
		}
		if err := json.Unmarshal(line, &ev); err != nil {
			t.Fatalf("%v: %.200s", err, line)
		}
		all++
		if ev.PID == 3676 {
			want.Write(line)
		}
	}
	for name, o := range map[string]driver.Options{
		"--pid 3676":             {Filter: pipeline.Filter{PIDs: []uint32{3676}}},
		"--process Test.x64.exe": {Processes: []string{"Test.x64.exe"}},
	} {
		got := dump(o)
		samples := bytes.Count(got, []byte(`"opcode_name":"SampleProf"`))
		t.Logf("%s: %d of %d events, %d CPU samples", name, bytes.Count(got, []byte("\n")), all, samples)
		if !bytes.Equal(got, want.Bytes()) {
			t.Errorf("%s: %d lines, not the %d lines of the whole dump whose pid is 3676", name,
				bytes.Count(got, []byte("\n")), bytes.Count(want.Bytes(), []byte("\n")))
		}
		if samples != 5129 {
			t.Errorf("%s: %d CPU samples, want stats' 5,129", name, samples)
		}
	}
}

// dumpJSON returns the JSON dump of files with o (its files, decoder,
// format and output set here).
func dumpJSON(t *testing.T, files []*etl.File, o driver.Options) []byte {
	t.Helper()
	var out bytes.Buffer
	o.Files, o.Decoder, o.Format, o.Output, o.Stdout = files, decode.New(), driver.JSON, "-", &out
	if _, err := driver.Dump(context.Background(), &o); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// TestDumpLateMethods: the JSON dump of net.4.5.2.x64 with more than one
// processor, whose model pass returns while the .NET methods are still
// being added (the dump's stacks wait for them), is the dump made with
// one (the methods added before the model pass returns), and resolves
// frames to .NET methods (20,148 events). (That the stacks wait for the
// methods is analysis' TestStackResolverWaitsMethods, which holds them
// back; here the methods are usually all added before the first stack.)
func TestDumpLateMethods(t *testing.T) {
	files := etltest.OpenFiles(t, etltest.CorpusFile(t, net452))
	dump := func(procs int) []byte {
		t.Helper()
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		return dumpJSON(t, files, driver.Options{})
	}
	one, two := dump(1), dump(2)
	if !bytes.Equal(one, two) {
		t.Errorf("the dump at GOMAXPROCS 2 (%d bytes) differs from the one at 1 (%d bytes)", len(two), len(one))
	}
	if n := bytes.Count(two, []byte(`"method":`)); n == 0 {
		t.Error("no frame resolved to a .NET method: the methods were not compared")
	}
}
