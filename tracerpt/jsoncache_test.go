package tracerpt

import (
	"reflect"
	"testing"

	"github.com/etwkit/etw/analysis"
	"github.com/etwkit/etw/etl"
)

// TestSameFrameFields: sameFrame compares every field of analysis.Frame;
// a field added to Frame must be added to it (and to this list).
func TestSameFrameFields(t *testing.T) {
	want := []string{"Address", "Image", "Offset", "Method", "Symbol"}
	typ := reflect.TypeFor[analysis.Frame]()
	if typ.NumField() != len(want) {
		t.Fatalf("analysis.Frame has %d fields, sameFrame compares %d", typ.NumField(), len(want))
	}
	for i, name := range want {
		if f := typ.Field(i).Name; f != name {
			t.Fatalf("field %d of analysis.Frame is %s, want %s", i, f, name)
		}
	}
	a := analysis.Frame{Address: 1, Image: new(analysis.Image), Offset: 2, Method: new(analysis.Method), Symbol: new(analysis.Symbol)}
	for i := range typ.NumField() {
		b := a
		f := reflect.ValueOf(&b).Elem().Field(i)
		if f.Kind() == reflect.Pointer {
			f.Set(reflect.Zero(f.Type()))
		} else {
			f.SetUint(f.Uint() + 1)
		}
		if sameFrame(&a, &b) || !sameFrame(&a, &a) {
			t.Errorf("sameFrame does not tell frames apart by %s", typ.Field(i).Name)
		}
	}
}

// TestHeaderCacheKeys: the header keys an encoder keeps are those of the
// event's shape; events that differ in one field of what the keys show
// (provider, descriptor, header type, flags) get their own.
func TestHeaderCacheKeys(t *testing.T) {
	base := etl.Event{Header: etl.HeaderType(3), Flags: 0x240}
	base.ProviderID[0], base.ProviderID[15] = 1, 2
	base.Descriptor = etl.EventDescriptor{ID: 10, Version: 3, Channel: 1, Level: 5, Opcode: 11, Task: 1, Keyword: 1 << 40}
	change := []func(*etl.Event){
		func(e *etl.Event) { e.ProviderID[0]++ },
		func(e *etl.Event) { e.ProviderID[15]++ },
		func(e *etl.Event) { e.Descriptor.ID++ },
		func(e *etl.Event) { e.Descriptor.Version++ },
		func(e *etl.Event) { e.Descriptor.Channel++ },
		func(e *etl.Event) { e.Descriptor.Level++ },
		func(e *etl.Event) { e.Descriptor.Opcode++ },
		func(e *etl.Event) { e.Descriptor.Task++ },
		func(e *etl.Event) { e.Descriptor.Keyword++ },
		func(e *etl.Event) { e.Header++ },
		func(e *etl.Event) { e.Flags++ },
		func(e *etl.Event) { e.HookID++ },                                  // "hook_id" of a kernel header
		func(e *etl.Event) { e.Header = etl.HeaderClassic64 },              // no "hook_id"
		func(e *etl.Event) { e.Header, e.HookID = etl.HeaderClassic64, 7 }, // nor here
	}
	e := &JSONEncoder{}
	for i, c := range change {
		ev := base
		c(&ev)
		for _, x := range []*etl.Event{&base, &ev, &base, &ev} {
			if got, want := string(e.appendHeader(nil, x)), string(appendHeaderJSON(nil, x)); got != want {
				t.Fatalf("change %d: header keys %s, want %s", i, got, want)
			}
		}
		// The changed event's slot made to hold base's key and keys, as a
		// collision would: the lookup must still tell them apart, whether
		// or not the changed field feeds the slot's hash.
		baseKey, _ := onlySlot(t, &base)
		_, evSlot := onlySlot(t, &ev)
		f := &JSONEncoder{headers: new(headerCache)}
		f.headers.slots[evSlot].k = baseKey
		f.headers.slots[evSlot].json = appendHeaderJSON(nil, &base)
		if got, want := string(f.appendHeader(nil, &ev)), string(appendHeaderJSON(nil, &ev)); got != want {
			t.Errorf("change %d: an event that differs from the slot's in that field got its keys %s, want %s", i, got, want)
		}
	}
}

// onlySlot returns the key an empty header cache keeps for ev, and its slot.
func onlySlot(t *testing.T, ev *etl.Event) (headerKey, int) {
	t.Helper()
	e := &JSONEncoder{}
	e.appendHeader(nil, ev)
	for i := range e.headers.slots {
		if e.headers.slots[i].json != nil {
			return e.headers.slots[i].k, i
		}
	}
	t.Fatal("appendHeader kept nothing")
	return headerKey{}, 0
}

// TestStackJSONByID: stacks rendered through an encoder's cache with an
// identity (analysis.Annotation.StackID) read as AppendStackJSON renders
// them, the first time, when found again, once the memo's storage has
// been overwritten by many others, and among stacks without identity.
func TestStackJSONByID(t *testing.T) {
	imgs := []*analysis.Image{{Base: 0x10000, Size: 0x1000, Path: `C:\a.dll`}, {Base: 0x20000, Size: 0x1000, Path: `C:\Windows\b "q".dll`}}
	meth := &analysis.Method{Start: 0x20100, Size: 0x10, Namespace: "N.T", Name: "M"}
	sym := &analysis.Symbol{Function: "f", Offset: 3, File: `x.c`, Line: 7}
	stackOf := func(i int) []analysis.Frame {
		s := make([]analysis.Frame, 1+i%30)
		for j := range s {
			a := uint64(0x10000 + (i*31+j)%0x2000)
			f := analysis.Frame{Address: a}
			switch j % 4 {
			case 1:
				f.Image, f.Offset = imgs[0], a-imgs[0].Base
			case 2:
				f.Image, f.Offset, f.Method = imgs[1], a-imgs[1].Base, meth
			case 3:
				f.Image, f.Offset, f.Symbol = imgs[1], a-imgs[1].Base, sym
			}
			s[j] = f
		}
		return s
	}
	cache := new(frameJSONCache)
	n := 4 * stackJSONBytes / 1000 // more than the storage holds
	for round := range 2 {
		for i := range n {
			id := uint64(i + 1)
			if i%7 == 0 {
				id = 0 // no identity
			}
			want := string(AppendStackJSON([]byte("x"), stackOf(i)))
			if got := string(appendStackJSON([]byte("x"), stackOf(i), id, cache)); got != want {
				t.Fatalf("round %d, stack %d: %s, want %s", round, i, got, want)
			}
			// Found again at once.
			if got := string(appendStackJSON([]byte("x"), stackOf(i), id, cache)); got != want {
				t.Fatalf("round %d, stack %d again: %s, want %s", round, i, got, want)
			}
		}
	}
	if got := appendStackJSON([]byte("x"), nil, 5, cache); string(got) != "x" {
		t.Errorf("empty stack: %q", got)
	}
}
