package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/etwkit/etw/etl"
)

// inputPaths returns the paths of the opened inputs and of the other files
// the command reads (imports), for checkOutputs.
func inputPaths(files []*etl.File, others ...[]string) []string {
	var out []string
	for _, f := range files {
		if f != nil && f.Name != "" {
			out = append(out, f.Name)
		}
	}
	for _, o := range others {
		out = append(out, o...)
	}
	return out
}

// checkOutputs refuses, as a usage error (exit status 2), any output path
// that names one of the inputs: the same file under another name, through
// a symbolic or hard link, or in an imported folder. It is called before
// anything is opened for writing, so that -y never overwrites an input.
// "" and "-" (standard output) are not paths.
func checkOutputs(inputs []string, outputs ...string) error {
	type input struct {
		path string
		st   os.FileInfo
	}
	var ins []input
	for _, p := range inputs {
		if p == "" || p == "-" {
			continue
		}
		if st, err := os.Stat(p); err == nil {
			ins = append(ins, input{p, st})
		}
	}
	for _, out := range outputs {
		if out == "" || out == "-" {
			continue
		}
		ost, err := os.Stat(out)
		if err != nil {
			continue // does not exist yet (or a link to nothing): not an input
		}
		for _, in := range ins {
			if os.SameFile(ost, in.st) {
				return usageError(fmt.Errorf("output %s is the input %s: refusing to write over an input", filepath.Clean(out), filepath.Clean(in.path)))
			}
			if in.st.IsDir() && !ost.IsDir() && under(out, in.path) {
				return usageError(fmt.Errorf("output %s is inside the imported folder %s: refusing to write over an input", filepath.Clean(out), filepath.Clean(in.path)))
			}
		}
	}
	return nil
}

// under reports whether path lies inside dir (both made absolute, links
// resolved where they exist).
func under(path, dir string) bool {
	abs := func(p string) string {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			p = r
		}
		a, err := filepath.Abs(p)
		if err != nil {
			return p
		}
		return a
	}
	rel, err := filepath.Rel(abs(dir), abs(path))
	return err == nil && rel != ".." && !filepath.IsAbs(rel) && (len(rel) < 3 || rel[:3] != ".."+string(filepath.Separator))
}

// refuseExisting is the one policy on existing outputs: an existing
// regular file is refused, with exit status 4 (exitExists), unless yes
// (-y) was given. Only regular files are protected: /dev/null, FIFOs and
// terminals are written to as they are. "" and "-" (standard output) are
// not paths.
func refuseExisting(path string, yes bool) error {
	if yes || path == "" || path == "-" {
		return nil
	}
	if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() {
		return withCode(exitExists, fmt.Errorf("%s already exists; add -y to overwrite it", path))
	}
	return nil
}
