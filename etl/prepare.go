package etl

// A Preparer does work on each buffer a [Reader] loads, on the loader's
// goroutine, ahead of the goroutine that merges the events: decoding the
// events a pass will need, say, so that the reading goroutine only
// consumes the results. The Reader then hands the buffer's [Prepared]
// value back with each of its events ([Reader.Prepared]).
//
// Prepare is called with the buffer and the index of its file in the
// Reader (the [Event.File] of its events), on any goroutine, possibly
// on several at once; it may read the buffer (walk its records with
// [Buffer.Records]) but must not keep it or release it. A panic in
// Prepare is carried to the reading goroutine, as one in reading the
// buffer is. A merge of many inputs may load a buffer twice (its first
// load only to learn where its stream begins, park.go): Prepare is then
// called twice, and the first value released before any of its events is
// delivered.
type Preparer interface {
	Prepare(b *Buffer, file int) Prepared
}

// Prepared is what a [Preparer] made of one buffer. The Reader calls
// Release on the reading goroutine once it has delivered the buffer's last
// event, when it lets the buffer go to load it again later, or on Close;
// the value is not used after that.
type Prepared interface {
	Release()
}

// Prepared returns the current event's buffer's [Prepared] value (nil
// without a [ReaderOptions.Prepare], or when Prepare returned nil) and the
// event's position among the events of its buffer, in record order: the
// position of the event a walk of the buffer's records with
// [Buffer.Records] meets at that point.
func (r *Reader) Prepared() (Prepared, int) {
	if r.last == nil {
		return nil, -1
	}
	return r.last.prep, r.last.nth
}

// release returns the stream's current buffer and what was prepared of it.
func (s *stream) release() {
	if s.prep != nil {
		s.prep.Release()
		s.prep = nil
	}
	s.cur.Release()
	s.cur = nil
}
