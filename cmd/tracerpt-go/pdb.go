package main

import (
	"encoding/json"
	"fmt"
	"io"
	"path"
	"sort"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/etwkit/etw/pdb"
	"github.com/etwkit/etw/sympath"
)

// pdbDump is the JSON form of "pdb --json" (docs/cli.md).
type pdbDump struct {
	File      string        `json:"file"`
	GUID      string        `json:"guid"`
	Age       uint32        `json:"age"`
	ID        string        `json:"id"`
	DBIAge    uint32        `json:"dbi_age"`
	Machine   uint16        `json:"machine"`
	Functions []pdbFunction `json:"functions"`
	Publics   []pdbPublic   `json:"publics"`
}

type pdbFunction struct {
	Name    string  `json:"name"`
	RVA     *uint32 `json:"rva"` // null: the section is not in the PDB's headers
	Size    uint32  `json:"size"`
	Section uint16  `json:"section"`
	Offset  uint32  `json:"offset"`
	Kind    string  `json:"kind"`
	File    string  `json:"file,omitempty"`
	Line    uint32  `json:"line,omitempty"`
}

type pdbPublic struct {
	Name        string  `json:"name"`
	RVA         *uint32 `json:"rva"`
	Section     uint16  `json:"section"`
	Offset      uint32  `json:"offset"`
	Function    bool    `json:"function"`
	Undecorated string  `json:"undecorated,omitempty"`
}

func newPDBCmd() *cobra.Command {
	var (
		asJSON bool
		id     string
		syms   symbolOptions
	)
	cmd := &cobra.Command{
		Use:   "pdb FILE.pdb [--json] | pdb NAME.pdb --id GUIDAGE [--symbols PATH] [--offline]",
		Short: "Show what a PDB holds: identity, functions and publics",
		Long: `pdb reads a Microsoft PDB 7.0 file and prints its identity (GUID, age, and
the SymSrv id: the GUID's 32 hex digits then the age in hex), then its
functions (RVA, size, name, first source line) and its publics (RVA, name, and
the undecorated name), sorted by RVA. --json prints one object
{"guid", "age", "functions": [{"name", "rva", "size", …}], "publics": [{"name", "rva", …}]}.

With --id, the argument is a PDB name and the file is found through the
symbol path (--symbols, else _NT_SYMBOL_PATH): folders, symbol stores and
srv*CACHE*URL servers, downloading into the cache unless --offline. Only a PDB
of that GUID and age is used; others found are named.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageError(fmt.Errorf("pdb: want one PDB file, got %d arguments", len(args)))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			path := args[0]
			if id != "" {
				found, err := findPDB(cmd, path, id, &syms)
				if err != nil {
					return err
				}
				path = found
			}
			d, err := readPDB(path)
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(w)
				enc.SetEscapeHTML(false)
				return enc.Encode(d)
			}
			return printPDB(w, d)
		},
	}
	setFlagErrors(cmd)
	cmd.Flags().BoolVar(&asJSON, "json", false, "write one JSON object")
	cmd.Flags().StringVar(&id, "id", "", "find the PDB of this identity (GUID hex digits then age in hex, as a store folder names it) through the symbol path")
	cmd.Flags().StringVar(&syms.path, "symbols", "", "symbol path for --id (default: $_NT_SYMBOL_PATH)")
	cmd.Flags().BoolVar(&syms.offline, "offline", false, "with --id: never use the network")
	return cmd
}

// findPDB looks the PDB of an identity up through the symbol path.
func findPDB(cmd *cobra.Command, name, id string, syms *symbolOptions) (string, error) {
	guid, age, err := sympath.ParseID(id)
	if err != nil {
		return "", usageError(fmt.Errorf("pdb: --id: %w", err))
	}
	l, err := syms.locator(cmd)
	if err != nil {
		return "", fmt.Errorf("pdb: %w", err)
	}
	if l == nil {
		return "", usageError(fmt.Errorf("pdb: --id needs a symbol path: --symbols PATH or _NT_SYMBOL_PATH"))
	}
	found, err := l.Find(commandContext(cmd), sympath.Identity{Name: name, GUID: guid, Age: age})
	for _, m := range l.Mismatches() {
		fmt.Fprintf(cmd.ErrOrStderr(), "tracerpt-go: pdb: not used: %s\n", m)
	}
	return found, err
}

// readPDB gathers what "pdb" prints.
func readPDB(path string) (*pdbDump, error) {
	f, err := pdb.Open(path)
	if err != nil {
		return nil, withCode(exitInput, err) // missing, not a regular file, not a PDB
	}
	defer f.Close()
	d := &pdbDump{File: path, GUID: f.GUID.String(), Age: f.Age, ID: f.ID(), DBIAge: f.DBIAge, Machine: f.Machine,
		Functions: []pdbFunction{}, Publics: []pdbPublic{}}
	fns, err := f.Functions()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for _, fn := range fns {
		e := pdbFunction{Name: fn.Name, Size: fn.Size, Section: fn.Section, Offset: fn.Offset, Kind: fn.Kind.String()}
		if fn.HasRVA {
			rva := fn.RVA
			e.RVA = &rva
			file, line, ok, err := f.LineAt(rva)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
			if ok {
				e.File, e.Line = file, line
			}
		}
		d.Functions = append(d.Functions, e)
	}
	pubs, err := f.Publics()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for _, p := range pubs {
		e := pdbPublic{Name: p.Name, Section: p.Section, Offset: p.Offset, Function: p.IsFunction()}
		if p.HasRVA {
			rva := p.RVA
			e.RVA = &rva
		}
		if u, ok := pdb.Undecorate(p.Name); ok {
			e.Undecorated = u
		}
		d.Publics = append(d.Publics, e)
	}
	key := func(rva *uint32, sec uint16, off uint32) uint64 {
		if rva != nil {
			return uint64(*rva)
		}
		return 1<<48 | uint64(sec)<<32 | uint64(off)
	}
	sort.SliceStable(d.Functions, func(i, j int) bool {
		a, b := d.Functions[i], d.Functions[j]
		if ka, kb := key(a.RVA, a.Section, a.Offset), key(b.RVA, b.Section, b.Offset); ka != kb {
			return ka < kb
		}
		return a.Name < b.Name
	})
	sort.SliceStable(d.Publics, func(i, j int) bool {
		a, b := d.Publics[i], d.Publics[j]
		if ka, kb := key(a.RVA, a.Section, a.Offset), key(b.RVA, b.Section, b.Offset); ka != kb {
			return ka < kb
		}
		return a.Name < b.Name
	})
	return d, nil
}

// rvaText spells an RVA, or the section:offset address when the RVA is
// unknown.
func rvaText(rva *uint32, sec uint16, off uint32) string {
	if rva == nil {
		return fmt.Sprintf("%04X:%08X", sec, off)
	}
	return fmt.Sprintf("0x%08X", *rva)
}

func printPDB(w io.Writer, d *pdbDump) error {
	bw := &errWriter{w: w}
	bw.printf("PDB:      %s\n", d.File)
	bw.printf("GUID:     %s\n", d.GUID)
	bw.printf("Age:      %d (DBI age %d)\n", d.Age, d.DBIAge)
	bw.printf("ID:       %s\n", d.ID)
	bw.printf("Machine:  %#x\n", d.Machine)
	bw.printf("\nFunctions: %d\n", len(d.Functions))
	for _, fn := range d.Functions {
		bw.printf("  %s %6d  %s", rvaText(fn.RVA, fn.Section, fn.Offset), fn.Size, fn.Name)
		if fn.Line != 0 {
			bw.printf("  %s:%d", fn.File, fn.Line)
		}
		bw.printf("\n")
	}
	bw.printf("\nPublics: %d\n", len(d.Publics))
	for _, p := range d.Publics {
		bw.printf("  %s  %s", rvaText(p.RVA, p.Section, p.Offset), p.Name)
		if p.Undecorated != "" {
			bw.printf("  %s", p.Undecorated)
		}
		bw.printf("\n")
	}
	return bw.err
}

// errWriter keeps the first write error.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}

// downloadProgress draws a download's progress bar on w (a terminal).
func downloadProgress(w io.Writer) func(url string, done, total int64) {
	var (
		mu   sync.Mutex
		bar  *progressbar.ProgressBar
		last string
	)
	return func(url string, done, total int64) {
		mu.Lock()
		defer mu.Unlock()
		if bar == nil || url != last {
			last = url
			bar = progressbar.NewOptions64(total,
				progressbar.OptionSetWriter(w),
				progressbar.OptionSetDescription("downloading "+path.Base(url)),
				progressbar.OptionShowBytes(true),
				progressbar.OptionSetWidth(30),
				progressbar.OptionThrottle(100*time.Millisecond),
				progressbar.OptionClearOnFinish(),
			)
		}
		bar.Set64(done)
		if total > 0 && done >= total {
			bar.Finish()
		}
	}
}
