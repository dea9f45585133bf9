package wevt

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/etwkit/etw/manifest"
	"github.com/etwkit/etw/pe"
	"github.com/google/uuid"
)

// ErrNoTemplate is returned (wrapped) by [ReadPE] and [OpenPE] for a PE
// file without a WEVT_TEMPLATE resource.
var ErrNoTemplate = errors.New("wevt: no WEVT_TEMPLATE resource")

// ReadPE reads the binary manifest of a PE file (size bytes read through
// r): every WEVT_TEMPLATE resource, with messages from the file's
// RT_MESSAGETABLE resources (a damaged message table costs the texts and
// adds a warning). A provider found in more than one resource is taken
// from the first. A file without WEVT_TEMPLATE gives an error
// wrapping [ErrNoTemplate]; one that is no PE file an error wrapping
// [pe.ErrNotPE]. A [*FormatError] carries the file offset of the problem.
//
// Windows often keeps the message table in a separate .mui file
// (en-US\name.dll.mui); the manifest then has names but no messages (see
// [Parse]), and a warning says so. [Parse] with the .mui's
// [pe.File.MessageTable] fills them in.
func ReadPE(r io.ReaderAt, size int64) (*manifest.Manifest, error) {
	f, err := pe.NewFile(r, size)
	if err != nil {
		return nil, err
	}
	return read(f, nil)
}

// OpenPE reads the binary manifest of the named PE file (see [ReadPE]).
// When the file has no message table, the messages come from its .mui
// file where Windows keeps them: LANG/NAME.mui beside it (en-US first,
// then the other language folders in sorted order). The providers'
// ResourceFileName is the path, MessageFileName the file the messages
// came from.
func OpenPE(path string) (*manifest.Manifest, error) {
	f, err := pe.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var mui pe.MessageTable
	muiPath := path
	if has, err := f.HasResourceType(pe.TypeMessageTable); err == nil && !has {
		if mp, t := findMUI(path); t != nil {
			mui, muiPath = t, mp
		}
	}
	m, err := read(f, mui)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for _, p := range m.Providers {
		p.ResourceFileName, p.MessageFileName = path, muiPath
	}
	return m, nil
}

// findMUI looks for the .mui file of path and returns its message table.
func findMUI(path string) (string, pe.MessageTable) {
	dir, base := filepath.Split(path)
	candidates := []string{filepath.Join(dir, "en-US", base+".mui")}
	if entries, err := os.ReadDir(dir); err == nil {
		for _, e := range entries {
			if e.IsDir() && e.Name() != "en-US" {
				candidates = append(candidates, filepath.Join(dir, e.Name(), base+".mui"))
			}
		}
	}
	for _, c := range candidates {
		f, err := pe.Open(c)
		if err != nil {
			continue
		}
		t, err := f.MessageTable()
		f.Close()
		if err == nil && len(t) > 0 {
			return c, t
		}
	}
	return "", nil
}

func read(f *pe.File, mui pe.MessageTable) (*manifest.Manifest, error) {
	res, err := f.ResourcesOfType(pe.TypeWEVTTemplate)
	if err != nil {
		return nil, err
	}
	if len(res) == 0 {
		return nil, ErrNoTemplate
	}
	// A damaged message table costs the texts, not the manifest.
	mt, mtErr := f.MessageTable()
	if mtErr == nil && len(mt) == 0 && mui != nil {
		mt = mui
	}
	var out *manifest.Manifest
	seen := map[uuid.UUID]bool{}
	for _, rs := range res {
		b, err := f.ReadResource(rs)
		if err != nil {
			return nil, err
		}
		m, err := Parse(b, mt.Lookup)
		if err != nil {
			var fe *FormatError
			if errors.As(err, &fe) {
				if off, _, e := f.RVAToOffset(rs.DataRVA); e == nil {
					fe.FileOffset = off + fe.Offset
				}
			}
			return nil, fmt.Errorf("resource %s/%s/%s: %w", rs.Type, rs.Name, rs.Lang, err)
		}
		if out == nil {
			out = m
			for _, p := range m.Providers {
				seen[p.GUID] = true
			}
			continue
		}
		out.Warnings = append(out.Warnings, m.Warnings...)
		for _, p := range m.Providers {
			if !seen[p.GUID] {
				seen[p.GUID] = true
				out.Providers = append(out.Providers, p)
			}
		}
	}
	switch {
	case mtErr != nil:
		out.Warnings = append(out.Warnings, fmt.Sprintf("message table unreadable (%v): names only", mtErr))
	case len(mt) == 0:
		out.Warnings = append(out.Warnings, "the file has no message table (messages are probably in a .mui file): names only")
	}
	return out, nil
}
