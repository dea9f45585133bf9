package etl

import "github.com/etwkit/etw/etl/compress"

// BufferEncoder turns filled data buffers into the bytes a logger stores,
// as Windows' loggers write them. [Writer] uses one; so can code that
// manages its own buffers (the session emulator). It reuses its storage
// and is not safe for concurrent use.
type BufferEncoder struct {
	BufferSize int    // bytes per buffer (uncompressed)
	Compress   bool   // store the records XPRESS-compressed
	LoggerID   uint16 // the session's logger id, in every buffer's context

	comp    compress.Compressor
	scratch []byte
}

// Encode completes a data buffer for processor p. data holds
// BufferHeaderSize bytes of room followed by the records, each padded to
// 8 bytes, and has a capacity of at least BufferSize. Encode writes the
// WMI_BUFFER_HEADER (flush time lastTS, sequence number seq, the flush
// marker when last) and returns the bytes to store: the buffer filled with
// 0xFF up to BufferSize, or the header followed by the compressed records.
// The result is valid until the next call, or until data changes.
func (e *BufferEncoder) Encode(data []byte, p uint16, lastTS, seq int64, last bool) []byte {
	used := uint32(len(data))
	bh := BufferHeader{SavedOffset: used, CurrentOffset: used, Offset: used, TimeStamp: lastTS, SequenceNumber: seq,
		ClientContext: uint32(p) | uint32(e.LoggerID)<<16, State: 3, Flags: BufferFlagProcIndex, Type: BufferTypeGeneric}
	if last {
		bh.Flags |= BufferFlagFlushMarker
	}
	if e.Compress {
		out := append(e.scratch[:0], data[:BufferHeaderSize]...)
		out = e.comp.AppendLZ77(out, data[BufferHeaderSize:])
		e.scratch = out
		bh.BufferSize = uint32(len(out))
		bh.Flags |= BufferFlagCompressed
		AppendBufferHeader(out[:0], &bh)
		return out
	}
	bh.BufferSize = uint32(e.BufferSize)
	AppendBufferHeader(data[:0], &bh)
	return fillFF(data[:e.BufferSize], int(used))
}

// fillFF sets b[from:] to 0xFF, the fill after a buffer's records.
func fillFF(b []byte, from int) []byte {
	if from >= len(b) {
		return b
	}
	// One byte, then what is filled copied after itself, doubling.
	b[from] = 0xFF
	for n := 1; from+n < len(b); n *= 2 {
		copy(b[from+n:], b[from:from+n])
	}
	return b
}

// RingSlot returns the slot (buffer index in the file) that the n-th
// buffer written to a circular file takes, counting from 0 with the
// header buffer: slots in order until the file's ring slots are used,
// then the oldest slot after the start fixed ones, the index ProcessTrace
// computes for the oldest buffer.
func RingSlot(n, start, ring int) int {
	if n < ring || ring <= start {
		return n
	}
	return start + (n-start)%(ring-start)
}
