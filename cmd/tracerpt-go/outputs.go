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

// atomicFile is an output written under a temporary name in the same
// folder and renamed into place by commit, so that a failure leaves no
// partial file behind (and an existing file stays as it was).
type atomicFile struct {
	*os.File
	path string
	done bool
}

// createAtomic starts writing path.
func createAtomic(path string) (*atomicFile, error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".*.tmp")
	if err != nil {
		return nil, err
	}
	return &atomicFile{File: f, path: path}, nil
}

// commit closes the file and renames it to its path.
func (a *atomicFile) commit() error {
	if a.done {
		return nil
	}
	a.done = true
	err := a.File.Chmod(0o644)
	if cerr := a.File.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(a.File.Name(), a.path)
	}
	if err != nil {
		os.Remove(a.File.Name())
	}
	return err
}

// abort removes the temporary file unless commit ran; safe to defer.
func (a *atomicFile) abort() {
	if a.done {
		return
	}
	a.done = true
	a.File.Close()
	os.Remove(a.File.Name())
}

// inputCache keeps the decompressed buffers of the inputs a dump reads
// more than once (docs/limits.md); a file's buffers leave it when the file
// is closed.
var inputCache = etl.NewBufferCache(256 << 20)
