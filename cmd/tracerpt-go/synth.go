package main

import (
	"errors"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/etwkit/etw/internal/atomicfile"
	"github.com/etwkit/etw/synth"
)

type synthOptions struct {
	out        string
	yes        bool
	compress   bool
	bufferSize int
	cpus       int
}

func newSynthCmd() *cobra.Command {
	var o synthOptions
	cmd := &cobra.Command{
		Use:   "synth EVENTS.jsonl -o OUT.etl",
		Short: "Write an .etl file from JSON Lines events",
		Long: `synth writes an .etl file from JSON Lines ("-" reads standard input), one event
per line, in time order per processor. Each line is one of two kinds:

  - an event of tracerpt-go's own JSON dump with "user_data" (dump with --raw to
    keep it for decoded events): it is written back as it was, same header kind,
    fields, extended items and payload. When the input holds the log-file header
    event with its user_data, the output takes that header (clock, frequency,
    start time, pointer size, names), so ETL → JSON → ETL → JSON reaches the same
    JSON;
  - any other object with "properties" (a JSON object): it becomes a
    self-describing TraceLogging event of provider "provider_name" (its GUID
    from "provider_guid" or from the name as EventSource derives it), named by
    "event_name", at "time" (RFC 3339) or "filetime", with "level", "keywords",
    "opcode", "pid", "tid" and "cpu" when given. Strings become UTF-16 strings,
    integers Int64 (UInt64 above 2^63−1), other numbers Double, booleans Bool32,
    objects structs and arrays arrays of their elements' type.`,
		Example: `  tracerpt-go trace.etl -of JSON --raw -o - | tracerpt-go synth - -o copy.etl
  tracerpt-go synth app-events.jsonl -o app.etl --compress`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runSynth(cmd, args[0], &o)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&o.out, "o", "o", "", "output .etl file (required)")
	fl.BoolVarP(&o.yes, "y", "y", false, "overwrite an existing output file")
	fl.BoolVar(&o.compress, "compress", false, "write XPRESS-compressed buffers")
	fl.IntVar(&o.bufferSize, "buffer-size", 64<<10, "buffer size in bytes")
	fl.IntVar(&o.cpus, "cpus", 0, "processors in the header (default: the input's, or 1 + the highest cpu seen… at least 64)")
	return cmd
}

func runSynth(cmd *cobra.Command, in string, o *synthOptions) error {
	if o.out == "" {
		return usageError(errors.New("synth needs -o OUT.etl"))
	}
	if err := checkOutputs([]string{in}, o.out); err != nil {
		return err
	}
	if err := refuseExisting(o.out, o.yes); err != nil {
		return err
	}
	var r io.Reader = cmd.InOrStdin()
	if in != "-" {
		f, err := os.Open(in)
		if err != nil {
			return withCode(exitInput, err)
		}
		defer f.Close()
		r = f
	}
	// Written under a temporary name and renamed when complete: a
	// failure (an input error at line N) leaves no partial file.
	out, err := atomicfile.Create(o.out)
	if err != nil {
		return err
	}
	defer out.Abort()
	err = synth.Convert(out.Writer(), r, in, &synth.Options{BufferSize: o.bufferSize, Compress: o.compress, CPUs: o.cpus})
	var ie *synth.InputError
	if errors.As(err, &ie) {
		return withCode(exitMalformed, err)
	}
	if err != nil {
		return err
	}
	return out.Commit()
}
