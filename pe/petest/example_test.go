package petest_test

import (
	"encoding/binary"
	"fmt"

	"github.com/etwkit/etw/pe/petest"
)

// ExampleBuild builds a 64-bit PE file with one named resource and shows
// where the resource tree lands.
func ExampleBuild() {
	b := petest.Build(petest.Options{PE32Plus: true}, []petest.Resource{
		{Type: "WEVT_TEMPLATE", Name: "#1", Lang: 1033, Data: []byte("CRIM")},
	})
	root := b[petest.RsrcOffset:]
	fmt.Printf("%s, PE32+ magic %#x, %d bytes\n", b[:2], binary.LittleEndian.Uint16(b[0x58:]), len(b))
	fmt.Printf("root directory: %d named, %d id entries\n", binary.LittleEndian.Uint16(root[12:]), binary.LittleEndian.Uint16(root[14:]))
	// Output:
	// MZ, PE32+ magic 0x20b, 1536 bytes
	// root directory: 1 named, 0 id entries
}

// ExampleMessageTable lays out two runs of ids as two blocks.
func ExampleMessageTable() {
	b := petest.MessageTable([]petest.Message{
		{ID: 1, Text: "One\r\n", Encoding: 1},
		{ID: 2, Text: "Two\r\n", Encoding: 1},
		{ID: 10, Text: "Ten\r\n", Encoding: 0},
	})
	fmt.Println("blocks:", binary.LittleEndian.Uint32(b))
	// Output:
	// blocks: 2
}
