package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/atomicfile"
)

type relogOptions struct {
	dumpOptions // filters, -import, -y
	out         string
	compress    bool
	noCompress  bool
	bufferSize  int
}

func newRelogCmd() *cobra.Command {
	var o relogOptions
	cmd := &cobra.Command{
		Use:   "relog FILE... -o OUT.etl [--compress] [filters]",
		Short: "Write a filtered, merged .etl file from .etl inputs",
		Long: `relog reads the input files, merges their events into time order, keeps the
events the filters select, and writes them to a new .etl file that Windows'
tools read: one header buffer, then per-processor buffers, as a relogger
writes them. Timestamps keep the first input's clock; events of other inputs
are converted through UTC.

The output keeps what the inputs had: the first input's buffer size, and
XPRESS-compressed buffers (as 'xperf -merge -compress' and PerfView's relogger
write them) when any input was compressed, so that a capture of a few hundred
KB in 16 MiB buffers stays that size. --buffer-size, --compress and
--no-compress choose otherwise.`,
		Example: `  tracerpt-go relog a.etl b.etl -o merged.etl
  tracerpt-go relog big.etl -o pktmon-only.etl --provider Microsoft-Windows-PktMon --compress`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runRelog(cmd, args, &o)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&o.out, "o", "o", "", "output .etl file (required)")
	fl.BoolVar(&o.compress, "compress", false, "write XPRESS-compressed buffers (default when an input is compressed)")
	fl.BoolVar(&o.noCompress, "no-compress", false, "write uncompressed buffers even when an input is compressed")
	fl.IntVar(&o.bufferSize, "buffer-size", 0, "buffer size in bytes, a multiple of 1024 up to 16 MiB (default: the first input's, at least 64 KiB)")
	cmd.MarkFlagsMutuallyExclusive("compress", "no-compress")
	fl.BoolVarP(&o.yes, "y", "y", false, "overwrite an existing output file")
	listVar(fl, &o.manifests, "import", "manifests or MOF files, for --provider filters by name")
	fl.BoolVarP(&o.verbose, "verbose", "v", false, "each schema import warning")
	addQuietFlag(fl, &o.quiet)
	fl.BoolVar(&o.strict, "strict", false, "exit with status 5, writing nothing, when an input is damaged (default: warn and go on)")
	addFilterFlags(fl, &o.dumpOptions)
	return cmd
}

func runRelog(cmd *cobra.Command, args []string, o *relogOptions) error {
	if o.out == "" {
		return usageError(errors.New("relog needs -o OUT.etl"))
	}
	files, filt, err := o.openFiltered(args)
	defer closeAll(files)
	if err != nil {
		return err
	}
	if err := checkOutputs(inputPaths(files, o.manifests), o.out); err != nil {
		return err
	}
	if err := refuseExisting(o.out, o.yes); err != nil {
		return err
	}
	headerEvents := files[0].HeaderExtensions() // before the progress bar counts reads
	passes := 1
	if filt.NeedsSchema() {
		passes = 2
	}
	endProgress := passProgress(cmd.ErrOrStderr(), o.quiet || o.out == "-", files, passes)
	defer endProgress()
	var dec *decode.Decoder
	if filt.NeedsSchema() {
		// The prescan and the relog each read the inputs.
		if dec, err = newImportDecoder(cmd, o.manifests, o.verbose); err != nil {
			return err
		}
		if err := dec.Prescan(files); err != nil {
			warn(cmd, err)
		}
	}

	h := files[0].Header
	h.EndTime, h.BuffersWritten, h.EventsLost, h.BuffersLost = 0, 0, 0, 0
	h.LogFileMode = h.LogFileMode&^(etl.ModeCircular|etl.ModeNewFile|etl.ModeAppend|etl.ModeCompressed|etl.ModeUseKBytesForSize) | etl.ModeRelog
	h.MaximumFileSize = 0
	for _, f := range files {
		h.NumberOfProcessors = max(h.NumberOfProcessors, f.Header.NumberOfProcessors)
		h.EventsLost += f.Header.EventsLost
		h.BuffersLost += f.Header.BuffersLost
	}
	bufSize := o.bufferSize
	if bufSize == 0 {
		bufSize = int(max(h.BufferSize, 64<<10))
	}
	compress := o.compress
	if !o.compress && !o.noCompress {
		for _, f := range files {
			compress = compress || f.Header.LogFileMode&etl.ModeCompressed != 0
		}
	}
	// Written under a temporary name and renamed when complete: a
	// failure leaves no partial file.
	out, err := atomicfile.Create(o.out)
	if err != nil {
		return err
	}
	defer out.Abort()
	// Damaged or duplicated inputs can go back in time on a processor
	// (the merge reads a processor's buffers in flush order): such events
	// start a new buffer rather than stopping the relog.
	w, err := etl.NewWriter(out.Writer(), &etl.WriterOptions{Header: h, BufferSize: bufSize, Compress: compress, Reorder: true,
		HeaderEvents: headerEvents})
	if err != nil {
		return err
	}
	r := etl.NewReader(files, &etl.ReaderOptions{Order: etl.TimeOrder, Workers: o.workers})
	defer r.Close()
	written := 0
	for r.Next() {
		ev := r.Event()
		if etl.IsLoggerHeaderEvent(ev) {
			continue // the writer writes its own header events
		}
		if !filt.MatchHeader(ev) {
			continue
		}
		if dec != nil {
			if res := dec.Decode(ev); !filt.MatchSchema(ev, res.Schema) {
				continue
			}
		}
		e := *ev
		if ev.File != 0 {
			e.Timestamp = 0 // converted from e.Time with the output's clock
		}
		if err := w.WriteEvent(&e); err != nil {
			return fmt.Errorf("writing event %d: %w", written, err)
		}
		written++
		if filt.MaxEvents > 0 && written >= filt.MaxEvents {
			break
		}
	}
	endProgress()
	damage := strictOption{strict: o.strict}
	damage.warnEach(cmd, r.Errors())
	if n := w.Reordered(); n > 0 {
		warn(cmd, fmt.Errorf("%d events came earlier than the previous event of their processor (overlapping or duplicated buffers in the input): each started a new buffer", n))
	}
	if err := damage.check(); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	return out.Commit()
}
