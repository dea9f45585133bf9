package driver_test

import (
	"bytes"
	"context"
	"runtime"
	"testing"

	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/driver"
	"github.com/etwkit/etw/internal/etltest"
)

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
		var out bytes.Buffer
		o := driver.Options{Files: files, Decoder: decode.New(), Format: driver.JSON, Output: "-", Stdout: &out}
		if _, err := driver.Dump(context.Background(), &o); err != nil {
			t.Fatal(err)
		}
		return out.Bytes()
	}
	one, two := dump(1), dump(2)
	if !bytes.Equal(one, two) {
		t.Errorf("the dump at GOMAXPROCS 2 (%d bytes) differs from the one at 1 (%d bytes)", len(two), len(one))
	}
	if n := bytes.Count(two, []byte(`"method":`)); n == 0 {
		t.Error("no frame resolved to a .NET method: the methods were not compared")
	}
}
