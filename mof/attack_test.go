package mof

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/etwkit/etw/internal/etltest"
)

// TestAttackInheritance: schemas/mof_cycle.mof (A : B, B : A) is an
// error naming the classes of the loop, no longer accepted silently;
// schemas/mof_chain33.mof (33 superclasses) reports the depth limit, not
// "no Guid qualifier".
func TestAttackInheritance(t *testing.T) {
	for _, tc := range []struct {
		file string
		want string
	}{
		{"schemas/mof_cycle.mof", "the superclasses loop: B : A : B"},
		{"schemas/mof_chain33.mof", "class E has more than 32 superclasses (the limit)"},
	} {
		f, err := ParseFile(etltest.AttackFile(t, tc.file))
		if err != nil {
			t.Fatal(err)
		}
		schemas, errs := f.Schemas()
		if len(schemas) != 0 || len(errs) != 1 || !errors.Is(errs[0], ErrInheritance) || !strings.Contains(errs[0].Error(), tc.want) {
			t.Errorf("%s: %d schemas, errors %v; want %q", tc.file, len(schemas), errs, tc.want)
		}
	}
}

// TestInheritanceLimits: the same rules on generated chains and loops:
// 32 superclasses compile, 33 do not; a loop of any length names its
// classes; an embedded class whose chain loops is an error too.
func TestInheritanceLimits(t *testing.T) {
	chain := func(n int) string {
		var b strings.Builder
		b.WriteString("[abstract] class EventTrace {};\n[Dynamic, Guid(\"{393da8c0-dbed-11d2-895b-00c04f79ab69}\")] class C0 : EventTrace {};\n")
		for i := 1; i < n; i++ {
			fmt.Fprintf(&b, "class C%d : C%d {};\n", i, i-1)
		}
		fmt.Fprintf(&b, "[EventType(1)] class E : C%d { [WmiDataId(1)] uint32 X; };\n", n-1)
		return b.String()
	}
	for _, tc := range []struct {
		name, src, want string
	}{
		{"32 classes above E", chain(31), ""},
		{"33 classes above E", chain(32), "more than 32 superclasses"},
		{"loop of 3", "[Guid(\"{393da8c0-dbed-11d2-895b-00c04f79ab69}\")] class A : C {};\nclass B : A {};\nclass C : B {};\n[EventType(1)] class E : A { [WmiDataId(1)] uint32 X; };\n", "the superclasses loop: A : C : B : A"},
		{"self", "[Guid(\"{393da8c0-dbed-11d2-895b-00c04f79ab69}\"), EventType(1)] class S : S { [WmiDataId(1)] uint32 X; };\n", "the superclasses loop: S : S"},
		{"embedded", "class L1 : L2 { uint32 V; };\nclass L2 : L1 {};\n[Dynamic, Guid(\"{393da8c0-dbed-11d2-895b-00c04f79ab69}\"), EventType(1)] class E { [WmiDataId(1)] L1 Inner; };\n", "the superclasses loop"},
	} {
		f, err := Parse(strings.NewReader(tc.src), tc.name)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		schemas, errs := f.Schemas()
		switch {
		case tc.want == "" && (len(errs) != 0 || len(schemas) != 1):
			t.Errorf("%s: %d schemas, errors %v", tc.name, len(schemas), errs)
		case tc.want != "" && (len(errs) != 1 || !errors.Is(errs[0], ErrInheritance) || !strings.Contains(errs[0].Error(), tc.want)):
			t.Errorf("%s: errors %v, want %q", tc.name, errs, tc.want)
		}
	}
}

// TestEmptyEmbeddedArray: an array of an embedded class without
// properties repeats items of no size: rejected (tdh.Validate).
func TestEmptyEmbeddedArray(t *testing.T) {
	src := "class Empty {};\n[Dynamic, Guid(\"{393da8c0-dbed-11d2-895b-00c04f79ab69}\"), EventType(1)] class E { [WmiDataId(1)] uint32 N; [WmiDataId(2), WmiSizeIs(\"N\")] Empty Items[]; };\n"
	f, err := Parse(strings.NewReader(src), "empty.mof")
	if err != nil {
		t.Fatal(err)
	}
	schemas, errs := f.Schemas()
	if len(schemas) != 0 || len(errs) != 1 || !errors.Is(errs[0], ErrLayout) {
		t.Errorf("%d schemas, errors %v", len(schemas), errs)
	}
}

// wantParseLimit checks that err is a *ParseError at line naming a limit
// with msg.
func wantParseLimit(t *testing.T, err error, line int, msg string) {
	t.Helper()
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line != line || !strings.Contains(pe.Msg, msg) || !strings.Contains(pe.Msg, "(the limit)") {
		t.Errorf("got %v, want line %d and %q with the limit", err, line, msg)
	}
}

// TestParseLimits: what a MOF file declares is bounded (a 60 MB file of
// 2,000,000 properties in one class took 1.4 GB), each refusal naming the
// limit and the line.
func TestParseLimits(t *testing.T) {
	var b strings.Builder
	b.WriteString("class C {\n")
	for i := 0; i <= maxProperties; i++ {
		fmt.Fprintf(&b, "uint8 p%d;\n", i)
	}
	b.WriteString("};\n")
	_, err := Parse(strings.NewReader(b.String()), "props.mof")
	wantParseLimit(t, err, 2+maxProperties, fmt.Sprintf("class C (line 1) has more than %d properties", maxProperties))

	b.Reset()
	b.WriteString("[Dynamic,\nValueMap{" + strings.Repeat(`"1",`, maxValues) + `"2"}] class C {};`)
	_, err = Parse(strings.NewReader(b.String()), "values.mof")
	wantParseLimit(t, err, 2, fmt.Sprintf("more than %d values in one qualifier", maxValues))

	b.Reset()
	perClass := maxProperties - 1
	for c := 0; c <= maxItems/(perClass+1); c++ {
		fmt.Fprintf(&b, "class C%d {\n", c)
		for i := 0; i < perClass; i++ {
			fmt.Fprintf(&b, "uint8 p%d;\n", i)
		}
		b.WriteString("};\n")
	}
	_, err = Parse(strings.NewReader(b.String()), "items.mof")
	var pe *ParseError
	if !errors.As(err, &pe) || !strings.Contains(pe.Msg, fmt.Sprintf("more than %d classes, properties", maxItems)) {
		t.Errorf("items: %v", err)
	}

	big := strings.Repeat("// a comment line of some length, repeated\n", maxInput/40)
	_, err = Parse(strings.NewReader(big), "big.mof")
	wantParseLimit(t, err, maxInput/43+1, fmt.Sprintf("file larger than %d bytes", maxInput))
}
