package pdb_test

import (
	"bytes"
	"fmt"

	"github.com/etwkit/etw/internal/symtest"
	"github.com/etwkit/etw/pdb"
)

// Open a PDB and name the function that holds an address, with its
// source line. A PDB built by hand stands in for a real file here; with
// one on disk, use pdb.Open(path).
func Example() {
	data := symtest.SynthPDB(symtest.SynthGUID, 3)
	f, err := pdb.NewFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("identity:", f.GUID, "age", f.Age, "folder", f.ID())
	for _, rva := range []uint32{0x1018, 0x1044} {
		sym, ok, err := f.Lookup(rva)
		if err != nil || !ok {
			fmt.Println(rva, ok, err)
			continue
		}
		fmt.Printf("%#x: %s+%#x %s:%d\n", rva, sym.Name, sym.Offset, sym.File, sym.Line)
	}
	// Output:
	// identity: {12DC0A4F-BD7D-4F2A-A9BE-263BACAEB467} age 3 folder 12DC0A4FBD7D4F2AA9BE263BACAEB4673
	// 0x1018: work+0x8 c:\src\work.c:12
	// 0x1044: helper+0x4 :0
}
