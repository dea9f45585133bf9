// Package etl reads Windows Event Tracing (ETW) log files (.etl).
//
// An .etl file is a sequence of trace buffers, each a 0x48-byte
// WMI_BUFFER_HEADER followed by 8-byte-aligned event records. The first
// buffer carries the log-file header event (TRACE_LOGFILE_HEADER), which
// gives the buffer size, pointer size, clock type and the reference pair
// used to turn raw timestamps into UTC.
//
// The package exposes three levels:
//
//   - [File]: one opened file, its [LogfileHeader] and an index of its
//     buffers ([File.Buffers], [File.ReadBuffer]);
//   - [Buffer] and [RecordReader]: the records of one buffer, decompressed
//     if needed, in buffer order;
//   - [Reader]: every event of one or more files, merged into timestamp
//     order across processors and files as ProcessTrace does (or in file
//     order), with buffers read and decompressed in parallel.
//
// Every record kind is parsed into an [Event], the consumer-side view that
// Windows delivers as EVENT_RECORD: system, compact and perfinfo kernel
// headers, classic EVENT_TRACE_HEADER and instance headers, EVENT_HEADER
// with extended data items, WPP trace messages and error records, in their
// 32- and 64-bit forms.
//
// Corrupt input never panics: a damaged buffer or record is reported as a
// [*FormatError] naming its file offset, and reading goes on with the next
// buffer.
package etl
