package sympath_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/etwkit/etw/sympath"
)

// Parse a symbol path as _NT_SYMBOL_PATH spells it, and look a PDB up
// without the network (a trace's DbgID_RSDS event or a PE's CodeView
// entry gives the name, GUID and age).
func Example() {
	p, err := sympath.Parse(`/opt/symbols;srv*/var/cache/symbols*https://msdl.microsoft.com/download/symbols`)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, e := range p {
		switch e.Kind {
		case sympath.Folder:
			fmt.Println("folder", e.Dir)
		case sympath.Server:
			fmt.Println("server", e.URL, "cache", e.Caches[0], "http", e.IsHTTP())
		}
	}
	guid, age, _ := sympath.ParseID("12DC0A4FBD7D4F2AA9BE263BACAEB4675")
	id := sympath.Identity{Name: `C:\build\CppCon.pdb`, GUID: guid, Age: age}
	fmt.Println("store folder:", id.ID())
	l := &sympath.Locator{Path: p, Offline: true}
	if _, err := l.Find(context.Background(), id); errors.Is(err, sympath.ErrNotFound) {
		fmt.Println("not found offline")
	}
	// Output:
	// folder /opt/symbols
	// server https://msdl.microsoft.com/download/symbols cache /var/cache/symbols http true
	// store folder: 12DC0A4FBD7D4F2AA9BE263BACAEB4675
	// not found offline
}
