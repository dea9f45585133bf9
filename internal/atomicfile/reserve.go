package atomicfile

import "syscall"

// Disk space reserved ahead of a large output (File.Write): on ext4,
// writing into blocks already allocated to the file takes less of the
// kernel's time than writing where each page first reserves its block
// (delayed allocation): 74 instead of 92 ms of system time for the
// 173 MB JSON dump of net.4.5.2 (docs/performance.md). On tmpfs it takes
// more (the reserved pages are cleared first), and on XFS too (its own
// writes are cheap already), so a file system is reserved on only where
// it was measured to pay (reserveHere).
const (
	// reserveFrom is the size a file reaches before any space is
	// reserved: small outputs make no extra system call.
	reserveFrom = 4 << 20
	// reserveMin and reserveMax bound each reservation: a quarter of
	// what the file holds, so that the calls stay few however large it
	// grows, and what is reserved past its end stays bounded.
	reserveMin = 16 << 20
	reserveMax = 128 << 20
)

// reserver reserves the space of a file being written at its end.
type reserver struct {
	on bool // the file's file system is one where reserving pays
	// reserved is where the file's space is reserved up to; 0: none
	// (else Commit frees what is left past the end).
	reserved int64
	// fn reserves n bytes of f's space from off: reserve, or a test's.
	fn func(f syscall.Conn, off, n int64) error
}

// ahead reserves space for a write of the bytes from off to end and
// beyond, when the file is large enough and end passes what is reserved.
// A failure (no space left, an unsupported call) ends the reservations:
// the writes then report what is wrong, if anything.
func (r *reserver) ahead(f syscall.Conn, off, end int64) {
	if !r.on || end < reserveFrom || end <= r.reserved {
		return
	}
	from := max(r.reserved, off)
	step := min(max(end/4, reserveMin), reserveMax)
	if err := r.fn(f, from, end+step-from); err != nil {
		r.on = false
		return
	}
	r.reserved = end + step
}
