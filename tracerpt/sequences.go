package tracerpt

import (
	"sort"
	"strings"
)

// GroupSequences groups file names (paths or URLs, taken as they are, not
// looked up) into traces: the files of an AutoLogger sequence,
// name.etl.NNN, are one trace, with name.etl when it is listed too, in
// the order [ExpandInputs] gives them (name.etl first, then by number:
// .etl.9 before .etl.10); any other name is a trace of its own. The
// groups are sorted by name (that of name.etl for a sequence).
func GroupSequences(names []string) [][]string {
	groups := map[string][]string{}
	var keys []string
	for _, n := range names {
		key := sequenceName(n)
		if _, ok := groups[key]; !ok {
			keys = append(keys, key)
		}
		groups[key] = append(groups[key], n)
	}
	sort.Strings(keys)
	out := make([][]string, 0, len(keys))
	for _, k := range keys {
		g := groups[k]
		sortNames(g)
		out = append(out, g)
	}
	return out
}

// sequenceName returns name.etl for a member name.etl.NNN (digits) of
// an AutoLogger sequence, and any other name as it is.
func sequenceName(n string) string {
	i := strings.LastIndexByte(n, '.')
	if i < 0 || i+1 == len(n) || strings.Trim(n[i+1:], "0123456789") != "" || !strings.HasSuffix(n[:i], ".etl") {
		return n
	}
	return n[:i]
}
