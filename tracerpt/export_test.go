package tracerpt

import (
	"github.com/etwkit/etw/analysis"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
)

// AppendHead is appendHead, for the benchmarks of package tracerpt_test:
// the keys from "time" to the schema's names.
func (e *JSONEncoder) AppendHead(b []byte, ev *etl.Event, res *decode.Result, a *analysis.Annotation) []byte {
	return e.appendHead(b, ev, res, a)
}
