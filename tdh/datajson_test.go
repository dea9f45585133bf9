package tdh

import (
	"encoding/json"
	"testing"
)

func TestJSONIntegerRule(t *testing.T) {
	for _, c := range []struct {
		n    int64
		want string
	}{
		{0, "0"}, {-1, "-1"}, {1 << 53, "9007199254740992"}, {1<<53 + 1, `"9007199254740993"`},
		{-1 << 53, "-9007199254740992"}, {-1<<53 - 1, `"-9007199254740993"`},
		{-1 << 63, `"-9223372036854775808"`},
	} {
		if got := string(AppendJSONInt(nil, c.n)); got != c.want {
			t.Errorf("AppendJSONInt(%d) = %s, want %s", c.n, got, c.want)
		}
	}
	for _, c := range []struct {
		n    uint64
		want string
	}{{1 << 53, "9007199254740992"}, {1<<53 + 1, `"9007199254740993"`}, {^uint64(0), `"18446744073709551615"`}} {
		if got := string(AppendJSONUint(nil, c.n)); got != c.want {
			t.Errorf("AppendJSONUint(%d) = %s, want %s", c.n, got, c.want)
		}
	}
}

// TestDataJSON: integers are numbers whatever the out-type, maps and
// error codes give names on the side, other kinds keep their form.
func TestDataJSON(t *testing.T) {
	vm := rWithMap(rProp("Reason", InTypeUInt32, 0), ValueMap, MapEntry{0, "AllocSmall"}, MapEntry{1, "Induced"})
	bm := rWithMap(rProp("Access", InTypeUInt32, 0), BitMap, MapEntry{1, "Read"}, MapEntry{2, "Write"})
	arr := rWithMap(rProp("Kinds", InTypeUInt8, 0), ValueMap, MapEntry{1, "One"})
	arr.IsArray, arr.Count = true, 3
	member := rWithMap(rProp("State", InTypeUInt16, 0), ValueMap, MapEntry{2, "Done"})
	st := rProp("Where", InTypeNull, 0)
	st.Members = []Property{rProp("X", InTypeInt32, 0), member}
	e := &Event{Properties: []Property{
		rProp("Pid", InTypeUInt32, OutTypePID),
		rProp("Hex", InTypeHexInt64, 0),
		rProp("Ptr", InTypePointer, 0),
		rProp("Signed", InTypeInt64, OutTypeHexInt64),
		rProp("Port", InTypeUInt16, OutTypePort),
		rProp("Ok", InTypeUInt32, OutTypeBoolean),
		rProp("Ip", InTypeUInt32, OutTypeIPv4),
		rProp("Letter", InTypeUInt8, OutTypeString),
		rProp("Status", InTypeUInt32, OutTypeNTStatus),
		vm, bm, arr, st,
		rProp("Hidden", InTypeUInt32, OutTypeNoPrint),
		rProp("Name", InTypeUnicodeString, 0),
	}}
	payload := rCat(rU32(456), rU64(0xFFFFF80000000000), rU64(0x7FF612340000), rU64(uint64(1<<63)), []byte{0x01, 0xBB},
		rU32(1), []byte{192, 0, 2, 1}, []byte{'J'}, rU32(0xC0000022), rU32(1), rU32(3), []byte{1, 7, 1},
		rU32(0xFFFFFFFF), rU16(2), rU32(9), rUtf16z("x"))
	var dec Decoder
	d, err := dec.Decode(e, payload, 8)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"Pid":456,"Hex":"18446735277616529408","Ptr":140694844080128,"Signed":"-9223372036854775808","Port":443,` +
		`"Ok":true,"Ip":"192.0.2.1","Letter":"J","Status":3221225506,"Reason":1,"Access":3,"Kinds":[1,7,1],` +
		`"Where":{"X":-1,"State":2},"Name":"x"}`
	if got := string(AppendDataJSON(nil, d)); got != want {
		t.Errorf("AppendDataJSON:\n got %s\nwant %s", got, want)
	}
	wantMaps := `{"Status":"{Access Denied} A process has requested access to an object, but has not been granted those access rights.",` +
		`"Reason":"Induced","Access":"Read | Write","Kinds":["One",null,"One"],"Where":{"State":"Done"}}`
	got, ok := AppendMapsJSON([]byte("x"), d)
	if !ok || string(got) != "x"+wantMaps {
		t.Errorf("AppendMapsJSON: %v\n got %s\nwant x%s", ok, got, wantMaps)
	}
	if !json.Valid(got[1:]) {
		t.Error("maps: invalid JSON")
	}
	// No names: nothing appended.
	plain := &Event{Properties: []Property{rProp("A", InTypeUInt32, 0), vm}}
	if d, err = dec.Decode(plain, rCat(rU32(1), rU32(5)), 8); err != nil {
		t.Fatal(err)
	}
	if got, ok := AppendMapsJSON([]byte("x"), d); ok || string(got) != "x" {
		t.Errorf("AppendMapsJSON without names: %v %q", ok, got)
	}
	if got := string(AppendDataJSON(nil, d)); got != `{"A":1,"Reason":5}` {
		t.Errorf("AppendDataJSON: %s", got)
	}
	if got, ok := AppendMapsJSON(nil, nil); ok || len(got) != 0 {
		t.Error("AppendMapsJSON(nil)")
	}
}

func TestDataJSONDoesNotAllocate(t *testing.T) {
	vm := rWithMap(rProp("Reason", InTypeUInt32, 0), ValueMap, MapEntry{0, "AllocSmall"}, MapEntry{1, "Induced"})
	e := &Event{Properties: []Property{rProp("Pid", InTypeUInt32, OutTypePID), rProp("Ptr", InTypePointer, 0), vm,
		rProp("Status", InTypeUInt32, OutTypeNTStatus), rProp("Name", InTypeUnicodeString, 0)}}
	var dec Decoder
	d, err := dec.Decode(e, rCat(rU32(4), rU64(1<<60), rU32(1), rU32(0), rUtf16z("name")), 8)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 0, 4096)
	if n := testing.AllocsPerRun(100, func() {
		buf = AppendDataJSON(buf[:0], d)
		buf, _ = AppendMapsJSON(buf, d)
	}); n != 0 {
		t.Errorf("%v allocations per event", n)
	}
}
