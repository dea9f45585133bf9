package symtest

import (
	"bytes"
	"testing"
	"time"

	"github.com/etwkit/etw/analysis/analysistest"
	"github.com/etwkit/etw/catalog"
	"github.com/etwkit/etw/etl"
)

// AppTrace writes a trace whose image app.exe (at 0x400000) has the
// PDB identity app.pdb, guid, age, and three CPU samples with stacks: two
// in work (RVA 0x1010, 0x20 bytes in symtest.SynthPDB) called from
// helper (RVA 0x1040), one at an address no symbol names.
func AppTrace(t testing.TB, guid [16]byte, age uint32) []byte {
	t.Helper()
	return Trace(t, "app", guid, age, []uint64{0x1018, 0x1044}, []uint64{0x1012, 0x1044}, []uint64{0x5000})
}

// Trace writes a trace of process NAME.exe (pid 100) whose image
// NAME.exe, at 0x400000, has the PDB identity C:\build\NAME.pdb, guid, age;
// each stack (RVAs, innermost first) is a CPU sample's.
func Trace(t testing.TB, name string, guid [16]byte, age uint32, stacks ...[]uint64) []byte {
	t.Helper()
	const (
		base = 0x400000
		pid  = 100
		tid  = 200
		none = analysistest.None
	)
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	var buf bytes.Buffer
	w, err := etl.NewWriter(&buf, &etl.WriterOptions{Header: etl.LogfileHeader{
		StartTime: analysistest.FileTime(start), Is64: true, NumberOfProcessors: 1, LoggerName: "symbols"}})
	if err != nil {
		t.Fatal(err)
	}
	tw := &analysistest.Writer{Start: start, W: w}
	tw.Kernel(0, 0x03, 3, 3, pid, tid, analysistest.ProcessPayload(pid, 4, name+".exe", name+".exe"))
	tw.Kernel(0, 0x05, 3, 2, pid, tid, analysistest.ThreadPayload(pid, tid))
	p := (&analysistest.Payload{}).U64(base).U32(pid)
	p.B = append(p.B, guid[:]...) // the GUID as Windows lays it out, as the PDB does
	tw.Write(etl.Event{Header: etl.HeaderClassic64, ProviderID: catalog.ImageIDGUID,
		ProcessID: pid, ThreadID: tid, Timestamp: tw.Raw(1),
		Descriptor: etl.EventDescriptor{Opcode: 36, Version: 2}, UserData: p.U32(age).Str(`C:\build\` + name + ".pdb").B})
	tw.Kernel(1, 0x14, 3, 2, none, none, analysistest.ImagePayload(base, 0x10000, pid, `C:\app\`+name+".exe"))
	sample := func(us int, frames ...uint64) {
		tw.Kernel(us, 0x0F, 46, 2, none, none, (&analysistest.Payload{}).U64(frames[0]).U32(tid).U16(1).U16(0).B)
		s := (&analysistest.Payload{}).U64(uint64(tw.Raw(us))).U32(pid).U32(tid)
		for _, f := range frames {
			s.U64(f)
		}
		tw.Kernel(us, 0x18, 32, 2, none, none, s.B)
	}
	for i, st := range stacks {
		frames := make([]uint64, len(st))
		for j, rva := range st {
			frames[j] = base + rva
		}
		sample(10*(i+1), frames...)
	}
	if tw.Err != nil {
		t.Fatal(tw.Err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
