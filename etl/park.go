package etl

// Parked streams: a merge of several inputs starts with every stream's
// first event known but its buffer let go, and loads the buffer again
// when that event comes up. Without it the merge held the first buffer of
// every processor of every input from its start, and inputs recorded one
// after another (an AutoLogger sequence, a day of hourly traces) held
// theirs until their time came: memory grew with the number of inputs
// whether or not they overlapped (docs/limits.md). A parked stream costs
// one more load of one buffer; the loads ahead bring it back before it
// is needed where they can (its due time is its first event's).

// parkStreams is the number of streams above which a merge of several
// inputs parks them (Reader.park): a merge of fewer holds each first
// buffer from its start, loaded once.
const parkStreams = 16

// startParked starts the merge (Reader.Next's first call) with its
// streams parked: it loads their first buffers a few at a time, reads
// each one's first event into the heap, and lets the buffer go. No loads
// ahead are made meanwhile (fill waits for every stream's first load).
func (r *Reader) startParked() {
	inFlight := max(2, 2*r.loads.n)
	r.starting = true
	next := 0
	for i, s := range r.streams {
		for ; next < len(r.streams) && next < i+inFlight; next++ {
			if t := r.streams[next]; t.next < len(t.bufs) {
				r.start(t)
			}
		}
		if r.advance(s) {
			r.parkStream(s)
			r.heap = append(r.heap, s)
		}
	}
	r.starting = false
}

// parkStream lets s's buffer go, keeping its current event's time and
// position (its place in the heap), when that event is the buffer's
// first, no further load of s is queued, and the buffer's load reported
// no error (loading it again would report it twice); else s keeps it.
func (r *Reader) parkStream(s *stream) {
	if s.cur == nil || s.nth != 0 || len(s.queue) > 0 || s.loadErr {
		return
	}
	s.release()
	if s.win != nil {
		r.spare = append(r.spare, s.win)
		s.win = nil
	}
	// The slices pointed into the buffer; the heap reads only Time,
	// File, BufferIndex and RecordOffset.
	s.ev.UserData, s.ev.Raw, s.ev.Extended = nil, nil, nil
	s.next-- // bufs[next] is the buffer let go: its load comes next
	s.due = s.ev.Time
	s.parked, s.again = true, true
}

// unpark loads the buffer of the parked stream on top of the heap again
// and moves it to the same event. Should the buffer not give that event
// again (the file changed under the reader), the stream goes on from
// what it gives, in its place in the heap.
func (r *Reader) unpark() {
	s := r.heap[0]
	s.parked = false
	t, f, b, o := s.ev.Time, s.ev.File, s.ev.BufferIndex, s.ev.RecordOffset
	ok := r.advance(s)
	if ok && s.ev.Time == t && s.ev.File == f && s.ev.BufferIndex == b && s.ev.RecordOffset == o {
		return
	}
	if ok {
		r.down(0)
	} else {
		r.dropTop()
	}
	r.setBar()
}
