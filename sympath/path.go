// Package sympath finds PDB files the way Windows' debuggers do, through a
// symbol path (_NT_SYMBOL_PATH syntax): local folders, symbol stores and
// HTTP(S) symbol servers in the SymSrv layout, downloading into a local
// cache.
//
// # Symbol path
//
// A path is elements separated by ';' (empty elements are skipped):
//
//   - DIR: a folder, searched flat (DIR/name.pdb) and as a symbol store
//     (DIR/name.pdb/<id>/name.pdb).
//   - srv*URL: a symbol server, downloaded into the default cache
//     ([DefaultCache]).
//   - srv*CACHE*URL (and srv*C1*C2*URL): downloaded into the first cache;
//     every cache is searched, in order, before the server. When the last
//     part is a folder, not an http(s) URL, it is searched as a store.
//     "symsrv*symsrv.dll*…" is the same as "srv*…".
//   - cache*DIR (or "cache*" for the default cache): a store searched in
//     its place, which is also the download cache of the srv*URL elements
//     after it that name no cache of their own.
//
// The <id> of a store folder is the PDB's GUID as 32 uppercase hex digits
// (Data1, Data2 and Data3 as numbers, then the 8 bytes: [pdb.GUID.Hex])
// followed by its age in hex without leading zeros.
//
// # Identity
//
// A file found anywhere is opened and used only when its GUID and age
// (the PDB info stream's) equal the ones asked for. Any other PDB of that
// name is a mismatch: [Locator] counts it and names it
// ([Locator.Mismatches]), never uses it, and deletes a mismatched
// download from the cache.
package sympath

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Kind is the kind of a symbol path element.
type Kind int

// Element kinds.
const (
	Folder Kind = iota // a local folder: flat or a store
	Server             // srv*…: caches, then a server (or a store folder)
	Cache              // cache*DIR
)

// Element is one element of a symbol path.
type Element struct {
	Kind Kind
	// Dir is the folder of a Folder or Cache element.
	Dir string
	// Caches are the local stores of a Server element, in order; the
	// first receives downloads. Empty: the default cache, or the Dir of
	// a Cache element before it.
	Caches []string
	// URL is the server of a Server element: an http(s) URL, or a folder
	// searched as a store.
	URL string
}

// IsHTTP reports whether a Server element's URL is an HTTP(S) server.
func (e Element) IsHTTP() bool {
	u := strings.ToLower(e.URL)
	return strings.HasPrefix(u, "http://") || strings.HasPrefix(u, "https://")
}

// String spells the element as a symbol path does.
func (e Element) String() string {
	switch e.Kind {
	case Server:
		parts := append([]string{"srv"}, e.Caches...)
		return strings.Join(append(parts, e.URL), "*")
	case Cache:
		return "cache*" + e.Dir
	}
	return e.Dir
}

// Path is a parsed symbol path.
type Path []Element

// String spells the path with ';' between elements.
func (p Path) String() string {
	s := make([]string, len(p))
	for i, e := range p {
		s[i] = e.String()
	}
	return strings.Join(s, ";")
}

// Parse reads a symbol path. Cache folders left empty ("srv**URL",
// "cache*") are [DefaultCache].
func Parse(s string) (Path, error) {
	var p Path
	for _, raw := range strings.Split(s, ";") {
		el := strings.TrimSpace(raw)
		if el == "" {
			continue
		}
		parts := strings.Split(el, "*")
		head := strings.ToLower(parts[0])
		switch {
		case len(parts) == 1:
			p = append(p, Element{Kind: Folder, Dir: el})
		case head == "srv" || head == "symsrv":
			rest := parts[1:]
			if head == "symsrv" {
				if len(rest) < 2 {
					return nil, fmt.Errorf("sympath: %q: symsrv*DLL*… needs a store after the DLL", el)
				}
				rest = rest[1:] // the DLL name
			}
			url := strings.TrimSpace(rest[len(rest)-1])
			if url == "" {
				return nil, fmt.Errorf("sympath: %q: no server after srv*", el)
			}
			e := Element{Kind: Server, URL: url}
			for _, c := range rest[:len(rest)-1] {
				c = strings.TrimSpace(c)
				if c == "" {
					c = DefaultCache()
				}
				e.Caches = append(e.Caches, c)
			}
			p = append(p, e)
		case head == "cache":
			if len(parts) > 2 {
				return nil, fmt.Errorf("sympath: %q: cache* takes one folder", el)
			}
			dir := strings.TrimSpace(parts[1])
			if dir == "" {
				dir = DefaultCache()
			}
			p = append(p, Element{Kind: Cache, Dir: dir})
		default:
			return nil, fmt.Errorf("sympath: %q: unknown element (want a folder, srv*…, symsrv*… or cache*…)", el)
		}
	}
	return p, nil
}

// DefaultCache is the per-user download cache: the "etwkit/symbols"
// folder of [os.UserCacheDir] ($XDG_CACHE_HOME or ~/.cache on Linux,
// ~/Library/Caches on macOS, %LocalAppData% on Windows), or of the
// temporary folder when there is no user cache folder.
func DefaultCache() string {
	dir, err := os.UserCacheDir()
	if err != nil || dir == "" {
		dir = os.TempDir()
	}
	return filepath.Join(dir, "etwkit", "symbols")
}
