package prefault_test

import (
	"fmt"

	"github.com/etwkit/etw/internal/prefault"
)

// A direct-mapped cache probed before anything is put in it.
func Example() {
	type entry struct{ key, value uint64 }
	slots := prefault.Make[entry](1 << 14)
	key := uint64(42)
	e := &slots[(key*0x9E3779B97F4A7C15)>>(64-14)]
	if e.key != key {
		*e = entry{key, key * 2}
	}
	fmt.Println(len(slots), e.value)
	// Output: 16384 84
}
