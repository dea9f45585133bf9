package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/parquetout"
	"github.com/etwkit/etw/pipeline"
	"github.com/etwkit/etw/tracerpt"
)

// parseDumpFormat parses -of: tracerpt's formats, or PARQUET (also implied
// by --split-by-event). A Parquet dump renders like the JSON dump (same
// analysis), so its tracerpt.Format is JSON.
func parseDumpFormat(o *dumpOptions, ofGiven bool) (tracerpt.Format, bool, error) {
	if strings.EqualFold(o.format, "PARQUET") || o.splitDir != "" {
		if o.splitDir != "" && !strings.EqualFold(o.format, "PARQUET") && ofGiven {
			return 0, false, fmt.Errorf("--split-by-event writes Parquet: -of %s does not apply", o.format)
		}
		if o.splitDir != "" && o.output != "" {
			return 0, false, fmt.Errorf("--split-by-event writes to its directory: -o %s does not apply", o.output)
		}
		if _, err := parquetout.ParseCompression(o.compression); err != nil {
			return 0, false, err
		}
		return tracerpt.JSON, true, nil
	}
	f, err := tracerpt.ParseFormat(o.format)
	if err != nil {
		return 0, false, fmt.Errorf("%w; -of PARQUET writes Parquet", err)
	}
	return f, false, nil
}

// defaultDumpPath is the dump file when -o is not given (the directory
// with --split-by-event).
func defaultDumpPath(f tracerpt.Format, o *dumpOptions) string {
	switch {
	case o.splitDir != "":
		return o.splitDir
	case strings.EqualFold(o.format, "PARQUET"):
		return "dumpfile.parquet"
	}
	return f.DefaultOutput()
}

// parquetOutput is a Parquet dump in progress: one file (on the dump's
// buffered output) or a directory of tables.
type parquetOutput struct {
	file  *parquetout.Writer
	split *parquetout.SplitWriter
}

// checkSplitDir refuses to write tables into a directory that holds
// Parquet files already, unless -y.
func checkSplitDir(dir string, yes bool) error {
	if yes {
		return nil
	}
	var found string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".parquet") {
			found = p
			return filepath.SkipAll
		}
		return nil
	})
	if found != "" {
		return withCode(exitExists, fmt.Errorf("%s already holds Parquet files (%s); add -y to overwrite them", dir, found))
	}
	return nil
}

// startParquet makes cfg write Parquet: to out, or with --split-by-event
// to the tables under that directory.
func startParquet(cfg *pipeline.Config[byte], out io.Writer, files []*etl.File, o *dumpOptions, toTerminal bool) (*parquetOutput, error) {
	if toTerminal && o.splitDir == "" {
		return nil, usageError(errors.New("a Parquet dump is binary: it is not written to a terminal (give -o FILE or redirect)"))
	}
	c, _ := parquetout.ParseCompression(o.compression)
	po := &parquetout.Options{Compression: c}
	enc := parquetout.NewEncoder(files, o.raw)
	cfg.Encoder = enc
	if o.splitDir != "" {
		if err := checkSplitDir(o.splitDir, o.yes); err != nil {
			return nil, err
		}
		sw, err := parquetout.NewSplitWriter(o.splitDir, enc, po)
		if err != nil {
			return nil, err
		}
		cfg.Output = sw
		return &parquetOutput{split: sw}, nil
	}
	w := parquetout.NewWriter(out, enc, po)
	cfg.Output = w
	return &parquetOutput{file: w}, nil
}

// finish writes the footers; err is the dump's error so far.
func (p *parquetOutput) finish(err error) error {
	if p == nil {
		return err
	}
	var cerr error
	if p.file != nil {
		cerr = p.file.Close()
	} else {
		cerr = p.split.Close()
	}
	if err == nil {
		err = cerr
	}
	return err
}
