package tdh

import (
	"sync"
	"testing"
)

// TestDecodersShareLargeValuesConcurrently: Decoders on goroutines of
// their own decode large events of different sizes (which take and give
// back the shared spare) and small ones in turn; each reads its result
// whole before its next call and finds its own event's values, never
// another goroutine's (run with -race, CI's race step: the spare handed
// from one Decoder to another while the first still read it would show).
func TestDecodersShareLargeValuesConcurrently(t *testing.T) {
	count := prop("Count", InTypeUInt16)
	elems := Property{Name: "Elems", IsArray: true, CountIndex: 0, LengthIndex: -1, Members: []Property{prop("V", InTypeUInt16)}}
	large := &Event{Properties: []Property{count, elems}}
	small := &Event{Properties: []Property{prop("A", InTypeUInt32)}}
	payloadOf := func(n, tag int) []byte {
		var p payload
		p.u16(uint16(n))
		for i := range n {
			p.u16(uint16(tag*7 + i))
		}
		return p.Bytes()
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var dec Decoder
			var sp payload
			sp.u32(uint32(g))
			for round := range 200 {
				n := largeValues + 1 + (g*911+round*37)%3000
				d, err := dec.Decode(large, payloadOf(n, g), 8)
				if err != nil {
					errs <- err.Error()
					return
				}
				arr := &d.Top()[1]
				if arr.N != int32(n) {
					errs <- "wrong element count"
					return
				}
				for i, v := range d.Children(arr) {
					m := &d.Children(&v)[0]
					if got, _ := m.Uint(); got != uint64(uint16(g*7+i)) {
						errs <- "a value not the goroutine's own"
						return
					}
				}
				if d, err := dec.Decode(small, sp.Bytes(), 8); err != nil {
					errs <- err.Error()
					return
				} else if got, _ := d.Top()[0].Uint(); got != uint64(g) {
					errs <- "small event's value not its own"
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
}
