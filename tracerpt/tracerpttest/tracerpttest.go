// Package tracerpttest provides, for tests only, decoders cut down from
// [decode.New] to what a given reference output was made with. They hold
// no schemas of their own: whatever decode.New gets wrong, they get wrong
// too, so the goldens compared through them catch it.
package tracerpttest

import (
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/mof"
	"github.com/etwkit/etw/tdh"
)

// StockWindowsDecoder returns decode.New() keeping only the NT kernel
// logger's own classes (MSNT_SystemTrace): a Windows machine without the
// Windows Performance Toolkit has no MOF for the KernelTraceControl
// classes (SysConfig, ImageID, … that xperf and PerfView merge into
// traces), so tracerpt there shows their events unnamed.
func StockWindowsDecoder() *decode.Decoder {
	return Restrict(decode.New(), func(s *tdh.Event) bool { return s.ProviderName == mof.KernelProviderName })
}

// HeaderOnlyDecoder returns decode.New() keeping only the schemas of the
// EventTrace (log-file header) events, which every trace starts with: the
// sample goldens use it so that they do not change as the decoder learns
// other classes.
func HeaderOnlyDecoder() *decode.Decoder {
	return Restrict(decode.New(), func(s *tdh.Event) bool { return s.ProviderGUID == etl.EventTraceGUID })
}

// Restrict replaces d's registry with one holding the schemas of d's for
// which keep is true, with their origins, and returns d.
func Restrict(d *decode.Decoder, keep func(*tdh.Event) bool) *decode.Decoder {
	reg := tdh.NewRegistry()
	for _, c := range d.Registry.All() {
		if keep(c.Schema) {
			reg.AddFrom(c.Origin, c.Schema)
		}
	}
	d.Registry = reg
	return d
}
