// Package tables writes the analysis model of ETW traces as Parquet tables
// that join, in the spirit of Perfetto's trace processor schema: traces,
// processes, threads, images, .NET methods, frames, stacks (a prefix
// tree), CPU samples, .NET GCs, disk I/O, files, packets and the events,
// each row naming others by id (upid, utid, image_id, frame_id, stack_id,
// …), ids unique across the traces of one Writer. docs/tables.md documents every
// column and key.
//
//	w, err := tables.CreateDir("out", nil) // or NewWriter with io.Writers
//	st, err := w.Add("trace.etl", files, dec)
//	err = w.Close()
//
// Add reads a trace twice: once to build its analysis.Model, once through
// package pipeline, which writes the events table (the Parquet dump's
// rows, rendered by package parquetout on the pipeline's workers, with
// each event's trace, utid and stack_id) while its observers write the
// samples (with their stacks, as the analysis package's Enricher gives
// them), the disk I/O and the packets (through package netcap, which gives
// package pcapng its packets). Rows stream to the Parquet writers in row groups of at
// most Options.RowGroupRows rows and, for the model's tables, about 512
// KiB of pages (the events table's as the dump's);
// memory is the model and the maps of distinct frames, stack nodes and
// file objects, not the events. Options.MaxFileRows bounds the rows of
// each file; Options.Aggregates computes the fleet's per-trace
// Aggregates in the same passes.
package tables
