package tdh

import (
	"bytes"
	"testing"
)

// raceEnabled is set when the race detector is on (race_test.go).
var raceEnabled bool

// TestDecodersShareLargeValues decodes an event of thousands of values on
// several Decoders in turn, as a dump's goroutines meet the same large
// event in each of 16 inputs, then small events: together they hold one
// storage past largeValues (the spare), not one each (each of the
// Parquet dump's goroutines kept 0.9 MB for the rest of the run), and
// once warm, large and small events decode without allocating. The
// values are the same as a Decoder of its own gives.
func TestDecodersShareLargeValues(t *testing.T) {
	count := prop("Count", InTypeUInt16)
	pairs := Property{Name: "Pairs", IsArray: true, CountIndex: 0, LengthIndex: -1, Members: []Property{
		prop("Key", InTypeUInt16), prop("Val", InTypeUInt16),
	}}
	large := &Event{Properties: []Property{count, pairs}}
	const n = 4000 // 12,002 values: more than largeValues
	var big payload
	big.u16(n)
	for i := range n {
		big.u16(uint16(i))
		big.u16(uint16(3 * i))
	}
	small := &Event{Properties: []Property{prop("A", InTypeUInt32), prop("B", InTypeUInt32)}}
	var sp payload
	sp.u32(1)
	sp.u32(2)

	// What a Decoded made without a Decoder holds (no sharing).
	var want Decoded
	want.Schema, want.PointerSize, want.Payload, want.present = large, 8, big.Bytes(), 2
	want.Values = make([]Value, 2)
	if _, err := want.level(large.Properties, 0, 0, 0, "", 0); err != nil {
		t.Fatal(err)
	}

	decs := make([]Decoder, 4)
	check := func(d *Decoded) {
		t.Helper()
		if len(d.Values) != len(want.Values) || len(d.Values) <= largeValues {
			t.Fatalf("the large event decoded to %d values, want %d (more than %d)", len(d.Values), len(want.Values), largeValues)
		}
		for i := range d.Values {
			g, w := &d.Values[i], &want.Values[i]
			if g.Prop != w.Prop || g.Kind != w.Kind || !bytes.Equal(g.Data, w.Data) || g.Offset != w.Offset || g.First != w.First || g.N != w.N {
				t.Fatalf("value %d = %+v, want %+v", i, *g, *w)
			}
		}
	}
	for round := range 3 {
		for i := range decs {
			d, err := decs[i].Decode(large, big.Bytes(), 8)
			if err != nil {
				t.Fatal(err)
			}
			check(d)
			if _, err := decs[i].Decode(small, sp.Bytes(), 8); err != nil {
				t.Fatal(err)
			}
		}
		held := 0
		for i := range decs {
			if c := cap(decs[i].out.Values); c > largeValues {
				held++
			}
			if decs[i].out.own != nil {
				t.Fatalf("round %d: Decoder %d still holds its own storage aside after a small event", round, i)
			}
		}
		if held > 0 {
			t.Fatalf("round %d: %d Decoders hold more than %d values after a small event, want none (the spare holds one)", round, held, largeValues)
		}
		spare.Lock()
		c := cap(spare.v)
		spare.Unlock()
		if c < len(want.Values) {
			t.Fatalf("round %d: the spare holds %d values, want room for %d", round, c, len(want.Values))
		}
	}
	// Warm: the large event takes the spare and gives it back. (Not
	// with the race detector, under which append(s, make(...)...) of
	// each struct's members allocates: 16,004 a round.)
	a := testing.AllocsPerRun(20, func() {
		for i := range decs {
			decs[i].Decode(large, big.Bytes(), 8)
			decs[i].Decode(small, sp.Bytes(), 8)
		}
	})
	if a != 0 && !raceEnabled {
		t.Errorf("%v allocations per round of large and small decodes, want 0", a)
	}
	// The spare's values were cleared: they pointed into the payload.
	spare.Lock()
	for i, v := range spare.v[:cap(spare.v)] {
		if v.Prop != nil || v.Data != nil || v.Offset != 0 || v.First != 0 || v.N != 0 || v.Kind != 0 {
			spare.Unlock()
			t.Fatalf("spare value %d not cleared: %+v", i, v)
		}
	}
	spare.Unlock()
	d, err := decs[0].Decode(small, sp.Bytes(), 8)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := d.Top()[1].Uint(); got != 2 {
		t.Errorf("B = %d, want 2", got)
	}
}

// TestLargeValuesGrowGeometrically decodes an array of 4,000 structs
// (12,002 values) with a new Decoder and no spare storage: the values'
// storage grows by doubling, in a few allocations, not by append's
// quarter a struct at a time (11 allocations in all, each new memory: 12 %
// of the JSON dump's page faults went to such growth).
func TestLargeValuesGrowGeometrically(t *testing.T) {
	count := prop("Count", InTypeUInt16)
	pairs := Property{Name: "Pairs", IsArray: true, CountIndex: 0, LengthIndex: -1, Members: []Property{
		prop("Key", InTypeUInt16), prop("Val", InTypeUInt16),
	}}
	large := &Event{Properties: []Property{count, pairs}}
	const n = 4000
	var big payload
	big.u16(n)
	for i := range n {
		big.u16(uint16(i))
		big.u16(uint16(3 * i))
	}
	allocs := testing.AllocsPerRun(5, func() {
		spare.Lock()
		spare.v = nil
		spare.Unlock()
		var dec Decoder
		d, err := dec.Decode(large, big.Bytes(), 8)
		if err != nil || len(d.Values) != 2+3*n {
			t.Fatalf("decoded %d values, %v; want %d", len(d.Values), err, 2+3*n)
		}
	})
	t.Logf("%.0f allocations", allocs)
	// 8: the Decoder's first storage and caches, and four doublings
	// from largeValues; growing by append's quarter made 11.
	if allocs > 9 && !raceEnabled { // the race detector's instrumentation allocates
		t.Errorf("decoding the large event allocated %.0f times, want 9 at most", allocs)
	}
}
