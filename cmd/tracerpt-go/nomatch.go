package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/pipeline"
)

// filtered reports whether any event filter was given.
func (o *dumpOptions) filtered() bool {
	return len(o.providers)+len(o.excludeProviders)+len(o.eventNames)+len(o.processes) > 0 ||
		o.eventIDs != "" || o.levels != "" || o.keywordsAny != "" || o.keywordsAll != "" ||
		o.pids != "" || o.tids != "" || o.start != "" || o.end != ""
}

// reportNoMatch says on standard error that the filters kept no event,
// and, for --provider, which of the providers named the trace does not
// hold, with the providers it does.
func reportNoMatch(cmd *cobra.Command, dec *decode.Decoder, files []*etl.File, f *pipeline.Filter) {
	w := cmd.ErrOrStderr()
	if len(f.Providers) == 0 {
		fmt.Fprintln(w, "tracerpt-go: no event matched the filters"+eventNameHint(f))
		return
	}
	stats, _ := decode.CountProviders(dec, files)
	var known, unnamed []string
	names := map[string]bool{}
	guids := map[string]bool{}
	for _, p := range stats {
		guids[strings.ToLower(p.GUID.String())] = true
		if k, ok := knownUnnamed(&p); ok {
			unnamed = append(unnamed, fmt.Sprintf("{%s} (%s, no schema: filter by GUID)", p.GUID, k.Name))
			continue
		}
		if p.Name == "" {
			unnamed = append(unnamed, fmt.Sprintf("{%s} (no schema: filter by GUID or -import its manifest)", p.GUID))
			continue
		}
		if !names[strings.ToLower(p.Name)] {
			names[strings.ToLower(p.Name)] = true
			known = append(known, p.Name)
		}
	}
	known = append(known, unnamed...)
	said := false
	for _, p := range f.Providers {
		switch {
		case p.IsGUID && !guids[strings.ToLower(p.GUID.String())]:
			fmt.Fprintf(w, "tracerpt-go: no event matched: no provider {%s} in this trace; known: %s\n", p.GUID, strings.Join(known, ", "))
			said = true
		case !p.IsGUID && !names[strings.ToLower(p.Name)]:
			fmt.Fprintf(w, "tracerpt-go: no event matched: no provider named %s in this trace; known: %s\n", p.Name, strings.Join(known, ", "))
			said = true
		}
	}
	if !said {
		fmt.Fprintln(w, "tracerpt-go: no event matched the filters"+eventNameHint(f))
	}
}

// eventNameHint says, when --event-name was given, which names it
// accepts.
func eventNameHint(f *pipeline.Filter) string {
	if len(f.EventNames) == 0 {
		return ""
	}
	return "; --event-name takes [PROVIDER/]NAME, NAME the manifest symbol (GCStart_V1) or the symbol without _Vn (GCStart), " +
		"Task/Opcode (GC/Start, Process/Start), the task or opcode name, or the event id: the JSON dump's event_name, task_name and opcode_name"
}
