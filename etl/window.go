package etl

import (
	"errors"
	"io"

	"github.com/etwkit/etw/etl/compress"
)

// Windows: with many streams (many inputs), a time-order merge holds at
// most a window of each stream's current buffer instead of the whole
// 64 KiB buffer. Every stream of every input holds its buffer while the
// merge delivers it, and the copies of a trace advance in lockstep, so
// over 16 inputs 144 buffers were held at once (9 MB of live heap, issue
// 24). Only Plain LZ77 (XPRESS) buffers are windowed, the format ETW
// writes, because its decoder can stop and resume (compress.LZ77Decoder):
// matches reach back 8 KiB at most.
//
// A loader decodes the whole buffer as before (a damaged buffer yields its
// error and no events, as it always did), in two parts, keeping the
// decoder's state after the first window's bytes (a checkpoint). The
// merge copies the first window and lets the 64 KiB store go; when the
// window's records are delivered, it reads the compressed bytes again and
// resumes the decoder from where it stopped, keeping the last 8 KiB of
// output as its history: each byte is decoded once more at most. The
// record reader stops at the first record not whole in the window, or
// damaged: more is decoded, and once all is (or the window is full), the
// merge reads the whole buffer again and goes on with it from that
// record, as without windows (the same skip, the same error).
//
// Windows are asked for ([ReaderOptions].Windows: the dumps' event pass,
// where their memory peaks; the model pass before it peaks lower), and
// used only over several inputs whose streams are over 16: single-file
// reads stay as they were. The cost is the bytes after the first window
// decoded again, about 7/8 of a decode of each buffer (+2.4 % of the
// Parquet dump over 16 inputs in instructions).

const (
	// windowFloor is the smallest window, in bytes of records.
	windowFloor = 8 << 10
	// windowBudget is what the windows of all streams may hold together;
	// a window is max(windowFloor, windowBudget/streams), and none when
	// that is a whole buffer (storeUnit) or more.
	windowBudget = 1 << 20
	// windowAhead replaces Reader.maxAhead with windows.
	windowAhead = 8
)

// windowSize returns the window for a time-order merge of n streams
// without a Preparer (whose results point into whole buffers), or 0.
func windowSize(n int) int {
	if n <= 1 {
		return 0
	}
	if w := max(windowFloor, windowBudget/n); w < storeUnit {
		return w
	}
	return 0
}

// checkpoint asks a loader to decode a Plain LZ77 buffer in two parts, the
// first at bytes of output (after the buffer header), and holds the
// decoder's state after it.
type checkpoint struct {
	at  int
	dec compress.LZ77Decoder
	ok  bool // dec is the state at output offset at, and the output goes on
}

// decode decodes src into dst as compress.DecompressLZ77 does (the same
// count and error), keeping the decoder's state after c.at bytes.
func (c *checkpoint) decode(dst, src []byte) (int, error) {
	c.ok = false
	if len(dst) <= c.at {
		return compress.DecompressLZ77(dst, src)
	}
	var d compress.LZ77Decoder
	d.Reset(len(dst))
	if _, err := d.Decode(dst[:c.at], 0, src); err != nil || d.Done() {
		return d.Out(), err
	}
	c.dec = d
	if _, err := d.Decode(dst, d.Out(), src); err != nil {
		return d.Out(), err
	}
	c.ok = c.dec.Out() == c.at
	return d.Out(), nil
}

// window is a stream's window of its current buffer: the decoded bytes
// from buffer offset lo to hi, the records [rr.off, rr.end) among them.
type window struct {
	on     bool // the stream's current buffer is read through the window
	buf    []byte
	lo, hi int
	end    int  // where the buffer's records end
	more   bool // dec decodes the bytes from hi on
	dec    compress.LZ77Decoder
}

// startWindow puts s's new buffer in a window: the records of a buffer
// its loader kept the checkpoint ck of (they pass the first window), or
// all the records of a buffer whose records fit (the short buffers the
// streams end with, held at the end of the merge, where the dumps' memory
// peaks, would each hold a 64 KiB store).
func (r *Reader) startWindow(s *stream, ck *checkpoint) {
	b := s.cur
	if b.store == nil || b.Truncated {
		return
	}
	hi := s.rr.end // all the records fit
	if ck.ok {
		hi = BufferHeaderSize + ck.at
		if s.rr.end <= hi || hi > len(b.Data) {
			return
		}
	}
	w := s.win
	if w == nil {
		if k := len(r.spare); k > 0 {
			w, r.spare = r.spare[k-1], r.spare[:k-1]
		} else {
			w = &window{buf: make([]byte, r.window+compress.LZ77History)}
		}
		s.win = w
	}
	if hi-BufferHeaderSize > len(w.buf) {
		return
	}
	n := copy(w.buf, b.Data[BufferHeaderSize:hi])
	w.on, w.lo, w.hi, w.end, w.more = true, BufferHeaderSize, hi, s.rr.end, ck.ok
	if ck.ok {
		w.dec = ck.dec
	}
	s.rr.data, s.rr.base, s.rr.end, s.rr.window = w.buf[:n], w.lo, hi, true
	b.Release()
}

// nextWindow moves s's window past the records delivered, decoding more
// of the buffer, and reports whether records are left. The record
// reader stops at the first record that is not whole in the window, or
// is damaged: with the whole buffer decoded (or no room to decode more),
// the stream goes back to the whole buffer, which skips a damaged record
// as without windows.
func (r *Reader) nextWindow(s *stream) bool {
	w, rr := s.win, &s.rr
	from := rr.off
	if from >= w.end && !rr.fault {
		w.on = false
		return false
	}
	if w.hi < w.end && w.more && !w.dec.Done() {
		keep := max(w.lo, min(from, w.hi-compress.LZ77History))
		n := copy(w.buf, w.buf[keep-w.lo:w.hi-w.lo])
		w.lo = keep
		if n < len(w.buf) {
			src, err := r.compressed(s.curRef, w.dec.InputFrom())
			if err == nil {
				var m int
				m, err = w.dec.Decode(w.buf, n, src)
				w.hi += m
				if err == nil && m > 0 {
					rr.data, rr.base, rr.end, rr.fault = w.buf[:w.hi-w.lo], w.lo, min(w.hi, w.end), false
					return true
				}
			}
		}
	}
	return r.wholeBuffer(s, from)
}

// wholeBuffer reads s's current buffer again, whole, and points the
// record reader at offset at of it, as if there had been no window.
func (r *Reader) wholeBuffer(s *stream, at int) bool {
	s.win.on = false
	b, err := s.curRef.file.readBuffer(s.curRef.info, nil, false)
	if err != nil {
		r.errs = append(r.errs, err) // the file changed since the buffer was loaded
	}
	if b == nil {
		return false
	}
	s.cur.Release()
	s.cur = b
	rr := &s.rr
	rr.buf = b
	rr.data, rr.base, rr.window, rr.fault = b.Data, 0, false, false
	rr.end = min(int(b.Header.Offset), len(b.Data))
	rr.off = at
	return true
}

// compressed reads ref's buffer's compressed bytes again (those after its
// header), into the reader's scratch space, from offset from of them on:
// the bytes before it are left as they are (the decoder does not read
// them again).
func (r *Reader) compressed(ref bufRef, from int) ([]byte, error) {
	n := int(ref.info.Header.BufferSize)
	if cap(r.src) < n {
		r.src = make([]byte, n, (n+storeUnit-1)/storeUnit*storeUnit)
	}
	r.src = r.src[:n]
	at := min(BufferHeaderSize+from, n)
	if _, err := ref.file.r.ReadAt(r.src[at:], ref.info.FileOffset+int64(at)); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return r.src[BufferHeaderSize:], nil
}
