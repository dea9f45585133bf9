// Package tracerpt writes what Windows' tracerpt writes for ETW trace
// files — its XML and CSV dumps and its summary file — plus JSON Lines, and
// selects events with filters, so that Go programs can produce tracerpt
// output without Windows.
//
// The pieces can be used alone or through pipeline.Run, which reads
// files, decodes, filters and renders on several goroutines and writes the
// result in order, with bounded memory:
//
//   - an encoder (NewXMLEncoder, NewCSVEncoder, NewJSONEncoder; a
//     pipeline.Encoder[byte]) appends one event, with its decode.Result
//     and, for JSON, its analysis annotation, to a byte slice;
//   - a Summary (a pipeline.Counter) counts events and writes tracerpt's
//     summary.txt.
//
// For example, tracerpt's CSV of a trace, as on an en-CA machine at UTC−5:
//
//	f, _ := etl.Open("trace.etl")
//	files := []*etl.File{f}
//	c, _, _ := tracerpt.ParseCulture("en-CA")
//	zone, _ := tracerpt.ParseZone("-05:00")
//	opts := &tracerpt.Options{Zone: zone, Culture: c}
//	_, err := pipeline.Run(ctx, &pipeline.Config[byte]{
//		Files:   files,
//		Encoder: tracerpt.NewCSVEncoder(files, opts),
//		Output:  w,
//	})
//
// docs/tracerpt-compat.md describes the formats, what has been checked
// byte for byte against real tracerpt output and what differs.
package tracerpt
