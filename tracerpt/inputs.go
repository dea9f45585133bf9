package tracerpt

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/etwkit/etw/internal/glob"
)

// ExpandInputs turns command-line inputs into file names:
//
//   - a glob pattern ("logs/*.etl", "trace.etl.*") expands to the files it
//     matches (an error if none);
//   - the name of an AutoLogger sequence, "trace.etl" when only
//     "trace.etl.001", "trace.etl.002", … exist, expands to those files;
//   - anything else is kept as given (opening it reports what is wrong).
//
// Files of one pattern or sequence are ordered by name, numeric suffixes
// by value (.etl.9 before .etl.10); a file named twice is read once. The
// files are those of [ExpandJobs]'s jobs, in order.
func ExpandInputs(args []string) ([]string, error) {
	jobs, err := ExpandJobs(args)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, j := range jobs {
		out = append(out, j.Files...)
	}
	return out, nil
}

// sequence returns the files name.NNN (digits only) that exist.
func sequence(name string) []string {
	m, _ := filepath.Glob(glob.Escape(name) + ".[0-9]*")
	var seq []string
	for _, f := range m {
		if _, ok := numericSuffix(f[len(name):]); ok {
			seq = append(seq, f)
		}
	}
	return seq
}

// numericSuffix parses ".NNN".
func numericSuffix(s string) (int, bool) {
	if len(s) < 2 || s[0] != '.' {
		return 0, false
	}
	n, err := strconv.Atoi(s[1:])
	return n, err == nil && n >= 0
}

// sortNames sorts names, comparing a trailing ".NNN" numerically.
func sortNames(names []string) {
	sort.SliceStable(names, func(i, j int) bool {
		a, b := names[i], names[j]
		ai, bi := strings.LastIndexByte(a, '.'), strings.LastIndexByte(b, '.')
		if ai >= 0 && bi >= 0 && a[:ai] == b[:bi] {
			na, oka := numericSuffix(a[ai:])
			nb, okb := numericSuffix(b[bi:])
			if oka && okb && na != nb {
				return na < nb
			}
		}
		return a < b
	})
}

// A Job is one conversion of a many-input run (tracerpt-go --jobs): the
// files of one input, and a name for its output.
type Job struct {
	Name  string   // the input's base name without ".etl" (and without ".NNN" for a sequence)
	Files []string // one file, or the files of an AutoLogger sequence
}

// ExpandJobs turns command-line inputs into jobs, one per file: a glob
// pattern gives one job per file it matches; the name of an AutoLogger
// sequence gives one job with all the sequence's files (they are one
// trace); anything else is one job as given. Jobs come in the order of
// the arguments, files of a pattern by name; a file named twice is one
// job.
func ExpandJobs(args []string) ([]Job, error) {
	var jobs []Job
	seen := map[string]bool{}
	add := func(name string, files ...string) {
		var keep []string
		for _, f := range files {
			if !seen[f] {
				seen[f] = true
				keep = append(keep, f)
			}
		}
		if len(keep) > 0 {
			jobs = append(jobs, Job{Name: name, Files: keep})
		}
	}
	for _, a := range args {
		if _, err := os.Stat(a); err == nil {
			add(jobName(a), a)
			continue
		}
		if strings.ContainsAny(a, "*?[") {
			m, err := filepath.Glob(a)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", a, err)
			}
			if len(m) == 0 {
				return nil, fmt.Errorf("%s: no file matches", a)
			}
			sortNames(m)
			for _, f := range m {
				add(jobName(f), f)
			}
			continue
		}
		if seq := sequence(a); len(seq) > 0 {
			sortNames(seq)
			add(jobName(a), seq...)
			continue
		}
		add(jobName(a), a)
	}
	return jobs, nil
}

// jobName is a file's base name without its ".etl" extension.
func jobName(p string) string {
	base := filepath.Base(p)
	if i := strings.LastIndexByte(base, '.'); i > 0 && strings.EqualFold(base[i:], ".etl") {
		base = base[:i]
	}
	return base
}
