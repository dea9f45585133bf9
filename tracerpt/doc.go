// Package tracerpt writes what Windows' tracerpt writes for ETW trace
// files — its XML and CSV dumps and its summary file — plus JSON Lines, and
// selects events with filters, so that Go programs can produce tracerpt
// output without Windows.
//
// The pieces can be used alone or through Run:
//
//   - an Encoder (NewXMLEncoder, NewCSVEncoder, NewJSONEncoder) appends one
//     event, with its decode.Result, to a byte slice;
//   - a Summary counts events and writes tracerpt's summary.txt;
//   - a Filter keeps events by provider, id, level, keywords, process,
//     thread and time;
//   - Run reads files through an etl.Reader, decodes, filters and renders on
//     several goroutines and writes the result in order, with bounded
//     memory; the bytes do not depend on the number of goroutines.
//
// For example, tracerpt's CSV of a trace, as on an en-CA machine at UTC−5:
//
//	f, _ := etl.Open("trace.etl")
//	files := []*etl.File{f}
//	c, _, _ := tracerpt.ParseCulture("en-CA")
//	zone, _ := tracerpt.ParseZone("-05:00")
//	opts := &tracerpt.Options{Zone: zone, Culture: c}
//	_, err := tracerpt.Run(ctx, &tracerpt.Config{
//		Files:   files,
//		Encoder: tracerpt.NewCSVEncoder(files, opts),
//		Output:  w,
//	})
//
// docs/tracerpt-compat.md describes the formats, what has been checked
// byte for byte against real tracerpt output and what differs.
package tracerpt
