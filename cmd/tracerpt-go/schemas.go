package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/manifest"
	"github.com/etwkit/etw/tdh"
)

func newSchemasCmd() *cobra.Command {
	var asJSON, verbose, yes bool
	var export string
	cmd := &cobra.Command{
		Use:   "schemas [--json] SOURCE...",
		Short: "List or export the event schemas of manifests, MOF, TMF or PE files, or those an .etl file carries",
		Long: `schemas lists providers, events and their fields, like wevtutil gp /ge /gm.
A SOURCE is an instrumentation manifest (.man, .xml), a MOF file (.mof), a
WPP trace message format file (.tmf), a PE file (.exe, .dll, .sys) with an
event manifest compiled in, or an .etl file, for the schemas it
carries (the TDH metadata relogging adds and the manifests .NET EventSource
providers log). With --json it writes one JSON object per event schema
(JSON Lines). --export DIR writes them as instrumentation manifests, one
file per provider, that -import reads back (tracerpt's -export).`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError(fmt.Errorf("schemas: no source file"))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			var all []*tdh.Event
			for _, path := range args {
				s, err := loadSource(cmd, path)
				if err != nil && len(args) == 1 {
					return err
				}
				if err != nil {
					// One damaged source does not stop the others
					// (as with -import).
					warn(cmd, err)
				}
				all = append(all, s...)
			}
			if export != "" {
				return exportSchemas(cmd, export, all, yes, verbose)
			}
			if asJSON {
				return writeSchemasJSON(cmd.OutOrStdout(), all)
			}
			return writeSchemasText(cmd.OutOrStdout(), all)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&asJSON, "json", false, "one JSON object per event schema")
	fl.StringVar(&export, "export", "", "write the schemas as manifests (one per provider) into this folder")
	fl.BoolVarP(&yes, "y", "y", false, "with --export: overwrite existing manifests")
	fl.BoolVarP(&verbose, "verbose", "v", false, "with --export: each thing a manifest cannot hold")
	return cmd
}

// exportSchemas writes one manifest per provider into dir and says what
// a manifest could not hold.
func exportSchemas(cmd *cobra.Command, dir string, schemas []*tdh.Event, yes, verbose bool) error {
	if len(schemas) == 0 {
		return withCode(exitFailure, fmt.Errorf("--export: no schemas to write"))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return withCode(exitFailure, err)
	}
	var issues []*manifest.ExportIssue
	for _, g := range manifest.GroupByProvider(schemas) {
		path := filepath.Join(dir, manifest.ExportFileName(g[0].ProviderName, g[0].ProviderGUID))
		if err := refuseExisting(path, yes); err != nil {
			return err
		}
		var b bytes.Buffer
		is, err := manifest.WriteXML(&b, g)
		if err != nil {
			return withCode(exitFailure, err)
		}
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			return withCode(exitFailure, err)
		}
		issues = append(issues, is...)
		fmt.Fprintf(cmd.OutOrStdout(), "%s: %d events\n", path, len(g))
	}
	if len(issues) > 0 {
		line := fmt.Sprintf("%d events not exactly expressible as a manifest", len(issues))
		if !verbose {
			line += " (-v for details)"
		}
		warn(cmd, errors.New(line))
		if verbose {
			for _, is := range issues {
				warn(cmd, is)
			}
		}
	}
	return nil
}

// loadSource reads the schemas of one source file.
func loadSource(cmd *cobra.Command, path string) ([]*tdh.Event, error) {
	if isETLName(path) {
		files, err := openInputs([]string{path})
		if err != nil {
			return nil, err
		}
		defer closeAll(files)
		s, err := decode.TraceSchemas(files)
		if err != nil {
			warn(cmd, err)
		}
		if len(s) == 0 {
			warn(cmd, fmt.Errorf("%s carries no schemas", path))
		}
		return s, nil
	}
	s, skipped, err := decode.ReadSchemas(path)
	if err != nil {
		return nil, withCode(schemaCode(err), err)
	}
	for _, e := range skipped {
		warn(cmd, e)
	}
	return s, nil
}

func writeSchemasJSON(w io.Writer, schemas []*tdh.Event) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, s := range schemas {
		if err := enc.Encode(tdh.Describe(s)); err != nil {
			return err
		}
	}
	return nil
}

func writeSchemasText(w io.Writer, schemas []*tdh.Event) error {
	var last string
	for _, s := range schemas {
		d := tdh.Describe(s)
		if p := d.ProviderName + d.ProviderGUID; p != last {
			last = p
			fmt.Fprintf(w, "\nprovider %s %s\n", d.ProviderName, d.ProviderGUID)
		}
		fmt.Fprintf(w, "  event %d v%d %s", d.EventID, d.Version, d.EventName)
		if d.TaskName != "" || d.Task != 0 {
			fmt.Fprintf(w, "  task %s(%d)", d.TaskName, d.Task)
		}
		if d.OpcodeName != "" || d.Opcode != 0 {
			fmt.Fprintf(w, "  opcode %s(%d)", d.OpcodeName, d.Opcode)
		}
		fmt.Fprintf(w, "  level %d  keywords %s\n", d.Level, d.Keywords)
		if d.Message != "" {
			fmt.Fprintf(w, "    message: %q\n", d.Message)
		}
		writeProps(w, d.Properties, "    ")
	}
	_, err := fmt.Fprintln(w)
	return err
}

func writeProps(w io.Writer, ps []tdh.PropertyDoc, indent string) {
	for _, p := range ps {
		fmt.Fprintf(w, "%s%s %s", indent, p.Name, p.InType)
		if p.OutType != "" {
			fmt.Fprintf(w, " -> %s", p.OutType)
		}
		if p.Count != nil {
			fmt.Fprintf(w, " [count %v]", p.Count)
		}
		if p.Length != nil {
			fmt.Fprintf(w, " [length %v]", p.Length)
		}
		if p.Map != "" {
			fmt.Fprintf(w, " map %s", p.Map)
		}
		fmt.Fprintln(w)
		writeProps(w, p.Members, indent+"  ")
	}
}

// isETLName reports whether path names an .etl file (or an AutoLogger
// file, trace.etl.001).
func isETLName(path string) bool {
	lower := strings.ToLower(filepath.Base(path))
	if strings.HasSuffix(lower, ".etl") {
		return true
	}
	i := strings.LastIndex(lower, ".etl.")
	return i >= 0 && strings.Trim(lower[i+5:], "0123456789") == "" && len(lower) > i+5
}
