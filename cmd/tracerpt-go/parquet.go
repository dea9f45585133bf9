package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/etwkit/etw/driver"
	"github.com/etwkit/etw/parquetout"
)

// parseDumpFormat parses -of: XML, CSV, JSON or PARQUET (also implied by
// --split-by-event).
func parseDumpFormat(o *dumpOptions, ofGiven bool) (driver.Format, error) {
	if strings.EqualFold(o.format, "PARQUET") || o.splitDir != "" {
		if o.splitDir != "" && !strings.EqualFold(o.format, "PARQUET") && ofGiven {
			return 0, fmt.Errorf("--split-by-event writes Parquet: -of %s does not apply", o.format)
		}
		if o.splitDir != "" && o.output != "" {
			return 0, fmt.Errorf("--split-by-event writes to its directory: -o %s does not apply", o.output)
		}
		if _, err := parquetout.ParseCompression(o.compression); err != nil {
			return 0, err
		}
		return driver.Parquet, nil
	}
	f, err := driver.ParseFormat(o.format)
	if err != nil {
		return 0, fmt.Errorf("%w; -of PARQUET writes Parquet", err)
	}
	return f, nil
}

// defaultDumpPath is the dump file when -o is not given (the directory
// with --split-by-event).
func defaultDumpPath(f driver.Format, o *dumpOptions) string {
	if o.splitDir != "" {
		return o.splitDir
	}
	return f.DefaultOutput()
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
