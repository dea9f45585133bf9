package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// hostile builds a manifest of one provider whose <maps> element holds
// body, with a template and an event using map M0.
func hostile(body func(b *bytes.Buffer)) []byte {
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0"?>` + "\n" + `<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"><instrumentation><events>` +
		`<provider name="P" guid="{11111111-2222-3333-4444-555555555555}" symbol="P"><maps>` + "\n")
	body(&b)
	b.WriteString(`</maps><templates><template tid="T"><data name="a" inType="win:UInt32" map="M0"/></template></templates>` +
		`<events><event value="1" version="0" template="T" symbol="E"/></events></provider></events></instrumentation></instrumentationManifest>` + "\n")
	return b.Bytes()
}

// valueMaps writes maps of n values each, one per line.
func valueMaps(maps, n int, msg string) func(b *bytes.Buffer) {
	return func(b *bytes.Buffer) {
		for m := 0; m < maps; m++ {
			fmt.Fprintf(b, "<valueMap name=\"M%d\">\n", m)
			for i := 0; i < n; i++ {
				fmt.Fprintf(b, "<map value=\"%d\" message=\"%s %08d\"/>\n", i, msg, i)
			}
			b.WriteString("</valueMap>\n")
		}
	}
}

// wantLimit checks that err is a limit error naming bound at line.
func wantLimit(t *testing.T, err error, bound string, line int) {
	t.Helper()
	var me *Error
	if !errors.Is(err, ErrLimit) || !errors.As(err, &me) {
		t.Fatalf("got %v, want a limit error naming %s", err, bound)
	}
	if !strings.Contains(err.Error(), bound) {
		t.Errorf("error %q does not name %s", err, bound)
	}
	if me.Line != line {
		t.Errorf("error %q: line %d, want %d", err, me.Line, line)
	}
}

// TestLimitInputSize: the attack run's manifest of 1,000,000 map values
// (55 MB) needed ~600 MB; it is refused at the bound's line.
func TestLimitInputSize(t *testing.T) {
	data := hostile(valueMaps(1, 1000000, "a message of some length"))
	_, err := Parse(bytes.NewReader(data), "million.man")
	wantLimit(t, err, "manifest.MaxInputBytes", bytes.Count(data[:MaxInputBytes], []byte{'\n'})+1)
	// A 200 MB attribute: the same bound, before it is read whole.
	big := strings.NewReader(`<instrumentationManifest a="` + strings.Repeat("x", 200<<20))
	_, err = Parse(big, "attr.man")
	wantLimit(t, err, "manifest.MaxInputBytes", 1)
}

func TestLimitChildren(t *testing.T) {
	// More values in one map than MaxChildren, in a small file: refused
	// at the first one too many (line 4 is the first value).
	data := hostile(func(b *bytes.Buffer) {
		b.WriteString("<valueMap name=\"M0\">\n")
		for i := 0; i < MaxChildren+10; i++ {
			fmt.Fprintf(b, "<map value=\"%d\"/>\n", i)
		}
		b.WriteString("</valueMap>\n")
	})
	_, err := Parse(bytes.NewReader(data), "values.man")
	wantLimit(t, err, "manifest.MaxChildren", 4+MaxChildren)
}

func TestLimitElementsAndAttributes(t *testing.T) {
	// Lists of fewer than MaxChildren elements each, more than
	// MaxElements in all.
	data := hostile(func(b *bytes.Buffer) {
		for m := 0; m < 5; m++ {
			b.WriteString("<valueMap name=\"X\">\n")
			b.WriteString(strings.Repeat("<a/>", MaxChildren-1) + "\n")
			b.WriteString("</valueMap>\n")
		}
	})
	_, err := Parse(bytes.NewReader(data), "elements.man")
	// 5 elements on line 2, then lists of MaxChildren elements on three
	// lines each: the one too many is on the fourth list's middle line.
	wantLimit(t, err, "manifest.MaxElements", 2+3*3+2)

	attrs := func(n int) string {
		var s strings.Builder
		s.WriteString("<a")
		for i := 0; i < n; i++ {
			fmt.Fprintf(&s, " a%d=\"\"", i)
		}
		s.WriteString("/>\n")
		return s.String()
	}
	data = hostile(func(b *bytes.Buffer) { b.WriteString(attrs(MaxElementAttributes + 1)) })
	_, err = Parse(bytes.NewReader(data), "attrs.man")
	wantLimit(t, err, "manifest.MaxElementAttributes", 3)

	data = hostile(func(b *bytes.Buffer) {
		for i := 0; i <= MaxAttributes/MaxElementAttributes; i++ {
			b.WriteString(attrs(MaxElementAttributes))
		}
	})
	_, err = Parse(bytes.NewReader(data), "allattrs.man")
	// Four attributes before (xmlns, the provider's three): the one too
	// many is in the element of line 3+MaxAttributes/64-1.
	wantLimit(t, err, "manifest.MaxAttributes", 3+MaxAttributes/MaxElementAttributes-1)

	data = hostile(func(b *bytes.Buffer) {
		b.WriteString("\n<valueMap name=\"M0\" message=\"" + strings.Repeat("y", MaxAttrBytes+1) + "\"/>\n")
	})
	_, err = Parse(bytes.NewReader(data), "attr.man")
	wantLimit(t, err, "manifest.MaxAttrBytes", 4)
}

func TestLimitProviderEvents(t *testing.T) {
	// Events in two lists, each under MaxChildren.
	var b bytes.Buffer
	b.WriteString(`<instrumentationManifest><instrumentation><events><provider name="P" guid="{11111111-2222-3333-4444-555555555555}">` + "\n")
	for l := 0; l < 2; l++ {
		b.WriteString("<events>\n")
		for i := 0; i < MaxProviderEvents/2+1; i++ {
			fmt.Fprintf(&b, "<event value=\"%d\" version=\"%d\"/>\n", i, l)
		}
		b.WriteString("</events>\n")
	}
	b.WriteString("</provider></events></instrumentation></instrumentationManifest>\n")
	_, err := Parse(&b, "events.man")
	// The second list starts on line 2+1+first+1+1 with first events in
	// the first list.
	first := MaxProviderEvents/2 + 1
	wantLimit(t, err, "manifest.MaxProviderEvents", 2+1+first+1+1+MaxProviderEvents-first)
}

func TestLimitText(t *testing.T) {
	data := []byte("<Providers>\n<Provider>\n" + strings.Repeat("z", MaxTextBytes+1) + "</Provider></Providers>")
	_, err := Parse(bytes.NewReader(data), "wep.xml")
	wantLimit(t, err, "manifest.MaxTextBytes", 2)
}

// TestLimitMemory: a manifest at the bounds (MaxElements values in maps
// of MaxChildren, within MaxInputBytes) is read with memory a small
// multiple of its size (the attack run's 1,000,000 values took 11 times
// their 55 MB, and died under a 2 GiB address limit).
func TestLimitMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates about 200 MB")
	}
	data := hostile(valueMaps(MaxElements/MaxChildren, MaxChildren-16, "msg"))
	if len(data) > MaxInputBytes {
		t.Fatalf("test input of %d bytes passes MaxInputBytes", len(data))
	}
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	m, err := Parse(bytes.NewReader(data), "worst.man")
	if err != nil {
		t.Fatal(err)
	}
	if got := len(m.Providers[0].Maps); got != MaxElements/MaxChildren {
		t.Fatalf("%d maps, want %d", got, MaxElements/MaxChildren)
	}
	runtime.ReadMemStats(&after)
	// Every byte allocated, garbage included: a bound on the peak.
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("%d bytes in, %d allocated (%.1f×)", len(data), alloc, float64(alloc)/float64(len(data)))
	if alloc > 40*uint64(len(data)) {
		t.Errorf("%d bytes allocated for %d bytes of input: more than 40×", alloc, len(data))
	}
	runtime.KeepAlive(m)
}
