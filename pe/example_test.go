package pe_test

import (
	"bytes"
	"fmt"
	"log"

	"github.com/etwkit/etw/pe"
	"github.com/etwkit/etw/pe/petest"
)

// Example lists the resources of a PE file built in memory and reads its
// message table.
func Example() {
	b := petest.Build(petest.Options{PE32Plus: true}, []petest.Resource{
		{Type: pe.WEVTTemplate, Name: "#1", Lang: 1033, Data: []byte("CRIM…")},
		{Type: "#11", Name: "#1", Lang: 1033, Data: petest.MessageTable([]petest.Message{
			{ID: 0x90000001, Text: "My provider\r\n", Encoding: 1},
			{ID: 0xB0000001, Text: "Started %1\r\n", Encoding: 1},
		})},
	})
	f, err := pe.NewFile(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		log.Fatal(err)
	}
	res, err := f.Resources()
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range res {
		fmt.Printf("%s/%s/%s: %d bytes\n", r.Type, r.Name, r.Lang, r.Size)
	}
	mt, err := f.MessageTable()
	if err != nil {
		log.Fatal(err)
	}
	s, _ := mt.Lookup(0xB0000001)
	fmt.Printf("PE32+ %v, message 0xB0000001: %q\n", f.Is64(), s)
	// Output:
	// WEVT_TEMPLATE/#1/#1033: 7 bytes
	// #11/#1/#1033: 92 bytes
	// PE32+ true, message 0xB0000001: "Started %1\r\n"
}

// ExampleHasResourceType tells binaries with a compiled event manifest
// from the others, reading a few hundred bytes of each.
func ExampleHasResourceType() {
	with := petest.Build(petest.Options{}, []petest.Resource{{Type: pe.WEVTTemplate, Name: "#1", Data: []byte("CRIM")}})
	without := petest.Build(petest.Options{}, nil)
	for _, b := range [][]byte{with, without, []byte("not a PE file")} {
		ok, err := pe.HasResourceType(bytes.NewReader(b), int64(len(b)), "WEVT_TEMPLATE")
		fmt.Println(ok, err)
	}
	// Output:
	// true <nil>
	// false <nil>
	// false pe: offset 0x0: no MS-DOS header: not a PE file
}
