package parquetout_test

import (
	"bytes"
	"context"
	"fmt"

	"github.com/parquet-go/parquet-go"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/parquetout"
	"github.com/etwkit/etw/pipeline"
)

// Write the events of a trace as a Parquet table and read two columns
// back.
func ExampleWriter() {
	f, err := etl.Open("../testdata/etl/sample.etl")
	if err != nil {
		panic(err)
	}
	defer f.Close()
	files := []*etl.File{f}

	var out bytes.Buffer
	enc := parquetout.NewEncoder(files, false)
	w := parquetout.NewWriter(&out, enc, nil)
	if _, err := pipeline.Run(context.Background(), &pipeline.Config[byte]{Files: files, Encoder: enc, Output: w}); err != nil {
		panic(err)
	}
	if err := w.Close(); err != nil {
		panic(err)
	}

	type row struct {
		Header    string  `parquet:"header"`
		EventName *string `parquet:"event_name,optional"`
	}
	rows, err := parquet.Read[row](bytes.NewReader(out.Bytes()), int64(out.Len()))
	if err != nil {
		panic(err)
	}
	fmt.Println(len(rows), "rows")
	for _, r := range rows {
		if r.EventName != nil && r.Header == "event64" {
			fmt.Println(r.Header, *r.EventName)
		}
	}
	// Output:
	// 11 rows
	// event64 Checkout
}
