// Command etlgen writes a trace N times as long as a real one, for scale
// measurements (see package etlgen and scripts/scale.sh):
//
//	go run ./internal/cmd/etlgen -n 16 [-from K] [-compress|-no-compress] [-buffer-size B] IN.etl OUT.etl
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/etlgen"
)

func main() {
	n := flag.Int("n", 16, "rounds: the output is this many times as long as the input")
	compress := flag.Bool("compress", false, "write XPRESS-compressed buffers (default: as the input)")
	plain := flag.Bool("no-compress", false, "write uncompressed buffers (default: as the input)")
	bufSize := flag.Int("buffer-size", 0, "buffer size in bytes (default: the input's)")
	from := flag.Int("from", 0, "the first round's number: the output starts this many spans after the input (traces written with -from 0, 1, 2, … follow each other)")
	flag.Parse()
	if flag.NArg() != 2 || (*compress && *plain) {
		fmt.Fprintln(os.Stderr, "usage: etlgen [-n N] [-from K] [-compress|-no-compress] [-buffer-size B] IN.etl OUT.etl")
		os.Exit(2)
	}
	if err := run(flag.Arg(0), flag.Arg(1), *n, *from, *compress, *plain, *bufSize); err != nil {
		fmt.Fprintln(os.Stderr, "etlgen:", err)
		os.Exit(1)
	}
}

func run(in, out string, n, from int, compress, plain bool, bufSize int) error {
	f, err := etl.Open(in)
	if err != nil {
		return err
	}
	defer f.Close()
	opts := etlgen.Options{Rounds: n, BufferSize: bufSize, From: from}
	switch {
	case compress:
		opts.Compression = etlgen.Compressed
	case plain:
		opts.Compression = etlgen.Uncompressed
	}
	res, err := etlgen.RepeatFile(out, f, &opts)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "%s: %d events, %d rounds of %d ticks, %d-byte buffers, compressed %v\n", out, res.Events, n, res.Span, res.BufferSize, res.Compressed)
	return nil
}
