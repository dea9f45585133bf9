// Package prefault makes the memory of lookup tables writable page by
// page before their first read.
//
// Go takes fresh memory from the kernel untouched and knows it is zero,
// so make does not clear it. A table that is read before it is written
// (a hash table or a direct-mapped cache probed before any insertion, or
// a large object with pointers that the garbage collector scans while
// it is still empty) then has each of its pages mapped twice: the first
// read maps the kernel's shared zero page, and the first write faults
// again, copies it and flushes the old mapping from the TLB of every
// processor the process runs on, an interprocessor interrupt that takes
// tens of microseconds in a virtual machine. Writing the table once when
// it is made costs one fault a page and no flush.
package prefault

// Make returns make([]T, n) with every byte of it written.
func Make[T any](n int) []T {
	return Touch(make([]T, n))
}

// Touch writes zero over every element of s (its length, not its
// capacity) and returns s: for memory that was just allocated, so that
// its pages are mapped writable before they are read. It does not
// allocate.
func Touch[T any](s []T) []T {
	clear(s)
	return s
}
