package main

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/etwkit/etw/catalog"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/internal/texttable"
	"github.com/etwkit/etw/report"
)

func newProvidersCmd() *cobra.Command {
	var asJSON, verbose, quiet bool
	var strict strictOption
	var imports []string
	cmd := &cobra.Command{
		Use:   "providers [--json] [-import FILE...] FILE...",
		Short: "List the providers of a trace, their events and where their schemas come from",
		Long: `providers decodes every event of the files and lists each provider (each
event class for classic and kernel events): its name and GUID, its events,
how many decoded, and the source of its schemas: import:<file>, trace (the
TDH metadata a relogged trace carries), eventsource (manifests .NET
EventSource providers log), built-in, tracelogging, or none.
With --json it writes one JSON object per provider (JSON Lines).`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError(fmt.Errorf("providers: no input file"))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			// CountProviders prescans, then decodes every event: the
			// inputs are read twice.
			to := &traceOptions{imports: imports, verbose: verbose, passes: 2, quiet: quiet}
			files, dec, err := openTrace(cmd, args, to)
			defer closeAll(files)
			defer to.endProgress()
			if err != nil {
				return err
			}
			stats, errs := decode.CountProviders(dec, files)
			to.endProgress()
			strict.warnEach(cmd, errs)
			if err := strict.check(); err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(w)
				for _, p := range stats {
					line := providerJSON{Provider: report.NewProvider(&p)}
					if k, ok := knownUnnamed(&p); ok {
						line.Known = &knownProviderJSON{Name: k.Name, Kind: k.Kind, Binary: k.Binary, Needs: k.Needs}
					}
					if err := enc.Encode(line); err != nil {
						return err
					}
				}
				return nil
			}
			var rows [][]string
			var hints []string
			for _, p := range stats {
				name := p.Name
				if p.Class != "" {
					name += "/" + p.Class
				}
				if k, ok := knownUnnamed(&p); ok {
					name = k.Name + " (no schema)"
					hints = append(hints, "{"+p.GUID.String()+"} "+k.Hint())
				}
				if name == "" {
					name = "(unknown)"
				}
				rows = append(rows, []string{name, "{" + p.GUID.String() + "}", strconv.Itoa(p.Events), strconv.Itoa(p.Decoded), p.Source()})
			}
			if err := texttable.Write(w, []string{"Provider", "GUID", "Events", "Decoded", "Source"}, rows); err != nil {
				return err
			}
			for _, h := range hints {
				if _, err := fmt.Fprintln(w, h); err != nil {
					return err
				}
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&asJSON, "json", false, "one JSON object per provider")
	listVar(fl, &imports, "import", "schema files or folders to decode with, as for the dump")
	fl.BoolVarP(&verbose, "verbose", "v", false, "each schema import warning")
	addQuietFlag(fl, &quiet)
	strict.addFlag(fl)
	return cmd
}

// providerJSON is one line of providers --json: the report's provider
// and, for a provider no schema named that the catalog knows by GUID,
// what it knows.
type providerJSON struct {
	report.Provider
	Known *knownProviderJSON `json:"known,omitempty"`
}

// knownProviderJSON is catalog.KnownProvider in providers --json.
type knownProviderJSON struct {
	Name   string `json:"name"`
	Kind   string `json:"kind"`
	Binary string `json:"manifest_binary,omitempty"`
	Needs  string `json:"needs"`
}

// knownUnnamed returns the catalog's facts of a provider no schema
// named (no event decoded).
func knownUnnamed(p *decode.ProviderStat) (*catalog.KnownProvider, bool) {
	if p.Name != "" {
		return nil, false
	}
	return catalog.LookupProvider(p.GUID)
}
