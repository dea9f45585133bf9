// Command etl-fleet converts a fleet's ETW trace files with an Apache Beam
// pipeline: every file (or AutoLogger .etl.NNN set) a glob names becomes the
// tables tracerpt-go tables writes (the events table among them: the rows
// of tracerpt-go -of PARQUET) and the fleet's aggregates, under
// DIR/NAME/host=…/date=…, with DIR/files.jsonl (what each file gave) and
// DIR/errors.jsonl (what failed, the reason and the offset). The default
// runner is prism, in-process; --runner flink|spark|dataflow with Beam's
// flags runs it on those engines (docs/fleet.md).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/gcs"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/s3"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/textio"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners"

	"github.com/etwkit/etw/fleet/fleetpipe"
	"github.com/etwkit/etw/sympath"
)

type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

func main() {
	var inputs listFlag
	flag.Var(&inputs, "input", "glob of the .etl files (local, gs://…); repeatable")
	output := flag.String("output", "", "output folder")
	var imports listFlag
	flag.Var(&imports, "import", "schema file (manifest, MOF) shipped to the workers; repeatable")
	every := flag.Duration("progress", 10*time.Second, "interval of the progress line on standard error (a bar on a terminal); 0: none")
	maxRows := flag.Int64("max-file-rows", fleetpipe.DefaultMaxFileRows, "rows of a Parquet file at most: a trace's table goes on in NAME-2.parquet, …")
	symbols := flag.String("symbols", "", "symbol path the workers find PDBs through (folders, stores, srv*CACHE*URL), to name native frames by function")
	flag.Parse()
	if len(inputs) == 0 || *output == "" {
		fmt.Fprintln(os.Stderr, "usage: etl-fleet --input GLOB --output DIR [--import FILE]... [--symbols PATH] [--max-file-rows N] [--progress DURATION] [--runner prism|flink|spark|dataflow ...]")
		os.Exit(2)
	}
	if *symbols != "" {
		if _, err := sympath.Parse(*symbols); err != nil {
			fmt.Fprintln(os.Stderr, "etl-fleet: --symbols:", err)
			os.Exit(2)
		}
	}
	if *runners.Runner == "" {
		*runners.Runner = "prism"
	}
	beam.Init()
	if err := run(context.Background(), inputs, *output, imports, *maxRows, *every, *symbols); err != nil {
		fmt.Fprintln(os.Stderr, "etl-fleet:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, inputs []string, output string, imports []string, maxRows int64, every time.Duration, symbols string) error {
	ims, err := fleetpipe.ReadImports(imports)
	if err != nil {
		return err
	}
	// The progress bar lists the inputs (on a terminal): the pipeline
	// takes its listing rather than list the stores again.
	report := newProgress(ctx, os.Stderr, inputs, every)
	p, s := beam.NewPipelineWithRoot()
	opts := &fleetpipe.Options{Imports: ims, MaxFileRows: maxRows, Symbols: symbols}
	var files, errs beam.PCollection
	if report.listed {
		files, errs = fleetpipe.BuildListed(s, report.names, output, opts)
	} else {
		files, errs = fleetpipe.Build(s, inputs, output, opts)
	}
	textio.Write(s, strings.TrimRight(output, "/")+"/files.jsonl", files)
	textio.Write(s, strings.TrimRight(output, "/")+"/errors.jsonl", errs)
	_, err = fleetpipe.Run(ctx, p, report.interval, report.show)
	return err
}
