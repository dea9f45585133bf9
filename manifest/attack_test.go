package manifest

import (
	"errors"
	"strings"
	"testing"

	"github.com/etwkit/etw/internal/etltest"
)

// TestAttackEmptyStruct: schemas/zero_size_struct_empty.man has a counted
// struct with no members inside another: the event is not compiled
// (ErrLayout), so no payload can make the decoder loop over empty items.
func TestAttackEmptyStruct(t *testing.T) {
	m, err := ParseFile(etltest.AttackFile(t, "schemas/zero_size_struct_empty.man"))
	if err != nil {
		t.Fatal(err)
	}
	schemas, errs := m.Schemas()
	if len(schemas) != 0 || len(errs) != 1 || !errors.Is(errs[0], ErrLayout) || !strings.Contains(errs[0].Error(), "S.T") {
		t.Errorf("%d schemas, errors %v", len(schemas), errs)
	}
}

// TestEmptyStructLayouts: a struct with no members repeated by a fixed or
// a payload count is rejected; once, or not at all, it is accepted.
func TestEmptyStructLayouts(t *testing.T) {
	const head = `<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"><instrumentation><events>
<provider name="P" guid="{A0C1853B-5C40-4B15-8766-3CF1C58F985A}" symbol="P"><events><event value="1" version="0" template="T"/></events>
<templates><template tid="T">`
	const tail = `</template></templates></provider></events></instrumentation></instrumentationManifest>`
	for _, tc := range []struct {
		body string
		ok   bool
	}{
		{`<struct name="S" count="2"></struct>`, false},
		{`<data name="N" inType="win:UInt16"/><struct name="S" count="N"></struct>`, false},
		{`<struct name="S"></struct><data name="X" inType="win:UInt8"/>`, true},
		{`<data name="N" inType="win:UInt16"/><struct name="S" count="N"><data name="X" inType="win:UInt8"/></struct>`, true},
	} {
		m, err := Parse(strings.NewReader(head+tc.body+tail), "t.man")
		if err != nil {
			t.Fatalf("%s: %v", tc.body, err)
		}
		schemas, errs := m.Schemas()
		if ok := len(schemas) == 1 && len(errs) == 0; ok != tc.ok {
			t.Errorf("%s: %d schemas, errors %v", tc.body, len(schemas), errs)
		}
	}
}
