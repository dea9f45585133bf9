package mof

import (
	"testing"

	"github.com/etwkit/etw/tdh"
)

func TestKernelTable(t *testing.T) {
	k := builtin()
	for _, err := range k.errs {
		t.Error(err)
	}
	if len(k.schemas) < 500 {
		t.Errorf("only %d kernel schemas", len(k.schemas))
	}
	reg := tdh.NewRegistry()
	RegisterKernel(reg)
	if reg.Len() != len(k.schemas) {
		t.Errorf("registry holds %d schemas, table %d", reg.Len(), len(k.schemas))
	}
	alts := 0
	for _, s := range k.schemas {
		alts += len(s.Alternates)
	}
	t.Logf("%d kernel schemas, %d alternates", len(k.schemas), alts)
}
