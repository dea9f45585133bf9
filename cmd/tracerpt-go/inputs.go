package main

import (
	"github.com/spf13/cobra"

	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/cores"
)

// traceOptions says how openTrace prepares the inputs of a command.
type traceOptions struct {
	// imports are the -import paths: a missing one, or a named file that
	// is not a schema file, is exit status 3 (importSchemas).
	imports []string
	// verbose (-v) prints each import warning.
	verbose bool
	// outputs are the files the command will write: one that is an input
	// or an import is refused (checkOutputs, exit status 2), an existing
	// regular file without yes too (refuseExisting, exit status 4).
	outputs []string
	yes     bool
	// prescan registers the schemas the traces carry before openTrace
	// returns (decode.Decoder.Prescan; its problems are warnings).
	prescan bool
	// passes is how many times the command reads the inputs (the prescan
	// included): a progress bar over them is shown on a terminal until
	// endProgress, which openTrace sets (never nil after it returns).
	passes      int
	quiet       bool
	endProgress func()
	// base, if set, is forked for the decoder instead of importing the
	// schemas again (the jobs of --jobs).
	base *decode.Decoder
	// observe, if set, sees every event of the pass that builds the
	// model (buildModel without prescan), with the trace's decoder.
	observe func(ev *etl.Event, dec *decode.Decoder)
}

// openTrace is the start every trace-reading command shares: it opens
// the inputs args (globs and .etl.NNN sequences expanded once), checks the
// outputs against them, and makes a decoder with the imported schemas,
// prescanned if asked. Errors carry their exit status. The files are
// returned for closing, on error too.
func openTrace(cmd *cobra.Command, args []string, o *traceOptions) ([]*etl.File, *decode.Decoder, error) {
	o.endProgress = func() {}
	files, err := openInputs(args)
	if err != nil {
		return files, nil, err
	}
	if err := checkOutputs(inputPaths(files, o.imports), o.outputs...); err != nil {
		return files, nil, err
	}
	for _, p := range o.outputs {
		if err := refuseExisting(p, o.yes); err != nil {
			return files, nil, err
		}
	}
	if cores.Several() {
		go indexFiles(files)
	}
	var dec *decode.Decoder
	if o.base != nil {
		dec = o.base.Fork()
	} else if dec, err = newImportDecoder(cmd, o.imports, o.verbose); err != nil {
		return files, nil, err
	}
	if o.passes > 0 {
		o.endProgress = passProgress(cmd.ErrOrStderr(), o.quiet, files, o.passes)
	}
	if o.prescan {
		if err := dec.Prescan(files); err != nil {
			warn(cmd, err)
		}
	}
	return files, dec, nil
}

// indexFiles walks the buffer headers of files (etl.File.Buffers, which
// the reader calls again and then finds done): on another processor
// while the decoder's built-in schemas are made, the first time in a
// process 2-3.5 ms on its own. net.4.5.2's 360 headers take ~0.7 ms, one
// read each.
func indexFiles(files []*etl.File) {
	for _, f := range files {
		f.Buffers()
	}
}

// newImportDecoder returns a new decoder (newDecoder) holding the schemas
// of the -import paths; see importSchemas for the errors.
func newImportDecoder(cmd *cobra.Command, imports []string, verbose bool) (*decode.Decoder, error) {
	dec := newDecoder()
	if err := importSchemas(cmd, dec, imports, verbose); err != nil {
		return nil, err
	}
	return dec, nil
}
