package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/etwkit/etw/internal/atomicfile"
	"github.com/etwkit/etw/pcapng"
)

type pcapngOptions struct {
	out          string
	yes          bool
	dropOnly     bool
	includeDrops bool
	components   []string
	manifests    []string
	workers      int
	strict       bool
	verbose      bool
	quiet        bool
}

func newPcapngCmd() *cobra.Command {
	var o pcapngOptions
	cmd := &cobra.Command{
		Use:   "pcapng FILE... -o OUT.pcapng [--drop-only | --include-drops] [--component-id ID,...] [-y]",
		Short: "Write the packets of PktMon and NDIS packet captures as pcapng, for Wireshark",
		Long: `pcapng writes the packets an ETW trace captured as a pcapng file that Wireshark
and tshark read, as 'pktmon etl2pcap' (pktmon pcapng) and etl2pcapng do on
Windows:

  - PktMon captures (pktmon start --capture): one packet per packet event, with
    its component, direction and, for drops, the drop reason and location in
    the packet comment; one interface per component and link type, named
    after pktmon's component list. As with pktmon, dropped packets are left
    out unless --drop-only (only drops) or --include-drops (everything) is
    given, and --component-id keeps the packets of chosen components.
  - NDIS packet captures (netsh trace start capture=yes): fragments
    reassembled into frames, one interface per interface index and medium.

Schemas come from the trace or are built in: nothing needs importing. The
output is streamed; a damaged buffer costs only its packets (a warning).`,
		Example: `  tracerpt-go pcapng PktMon.etl -o capture.pcapng
  tracerpt-go pcapng PktMon.etl -o drops.pcapng --drop-only
  tracerpt-go pcapng PktMon.etl -o - --component-id 12,79 | tshark -r -
  tracerpt-go pcapng NetTrace.etl -o NetTrace.pcapng -y`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError(fmt.Errorf("no input file (run '%s --help' for usage)", cmd.CommandPath()))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runPcapng(cmd, args, &o)
		},
	}
	fl := cmd.Flags()
	fl.SortFlags = false
	fl.StringVarP(&o.out, "o", "o", "", "output pcapng file (required); - for standard output")
	fl.BoolVarP(&o.yes, "y", "y", false, "overwrite an existing output file")
	fl.BoolVar(&o.dropOnly, "drop-only", false, "only the packets PktMon reports as dropped (pktmon etl2pcap --drop-only)")
	fl.BoolVar(&o.includeDrops, "include-drops", false, "dropped packets as well as the others (by default, as with pktmon, drops are left out)")
	listVar(fl, &o.components, "component-id", "only the packets of these PktMon component ids (pktmon etl2pcap --component-id; repeatable, comma-separated)")
	listVar(fl, &o.manifests, "import", "schemas (manifests, or folders of them) to decode events with; none are needed for PktMon or NDIS")
	fl.IntVar(&o.workers, "workers", 0, "goroutines that read and decompress buffers (0: one per CPU)")
	fl.BoolVar(&o.strict, "strict", false, "stop with exit status 5 at the first damaged buffer or record (default: warn and go on)")
	fl.BoolVarP(&o.verbose, "verbose", "v", false, "say what was written")
	addQuietFlag(fl, &o.quiet)
	return cmd
}

// parseComponents parses --component-id values: numbers 0-65535.
func parseComponents(vals []string) ([]uint16, error) {
	var out []uint16
	for _, v := range vals {
		v = strings.TrimSpace(v)
		n, err := strconv.ParseUint(v, 0, 16)
		if err != nil {
			return nil, fmt.Errorf("--component-id %q: not a component id (0-65535)", v)
		}
		out = append(out, uint16(n))
	}
	return out, nil
}

func runPcapng(cmd *cobra.Command, args []string, o *pcapngOptions) error {
	if o.out == "" {
		return usageError(errors.New("pcapng needs -o OUT.pcapng (- for standard output; a name ending in .etl after -o is taken as an input)"))
	}
	if o.dropOnly && o.includeDrops {
		return usageError(errors.New("--drop-only and --include-drops cannot be used together"))
	}
	comps, err := parseComponents(o.components)
	if err != nil {
		return usageError(err)
	}
	toStdout := o.out == "-"
	if toStdout && isTerminal(cmd.OutOrStdout()) {
		return usageError(errors.New("refusing to write pcapng to a terminal: give -o FILE, or pipe it (-o - | tshark -r -)"))
	}
	// The component list, then the packets: the inputs are read twice
	// after the prescan.
	t := &traceOptions{
		imports: o.manifests, verbose: o.verbose,
		outputs: []string{o.out}, yes: o.yes,
		prescan: true, passes: 3, quiet: o.quiet,
	}
	files, dec, err := openTrace(cmd, args, t)
	defer closeAll(files)
	defer t.endProgress()
	if err != nil {
		return err
	}

	w := cmd.OutOrStdout()
	var out *atomicfile.File
	if !toStdout {
		// Written under a temporary name and renamed when complete: a
		// failed conversion leaves no partial file, and an existing file
		// is replaced only at the end.
		if out, err = atomicfile.Create(o.out); err != nil {
			return err
		}
		defer out.Abort()
		w = out.Writer()
	}
	st, err := pcapng.Convert(w, files, &pcapng.ConvertOptions{
		Options: pcapng.Options{DropOnly: o.dropOnly, IncludeDrops: o.includeDrops, Components: comps},
		Decoder: dec,
		Section: &pcapng.SectionOptions{Application: "tracerpt-go pcapng"},
		Workers: o.workers,
		Strict:  o.strict,
	})
	t.endProgress()
	if st != nil && !(o.strict && errors.Is(err, pcapng.ErrDamaged)) {
		for _, e := range st.Errors {
			warn(cmd, e)
		}
	}
	if err != nil {
		if errors.Is(err, pcapng.ErrDamaged) {
			return withCode(exitCorrupt, err)
		}
		return err
	}
	if out != nil {
		if err := out.Commit(); err != nil {
			return err
		}
	}
	reportPcapng(cmd, st, o)
	return nil
}

// reportPcapng warns about the packets that could not be written and,
// with -v, says what was.
func reportPcapng(cmd *cobra.Command, st *pcapng.Stats, o *pcapngOptions) {
	w := func(n int64, format string) {
		if n > 0 {
			warn(cmd, fmt.Errorf(format, n))
		}
	}
	w(st.Unsupported, "%d PktMon packets of a type with no pcapng link type (Unknown, HTTP) left out")
	w(st.Undecodable, "%d packet events whose payload does not fit their schema left out")
	w(st.Incomplete, "%d NDIS packets whose fragments did not all arrive left out")
	w(st.Truncated, "%d packets longer than 262,144 bytes truncated")
	w(st.OverLimit, "%d packets left out: more than 65,536 interfaces")
	if st.Packets == 0 {
		what := "the inputs hold no PktMon or NDIS packet-capture events; the file holds only its section header, which tshark and Wireshark read as an empty capture (record packets with 'pktmon start --capture' without --counters-only, or 'netsh trace start capture=yes')"
		if st.Filtered > 0 {
			what = fmt.Sprintf("the options leave out all %d packets", st.Filtered)
		}
		warn(cmd, fmt.Errorf("no packets written: %s", what))
	}
	if o.verbose {
		dest := o.out
		if dest == "-" {
			dest = "standard output"
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "tracerpt-go: %d packets (%d PktMon, %d of them drops; %d NDIS) on %d interfaces to %s; %d left out by the options\n",
			st.Packets, st.PktMonPackets, st.Drops, st.NDISPackets, st.Interfaces, dest, st.Filtered)
	}
}
