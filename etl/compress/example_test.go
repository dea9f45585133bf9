package compress_test

import (
	"fmt"
	"log"

	"github.com/etwkit/etw/etl/compress"
)

// This decodes the Plain LZ77 example of [MS-XCA] section 3.1: the literals
// "abc" followed by one match of distance 3 and length 297.
func ExampleDecompress() {
	src := []byte{0xff, 0xff, 0xff, 0x1f, 'a', 'b', 'c', 0x17, 0x00, 0x0f, 0xff, 0x26, 0x01}
	dst := make([]byte, 300) // the expected uncompressed size
	n, err := compress.Decompress(compress.Xpress, dst, src)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(n, string(dst[:12]), string(dst[n-6:n]))

	// One byte too small a buffer is an error.
	_, err = compress.Decompress(compress.Xpress, dst[:299], src)
	fmt.Println(err)
	// Output:
	// 300 abcabcabcabc abcabc
	// xpress: match at input offset 7 of length 297 at output offset 3 overflows 299-byte output: decompressed data exceeds output buffer
}
