package etl_test

import (
	"fmt"
	"log"

	"github.com/etwkit/etw/etl"
)

// Open a file and read its events in time order.
func Example() {
	f, err := etl.Open("../testdata/etl/sample.etl")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	fmt.Println(f.Header.LoggerName, f.Header.Clock(), f.Header.NumberOfProcessors, "CPUs")

	r := etl.NewReader([]*etl.File{f}, nil)
	defer r.Close()
	for i := 0; i < 4 && r.Next(); i++ {
		ev := r.Event()
		fmt.Println(etl.FiletimeToTime(ev.Time).Format("15:04:05.0000000"), ev.Header, ev.Processor, ev.ProviderID)
	}
	// Output:
	// etwkit sample qpc 2 CPUs
	// 15:44:23.8609634 system64 0 68fdd900-4a3e-11d1-84f4-0000f80464e3
	// 15:44:23.8609634 system64 0 68fdd900-4a3e-11d1-84f4-0000f80464e3
	// 15:44:23.8610634 system64 0 3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c
	// 15:44:23.8611634 event64 0 3f4a7f2e-5c1d-4b8e-9a61-0c2d3e4f5a6b
}

// Count a file's records without decoding them.
func ExampleFile_Scan() {
	f, err := etl.Open("../testdata/etl/sample.etl")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	st := f.Scan()
	fmt.Println(st.Buffers, "buffers,", st.Events, "events,", len(st.Errors), "errors;", st.HeaderTypes[etl.HeaderEvent64], "event64")
	// Output: 4 buffers, 11 events, 0 errors; 4 event64
}
