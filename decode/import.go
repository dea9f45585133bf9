package decode

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/etwkit/etw/internal/readerat"
	"github.com/etwkit/etw/manifest"
	"github.com/etwkit/etw/mof"
	"github.com/etwkit/etw/pdb"
	"github.com/etwkit/etw/pe"
	"github.com/etwkit/etw/tdh"
	"github.com/etwkit/etw/wevt"
	"github.com/etwkit/etw/wpp"
)

// ImportReport tells what [Decoder.ImportFiles] did.
type ImportReport struct {
	// Files is the number of schema files read.
	Files int
	// Events is the number of event schemas registered.
	Events int
	// Skipped is the number of events (or MOF classes, TMF messages)
	// that were in the files but could not be compiled.
	Skipped int
	// Ignored is the number of files under a folder that were not schema
	// files after all (XML that is not a manifest, PE files without an
	// event manifest).
	Ignored int
	// Warnings are the problems that did not stop the import: events
	// skipped, files under a folder that could not be read or parsed.
	Warnings []error
	// Failed are the paths named that could not be imported (missing,
	// unreadable, not a schema file, malformed), one error each. They
	// stop nothing when other paths were named: see [Decoder.ImportFiles].
	Failed []error
}

// Summary is one line for people: "imported 912 files: 45,875 events;
// 453 skipped".
func (r *ImportReport) Summary() string {
	s := fmt.Sprintf("imported %s file%s: %s event%s", thousands(r.Files), plural(r.Files), thousands(r.Events), plural(r.Events))
	if r.Skipped > 0 {
		s += fmt.Sprintf("; %s skipped", thousands(r.Skipped))
	}
	if n := len(r.Failed); n > 0 {
		s += fmt.Sprintf("; %s path%s not imported", thousands(n), plural(n))
	}
	if n := len(r.Warnings); n > 0 {
		s += fmt.Sprintf("; %s warning%s", thousands(n), plural(n))
	}
	return s
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// importState numbers imported files so that earlier ones take
// precedence.
type importState struct {
	mu   sync.Mutex
	next int
}

func (s *importState) origin(path string, inFolder bool) tdh.Origin {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.next++
	kind := tdh.OriginImport
	if inFolder {
		kind = tdh.OriginFolder
	}
	return tdh.Origin{Kind: kind, Order: s.next, Name: path}
}

// Import registers the schemas of manifest (.man, .xml, including
// WEPExplorer exports), MOF (.mof), WPP trace message format (.tmf) and
// PE files with event manifests (see [ReadSchemas]), or of every such
// file under a folder. It is [Decoder.ImportFiles] with the paths that
// failed and the warnings joined to the errors: everything that could
// be imported is, and the error says what could not.
func (d *Decoder) Import(paths ...string) error {
	rep, err := d.ImportFiles(paths...)
	if err != nil {
		return errors.Join(err, errors.Join(rep.Warnings...))
	}
	return errors.Join(errors.Join(rep.Failed...), errors.Join(rep.Warnings...))
}

// ImportFiles registers the schemas of the files named, and of the schema
// files under the folders named (walked in sorted path order). A file
// named takes precedence over files named after it, over the schemas the
// trace carries and over the built-in ones; files found under a folder
// come after all of those (see [Decoder] for the whole order).
//
// A path named that cannot be imported (it does not exist, it is not a
// schema file, it cannot be parsed) is in the report's Failed, and the
// other paths are imported: one damaged file does not stop the others.
// It is the error only when it was the one path named (nothing was
// imported). Problems inside what is imported (events that could not be
// compiled, unreadable files under a folder) are in the report's
// Warnings.
func (d *Decoder) ImportFiles(paths ...string) (ImportReport, error) {
	d.es.waitParsed() // registered in the order asked
	var rep ImportReport
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			rep.Failed = append(rep.Failed, fmt.Errorf("import: %w", err))
			continue
		}
		if !st.IsDir() {
			ok, err := d.importFile(p, false, &rep)
			if err != nil {
				rep.Failed = append(rep.Failed, err)
			} else if !ok {
				rep.Failed = append(rep.Failed, fmt.Errorf("import %s: %w", p, ErrNotSchema))
			}
			continue
		}
		filepath.WalkDir(p, func(path string, e fs.DirEntry, err error) error {
			if err != nil {
				rep.Warnings = append(rep.Warnings, err)
				return nil
			}
			if e.IsDir() || !schemaExt(path) {
				return nil
			}
			if peExt(path) {
				// Folders of binaries (a mounted Windows/System32) are
				// scanned by their resource directories only.
				if ok, err := hasTemplate(path); err != nil || !ok {
					rep.Ignored++
					return nil
				}
			}
			ok, err := d.importFile(path, true, &rep)
			if err != nil {
				rep.Warnings = append(rep.Warnings, err)
			} else if !ok {
				rep.Ignored++
			}
			return nil
		})
	}
	if len(paths) == 1 && len(rep.Failed) == 1 {
		return rep, rep.Failed[0]
	}
	return rep, nil
}

func schemaExt(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".man", ".xml", ".mof", ".tmf":
		return true
	}
	return peExt(path)
}

// peExt reports whether path names a PE file that may hold an event
// manifest (WEVT_TEMPLATE).
func peExt(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".exe", ".dll", ".sys", ".ocx", ".cpl", ".drv", ".efi", ".scr":
		return true
	}
	return false
}

// hasTemplate reports whether a PE file has a WEVT_TEMPLATE resource,
// reading only its headers and resource directory.
func hasTemplate(path string) (bool, error) {
	f, err := pe.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	return f.HasResourceType(pe.TypeWEVTTemplate)
}

// ErrNotSchema is returned by [ReadSchemas] for a file that is not a
// schema file (an XML document that is not a manifest, a PE file without
// an event manifest).
var ErrNotSchema = errors.New("not a manifest, MOF, TMF or PE file with an event manifest")

// ReadSchemas reads one schema file: an instrumentation manifest or
// WEPExplorer export (.man, .xml), a MOF file (.mof), a WPP trace
// message format file (.tmf), a PDB's WPP message formats (.pdb: its
// S_ANNOTATION records that start "TMF:"), or a PE file (.exe, .dll, .sys, …) with an
// event manifest compiled into its WEVT_TEMPLATE resource (messages from
// its message table, or from its .mui file). It returns the compiled
// schemas and the items that could not be compiled (events, classes or
// messages); err is set when the file cannot be read or parsed at all,
// and wraps [ErrNotSchema] for a file that holds no schemas. A path that
// is not a regular file (a FIFO, a folder) is refused before it is
// opened: an *os.PathError wrapping [etl.ErrNotRegular].
func ReadSchemas(path string) (schemas []*tdh.Event, skipped []error, err error) {
	// A FIFO without a writer would block the open; a folder or device
	// is no schema file either.
	if err := readerat.CheckRegular(path, "schemas are read from files"); err != nil {
		return nil, nil, err
	}
	if peExt(path) {
		m, err := wevt.OpenPE(path)
		if errors.Is(err, wevt.ErrNoTemplate) || errors.Is(err, pe.ErrNotPE) {
			return nil, nil, fmt.Errorf("%s: %w", path, ErrNotSchema)
		}
		if err != nil {
			return nil, nil, err
		}
		schemas, skipped = m.Schemas()
		return schemas, skipped, nil
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".tmf":
		f, err := wpp.ParseFile(path)
		if err != nil {
			return nil, nil, err
		}
		schemas, skipped = f.Schemas()
		return schemas, skipped, nil
	case ".pdb":
		return pdbSchemas(path)
	case ".mof":
		f, err := mof.ParseFile(path)
		if err != nil {
			return nil, nil, err
		}
		schemas, skipped = f.Schemas()
		return schemas, skipped, nil
	}
	m, err := manifest.ParseFile(path)
	if errors.Is(err, manifest.ErrNotManifest) {
		return nil, nil, fmt.Errorf("%s: %w", path, ErrNotSchema)
	}
	if err != nil {
		return nil, nil, err
	}
	schemas, skipped = m.Schemas()
	return schemas, skipped, nil
}

// importFile imports one file; ok is false when it is not a schema file.
func (d *Decoder) importFile(path string, inFolder bool, rep *ImportReport) (ok bool, err error) {
	schemas, skipped, err := ReadSchemas(path)
	if errors.Is(err, ErrNotSchema) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	d.Registry.AddFrom(d.imports.origin(path, inFolder), schemas...)
	rep.Files++
	rep.Events += len(schemas)
	rep.Skipped += len(skipped)
	if len(skipped) > 0 {
		rep.Warnings = append(rep.Warnings, fmt.Errorf("%s: %d not imported: %w", path, len(skipped), errors.Join(skipped...)))
	}
	return true, nil
}

// pdbSchemas reads the WPP message formats a driver's PDB carries: each
// S_ANNOTATION record whose first string is "TMF:" holds the lines of a
// TMF file (the provider's GUID line, a #typev line and its arguments).
// An annotation that does not parse is skipped with its error.
func pdbSchemas(path string) (schemas []*tdh.Event, skipped []error, err error) {
	f, err := pdb.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	anns, err := f.Annotations()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	n := 0
	for _, a := range anns {
		if len(a.Strings) < 2 || a.Strings[0] != "TMF:" {
			continue
		}
		n++
		name := fmt.Sprintf("%s: TMF annotation at %04X:%08X", path, a.Section, a.Offset)
		t, err := wpp.Parse(strings.NewReader(strings.Join(a.Strings[1:], "\n")), name)
		if err != nil {
			skipped = append(skipped, err)
			continue
		}
		s, sk := t.Schemas()
		schemas, skipped = append(schemas, s...), append(skipped, sk...)
	}
	if n == 0 {
		return nil, nil, fmt.Errorf("%s: no TMF annotations: %w", path, ErrNotSchema)
	}
	return schemas, skipped, nil
}
