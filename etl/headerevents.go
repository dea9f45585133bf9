package etl

import "slices"

// IsLoggerHeaderEvent reports whether ev is one of the header-buffer events
// a logger writes itself: the log-file header and its extension
// (PartitionInfoExtension, hook 0x0050). A [Writer] writes its own; a
// relogger leaves the input's out.
func IsLoggerHeaderEvent(ev *Event) bool {
	return ev.BufferIndex == 0 && ev.Header <= HeaderSystem64 && (ev.HookID == 0 || ev.HookID == 0x0050)
}

// HeaderExtensions returns copies of the header-buffer events of f that
// follow its log-file header, for [WriterOptions.HeaderEvents], so that a
// file written from f carries what f's header buffer did (none when it had
// none, never nil). A file whose first buffer cannot be read gives none.
func (f *File) HeaderExtensions() []Event {
	out := []Event{}
	bufs := f.Buffers()
	if len(bufs) == 0 || bufs[0].Index != 0 {
		return out
	}
	b, err := f.ReadBuffer(bufs[0])
	if err != nil {
		return out
	}
	defer b.Release()
	rr := b.Records()
	var ev Event
	for rr.Next(&ev) {
		if IsLoggerHeaderEvent(&ev) && ev.HookID != 0 {
			e := ev
			e.UserData = slices.Clone(ev.UserData)
			e.Extended = nil
			out = append(out, e)
		}
	}
	return out
}
