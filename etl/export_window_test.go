package etl

// SetReaderWindow sets the window of r's streams (window.go) in bytes of
// records, 0 for none, before r's first Next: tests compare reading with
// and without windows.
func SetReaderWindow(r *Reader, w int) { r.window, r.loads.at = w, w }

// ReaderWindow returns r's window, 0 for none.
func ReaderWindow(r *Reader) int { return r.window }

// HeldBuffers returns how many of r's streams hold a whole buffer's
// storage and how many hold a window of one.
func HeldBuffers(r *Reader) (whole, windows int) {
	for _, s := range r.streams {
		switch {
		case s.win != nil && s.win.on:
			windows++
		case s.cur != nil && s.cur.store != nil:
			whole++
		}
	}
	return whole, windows
}

// SetReaderPark turns the parked start (park.go) on or off before the
// first Next.
func SetReaderPark(r *Reader, on bool) { r.park = on }
