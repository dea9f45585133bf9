package tdh

import (
	"reflect"
	"testing"

	"github.com/google/uuid"
)

// equalSample is an event with every field set, a struct, a map and an
// alternate.
func equalSample() *Event {
	m := &Map{Name: "M", Kind: BitMap, Entries: []MapEntry{{1, "one"}, {2, "two"}}}
	props := []Property{
		{Name: "N", InType: InTypeUInt32, OutType: OutTypeHexInt32, LengthIndex: -1, CountIndex: -1, Map: m, Tags: 1},
		{Name: "S", InType: InTypeNull, LengthIndex: -1, CountIndex: 0, IsArray: true, Count: 2, Members: []Property{
			{Name: "A", InType: InTypeBinary, Length: 4, LengthIndex: -1, CountIndex: -1, Optional: true, ToEnd: true},
		}},
	}
	return &Event{Source: SourceManifest, ProviderName: "P", ProviderGUID: uuid.MustParse("11111111-2222-3333-4444-555555555555"),
		ID: 1, Version: 2, Level: 3, Opcode: 4, Task: 5, Keywords: 6, Channel: 7,
		EventName: "E", TaskName: "T", OpcodeName: "O", LevelName: "L", ChannelName: "C", KeywordNames: []string{"K"},
		Message: "m %1", Tags: 8, Properties: props,
		Alternates: []*Event{{Source: SourceMOF, Properties: []Property{ScalarProperty("X", InTypeUInt8)}}}}
}

// mutate changes the settable value v (a field of a copy) in place.
func mutate(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(v.String() + "x")
	case reflect.Bool:
		v.SetBool(!v.Bool())
	case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(v.Uint() + 1)
	case reflect.Int:
		v.SetInt(v.Int() + 1)
	case reflect.Array: // uuid.UUID
		v.Index(0).SetUint(v.Index(0).Uint() + 1)
	case reflect.Slice:
		v.Set(v.Slice(0, v.Len()-1))
	case reflect.Pointer:
		v.Set(reflect.Zero(v.Type()))
	}
}

// TestEqualEveryField: changing any one field of an event, of a property
// or of a map makes the schemas differ (so that a field added to the
// types without a comparison fails here), and equal copies are equal.
func TestEqualEveryField(t *testing.T) {
	if !equalSample().Equal(equalSample()) {
		t.Fatal("two copies of one schema differ")
	}
	ev := reflect.TypeOf(Event{})
	for i := 0; i < ev.NumField(); i++ {
		e := equalSample()
		mutate(reflect.ValueOf(e).Elem().Field(i))
		if e.Equal(equalSample()) || equalSample().Equal(e) {
			t.Errorf("Event.%s changed, still equal", ev.Field(i).Name)
		}
	}
	pt := reflect.TypeOf(Property{})
	for i := 0; i < pt.NumField(); i++ {
		for j := range equalSample().Properties {
			e := equalSample()
			f := reflect.ValueOf(&e.Properties[j]).Elem().Field(i)
			if (f.Kind() == reflect.Slice || f.Kind() == reflect.Pointer) && f.IsNil() {
				continue
			}
			mutate(f)
			if e.Equal(equalSample()) {
				t.Errorf("Property.%s of %s changed, still equal", pt.Field(i).Name, e.Properties[j].Name)
			}
		}
	}
	mt := reflect.TypeOf(Map{})
	for i := 0; i < mt.NumField(); i++ {
		e := equalSample()
		m := *e.Properties[0].Map
		e.Properties[0].Map = &m
		mutate(reflect.ValueOf(&m).Elem().Field(i))
		if e.Equal(equalSample()) {
			t.Errorf("Map.%s changed, still equal", mt.Field(i).Name)
		}
	}
	// A struct with no members is not a scalar.
	a, b := equalSample(), equalSample()
	a.Properties[1].Members, b.Properties[1].Members = []Property{}, nil
	if a.Equal(b) {
		t.Error("empty Members equal nil Members")
	}
	a.KeywordNames, b.KeywordNames = []string{}, nil
	a.Properties[1].Members = nil
	if !a.Equal(b) {
		t.Error("empty and nil KeywordNames differ")
	}
}
