// Package session emulates Event Tracing for Windows on one machine, to
// write .etl files as Windows' trace sessions write them: controllers
// start, update, flush and stop sessions; providers register and write
// events; the system routes each event to the sessions that enabled its
// provider and asked for it, and each session buffers the events per
// processor and writes its buffers to its log file in the logging mode it
// was started with. Files are written with package etl's encoders (the
// header buffer by etl.Writer itself), so they read back with etl.Open,
// etl.NewFile and etl.NewReader, and with Windows' own tools.
//
// # The system
//
// A [System] is one emulated machine ([New]): a number of processors, a
// clock, and the sessions and providers. The clock counts ticks at
// [Options].Frequency (10 MHz by default) from tick 0 at
// [Options].BootTime; it is either a virtual clock moved by
// [System.Advance] and [System.SetTime], or [Options].Now. The processor
// of each event comes from [Options].CPU (processor 0 if unset). With
// both injected, a program writes the same bytes on every run. A System
// is safe for concurrent use.
//
// # Controllers
//
//   - [System.StartSession] starts a session (StartTrace) with
//     [SessionOptions]: the log file and how to create it
//     (os.Create, or [MemFS] for files in memory), the logging mode
//     (etl.ModeSequential, etl.ModeCircular, etl.ModeNewFile,
//     etl.ModeAppend or etl.ModeBuffering, with etl.ModeCompressed,
//     etl.ModeNoPerProcessor and [ModeIndependentSession]), buffer size
//     (4 KiB–1 MiB), minimum and maximum buffers, maximum file size,
//     flush timer, clock type and pointer size. At most [MaxSessions]
//     sessions run at once.
//   - [Session.Enable] and [Session.Disable] enable and disable a
//     provider for a session (EnableTraceEx2): level, MatchAnyKeyword,
//     MatchAllKeyword, and as [EnableOption] the EnableProperty flags
//     ([WithProperties]), the event-id filter ([EventIDFilter]) and the
//     process filter ([ProcessIDFilter]).
//   - [Session.Update] changes buffer counts, flush timer and maximum
//     file size; [Session.Flush] writes the buffers; [Session.Stop]
//     writes the rest, completes the file header (BuffersWritten,
//     EndTime, EventsLost, BuffersLost) and closes the file;
//     [Session.Stats] reports the counters.
//
// # Providers
//
// [System.RegisterProvider] registers a [Manifest], [TraceLogging] or
// [Classic] provider, 32- or 64-bit. Providers write with
// [Provider.Write] (EventWrite), [Provider.WriteTransfer]
// (EventWriteTransfer: activity id and related activity id),
// [Provider.WriteEx], [Provider.WriteString], [Provider.WriteTraceLogging]
// (pre-encoded event metadata and provider traits, as made by package
// tracelogging) and, for classic providers, [Provider.TraceEvent]
// (FULL_HEADER records). The system stamps each event with the thread,
// process and activity of the caller's [Context], the clock and the
// processor. [Provider.Enabled] answers as EventProviderEnabled does.
//
// # Routing
//
// An EventWrite event reaches a session that enabled its provider when
//
//   - its level is 0, the session's level is 0, or its level is at most
//     the session's;
//   - its keyword is 0 (which passes both masks, as Windows documents,
//     unless the session set [PropertyIgnoreKeyword0]), or it shares a
//     bit with MatchAnyKeyword (any keyword if that is 0) and has every
//     bit of MatchAllKeyword;
//   - its id passes the session's event-id filter and its process the
//     process filter.
//
// A manifest-based or TraceLogging provider can be enabled by at most
// [MaxSessionsPerProvider] sessions (the next Enable fails with
// [ErrProviderLimit]). A classic provider's events go to the last session
// that enabled it only, whatever their level; a classic provider checks
// [Provider.Enabled] itself, as GetTraceEnableLevel lets it. A provider
// no session enables writes nothing, at the cost of one atomic load.
//
// An event that does not fit in every session that wants it (a session
// out of buffers, or whose bounded sequential file is full) is dropped
// from all of them, except those in independent mode, which still get it;
// every session that misses it counts one lost event, recorded in its
// file's EventsLost, and the write returns [ErrEventLost].
//
// # Buffers and logging modes
//
// Each session has a pool of buffers, between MinimumBuffers and
// MaximumBuffers, and one current buffer per processor (one in all with
// etl.ModeNoPerProcessor, whose files then say one processor). A full
// buffer goes to the logger, which writes it to the file and frees it at
// once, or after [SessionOptions].LoggerDelay ticks, or only at the next
// flush ([LoggerDelayUntilFlush]); while it waits it holds its place in
// the pool, so a burst larger than the pool loses events. The flush timer
// writes a buffer that has held events for FlushTimer ticks.
//
//   - Sequential: buffers are appended; with MaxFileSize the file stops
//     taking buffers when full, and the events that need one are lost.
//   - Circular: once MaxFileSize is reached the oldest buffers after the
//     header buffer are overwritten (as etl.Writer does), keeping the
//     newest events.
//   - New file: when the file reaches MaxFileSize the session moves to
//     the next file of the %d pattern (1, 2, …); each file is a complete
//     .etl with its own header, and etl.NewReader merges them back in
//     time order.
//   - Append: the buffers are written after those of an existing file
//     (same buffer size, pointer size, clock and processor count),
//     continuing its buffer sequence numbers; its header is updated on
//     stop. As on Windows, timestamps read back right when both parts
//     share a clock timeline (the same System, or the same Frequency and
//     BootTime).
//   - Buffering: the buffers stay in memory, a ring of MaximumBuffers
//     that overwrites the oldest ones; nothing is written until a flush
//     (Flush or Stop), which writes the ring oldest buffer first.
//   - Compressed: buffers after the header are XPRESS-compressed.
//
// Buffers are laid out as etl.Writer lays them out, to the byte (a test
// checks it for the sequential, bounded, circular and compressed forms).
package session
