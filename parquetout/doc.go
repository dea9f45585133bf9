// Package parquetout writes events as Parquet tables (tracerpt-go -of
// PARQUET, --split-by-event; docs/cli.md): one table of every event, with
// typed columns for the header fields, the properties as JSON text and,
// from the analysis model, each event's process and stack; or one table
// per event type with a typed column per property.
//
// It plugs into pipeline.Run as a peer of tracerpt's formats: the [Encoder] renders each event into a
// record on the pipeline's workers, and a [Writer] (or [SplitWriter]),
// given to Run as the output, turns the records into rows. Row groups are
// encoded and compressed on other goroutines and committed in order, so
// memory is a few row groups whatever the input's size; the columns of a
// [Writer]'s chunks of 64 rows or more are written by a goroutine per
// processor, at most 8 (each column has its own writer, so the file does
// not depend on how many).
//
//	enc := parquetout.NewEncoder(files, false)
//	w := parquetout.NewWriter(out, enc, nil)
//	_, err := pipeline.Run(ctx, &pipeline.Config[byte]{Files: files, Encoder: enc, Output: w})
//	if cerr := w.Close(); err == nil {
//		err = cerr
//	}
package parquetout
