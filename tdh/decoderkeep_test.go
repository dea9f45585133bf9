package tdh

import "testing"

// TestDecoderLetsLargeValuesGo decodes one event of thousands of values,
// then small ones: the Decoder keeps the large storage while such events
// may come again in a run, and lets it go after idleDecodes small ones
// (a dump's goroutines kept megabytes for the rest of the run after one
// .NET event of 40,000 values). Small events still decode without
// allocating.
func TestDecoderLetsLargeValuesGo(t *testing.T) {
	count := prop("Count", InTypeUInt16)
	pairs := Property{Name: "Pairs", IsArray: true, CountIndex: 0, LengthIndex: -1, Members: []Property{
		prop("Key", InTypeUInt16), prop("Val", InTypeUInt16),
	}}
	large := &Event{Properties: []Property{count, pairs}}
	const n = 4000 // 4,002 values: more than keptValues
	var big payload
	big.u16(n)
	big.Write(make([]byte, 4*n))
	small := &Event{Properties: []Property{prop("A", InTypeUInt32), prop("B", InTypeUInt32)}}
	var sp payload
	sp.u32(1)
	sp.u32(2)

	var dec Decoder
	d, err := dec.Decode(large, big.Bytes(), 8)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Values) <= keptValues {
		t.Fatalf("the large event decoded to %d values, want more than %d", len(d.Values), keptValues)
	}
	for i := range idleDecodes {
		dec.Decode(small, sp.Bytes(), 8)
		if c := cap(dec.out.Values); c <= keptValues {
			t.Fatalf("storage let go after %d small decodes, want it kept for %d", i+1, idleDecodes)
		}
	}
	// A large event in the run resets the count.
	dec.Decode(large, big.Bytes(), 8)
	for range idleDecodes {
		dec.Decode(small, sp.Bytes(), 8)
	}
	if c := cap(dec.out.Values); c <= keptValues {
		t.Fatalf("storage let go %d decodes after a large event, want it kept", idleDecodes)
	}
	d, err = dec.Decode(small, sp.Bytes(), 8)
	if err != nil {
		t.Fatal(err)
	}
	if c := cap(dec.out.Values); c > keptValues {
		t.Errorf("after %d small decodes the Decoder still holds %d values (%d KiB)", idleDecodes+1, c, c*56>>10)
	}
	if got, _ := d.Top()[1].Uint(); got != 2 {
		t.Errorf("B = %d after the storage was let go, want 2", got)
	}
	if a := testing.AllocsPerRun(100, func() { dec.Decode(small, sp.Bytes(), 8) }); a != 0 {
		t.Errorf("%v allocations per small decode", a)
	}
}
