package main

import (
	"fmt"
	"io"
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

// atomicFile is an output written under a temporary name in the same
// folder and renamed into place by commit, so that a failure leaves no
// partial file behind (and an existing file stays as it was until the
// end). An existing path that is not a regular file (/dev/null, a FIFO, a
// terminal) is written to directly: it cannot be replaced, nor be left
// partial.
type atomicFile struct {
	*os.File
	path   string
	direct bool // writing to path itself (not a regular file)
	done   bool
	mode   os.FileMode // of the file at path when done
}

// createAtomic starts writing path. A symbolic link is followed (the
// file it names is replaced, the link stays) and an existing file keeps
// its permissions; a new one gets 0644.
func createAtomic(path string) (*atomicFile, error) {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	mode := os.FileMode(0o644)
	if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() {
		mode = st.Mode().Perm()
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return nil, fmt.Errorf("%s is a directory", path)
	} else if err == nil && !st.Mode().IsRegular() {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return nil, err
		}
		return &atomicFile{File: f, path: path, direct: true}, nil
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".*.tmp")
	if err != nil {
		return nil, fmt.Errorf("creating %s: %w", path, err)
	}
	return &atomicFile{File: f, path: path, mode: mode}, nil
}

// writer is the destination to hand to an encoder: the file itself, or,
// when writing to a device or FIFO directly, the file without its WriteAt
// (such outputs are streams: an encoder must not seek back).
func (a *atomicFile) writer() io.Writer {
	if a.direct {
		return struct{ io.Writer }{a.File}
	}
	return a
}

// commit closes the file and renames it to its path.
func (a *atomicFile) commit() error {
	if a.done {
		return nil
	}
	a.done = true
	if a.direct {
		return a.File.Close()
	}
	err := a.File.Chmod(a.mode)
	if cerr := a.File.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(a.File.Name(), a.path)
	}
	if err != nil {
		os.Remove(a.File.Name())
		return fmt.Errorf("writing %s: %w", a.path, err)
	}
	return nil
}

// abort removes the temporary file unless commit ran; safe to defer.
func (a *atomicFile) abort() {
	if a.done {
		return
	}
	a.done = true
	a.File.Close()
	if !a.direct {
		os.Remove(a.File.Name())
	}
}

// inputCache keeps the decompressed buffers of the inputs a dump reads
// more than once (docs/limits.md); a file's buffers leave it when the file
// is closed.
var inputCache = etl.NewBufferCache(256 << 20)
