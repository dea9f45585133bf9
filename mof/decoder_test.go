package mof

import (
	"encoding/binary"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/tdh"
	"github.com/google/uuid"
)

var (
	processGUID   = uuid.MustParse("3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c")
	stackWalkGUID = uuid.MustParse("def2fe46-7bd6-4b80-bd94-f57fe20d0ce3")
)

func kernelSchema(t testing.TB, guid uuid.UUID, typ uint8, version uint8) *tdh.Event {
	t.Helper()
	s := builtin().byKey[schemaKey{guid, typ, version}]
	if s == nil {
		t.Fatalf("no built-in schema %v/%d/v%d", guid, typ, version)
	}
	return s
}

func le16(b []byte, v uint16) []byte { return binary.LittleEndian.AppendUint16(b, v) }
func le32(b []byte, v uint32) []byte { return binary.LittleEndian.AppendUint32(b, v) }
func le64(b []byte, v uint64) []byte { return binary.LittleEndian.AppendUint64(b, v) }

func wstr(b []byte, s string) []byte {
	for _, u := range utf16.Encode([]rune(s)) {
		b = le16(b, u)
	}
	return le16(b, 0)
}

func ptr(b []byte, v uint64, size int) []byte {
	if size == 4 {
		return le32(b, uint32(v))
	}
	return le64(b, v)
}

// sid18 is S-1-5-18.
var sid18 = []byte{1, 1, 0, 0, 0, 0, 0, 5, 18, 0, 0, 0}

// processStartV4 builds a Process Start v4 payload as the kernel logs it.
func processStartV4(ptrSize int, tokenUser uint64) []byte {
	var p []byte
	p = ptr(p, 0xFFFFE0001234ABCD, ptrSize) // UniqueProcessKey
	p = le32(p, 1776)                       // ProcessId
	p = le32(p, 988)                        // ParentId
	p = le32(p, 1)                          // SessionId
	p = le32(p, 259)                        // ExitStatus
	p = ptr(p, 0x1AB000, ptrSize)           // DirectoryTableBase
	p = le32(p, 0)                          // Flags
	p = ptr(p, tokenUser, ptrSize)          // TOKEN_USER.User.Sid
	p = ptr(p, 0, ptrSize)                  // TOKEN_USER.User.Attributes (padded)
	p = append(p, sid18...)
	p = append(p, "notepad.exe\x00"...)
	p = wstr(p, `"C:\Windows\system32\notepad.exe" `)
	p = wstr(p, "")
	return wstr(p, "")
}

func texts(d *tdh.Decoded) string {
	var out []string
	for _, kv := range renderPrintable(d) {
		out = append(out, kv[0]+"="+kv[1])
	}
	return strings.Join(out, "; ")
}

func TestDecoderProcess(t *testing.T) {
	s := kernelSchema(t, processGUID, 1, 4)
	var dec Decoder
	for _, size := range []int{4, 8} {
		d, err := dec.Decode(s, processStartV4(size, 0xFFFF8000DEAD0000), size)
		if err != nil || len(d.Extra) != 0 {
			t.Fatalf("ptr %d: %v %d", size, err, len(d.Extra))
		}
		want := `UniqueProcessKey=0xFFFFE0001234ABCD; ProcessId=0x6F0; ParentId=0x3DC; SessionId=       1; ExitStatus=259; DirectoryTableBase=0x1AB000; Flags=       0; UserSID=S-1-5-18; ImageFileName=notepad.exe; CommandLine="C:\Windows\system32\notepad.exe" ; PackageFullName=; ApplicationId=`
		if size == 4 {
			want = strings.Replace(want, "0xFFFFE0001234ABCD", "0x1234ABCD", 1)
		}
		if got := texts(d); got != want {
			t.Errorf("ptr %d:\n got %s\nwant %s", size, got, want)
		}
	}
}

func TestDecoderLenient(t *testing.T) {
	s := kernelSchema(t, processGUID, 1, 4)
	payload := processStartV4(8, 0) // TOKEN_USER zeroed, SID present (syzygy)
	var strict Decoder
	if d, err := strict.Decode(s, payload, 8); err == nil && len(d.Extra) == 0 {
		t.Fatal("a null TOKEN_USER pointer followed by a SID decoded without Lenient")
	}
	lenient := Decoder{Lenient: true}
	d, err := lenient.Decode(s, payload, 8)
	if err != nil || len(d.Extra) != 0 {
		t.Fatal(err, d.Extra)
	}
	if got := texts(d); !strings.Contains(got, "UserSID=S-1-5-18; ImageFileName=notepad.exe") || strings.Contains(got, "TokenUser") {
		t.Errorf("lenient: %s", got)
	}
	// The other pointer size: a 64-bit payload given as 32-bit.
	d, err = lenient.Decode(s, processStartV4(8, 0xFFFF8000DEAD0000), 4)
	if err != nil || len(d.Extra) != 0 || d.PointerSize != 8 {
		t.Fatalf("pointer size repair: %v, %d left, size %d", err, len(d.Extra), d.PointerSize)
	}
	// And both at once.
	d, err = lenient.Decode(s, processStartV4(8, 0), 4)
	if err != nil || len(d.Extra) != 0 || d.PointerSize != 8 {
		t.Fatalf("both repairs: %v, %d left", err, len(d.Extra))
	}
}

func TestDecoderStacks(t *testing.T) {
	var dec Decoder
	stack := kernelSchema(t, stackWalkGUID, 32, 2)
	for _, frames := range []int{0, 1, 5, 32, 40, 192} {
		p := le64(nil, 123456789)
		p = le32(p, 4)
		p = le32(p, 8)
		for i := 0; i < frames; i++ {
			p = le64(p, 0xFFFFF80000000000+uint64(i))
		}
		d, err := dec.Decode(stack, p, 8)
		if err != nil || len(d.Extra) != 0 || len(d.Top()) != 3+frames {
			t.Errorf("%d frames: %v, %d left, %d properties", frames, err, len(d.Extra), len(d.Top()))
			continue
		}
		if frames > 0 {
			last := len(d.Top()) - 1
			if name := d.Schema.Properties[last].Name; name != "Stack"+strconv.Itoa(frames) {
				t.Errorf("%d frames: last property %s", frames, name)
			}
		}
	}
	key := kernelSchema(t, stackWalkGUID, 36, 2)
	for _, size := range []int{4, 8} {
		p := ptr(nil, 0x1234, size)
		for i := 0; i < 7; i++ {
			p = ptr(p, uint64(0x1000+i), size)
		}
		d, err := dec.Decode(key, p, size)
		if err != nil || len(d.Extra) != 0 || d.Values[1].N != 7 {
			t.Fatalf("ptr %d: %v, %d left, %d frames", size, err, len(d.Extra), d.Values[1].N)
		}
		if got := string(tdh.AppendText(nil, d, &d.Values[1], nil)); got != "[0x1000, 0x1001, 0x1002, 0x1003, 0x1004, 0x1005, 0x1006]" {
			t.Errorf("frames %s", got)
		}
	}
}

func TestDecoderAlternates(t *testing.T) {
	s := kernelSchema(t, etl.EventTraceGUID, 80, 2)
	if len(Alternates(s)) != 1 || Alternates(nil) != nil || Alternates(&tdh.Event{}) != nil {
		t.Fatal("alternates")
	}
	p := le16(nil, 2)
	p = le16(p, 0)
	p = le32(p, 1)
	p = le64(p, 0)
	p = wstr(p, "partition-a")
	p = wstr(p, "root")
	var dec Decoder
	d, err := dec.Decode(s, p, 8)
	if err != nil || len(d.Extra) != 0 || d.Schema.OpcodeName != "PartitionInfoExtensionV2" {
		t.Fatalf("%v %d %s", err, len(d.Extra), d.Schema.OpcodeName)
	}
	if got := texts(d); got != "EventVersion=2; Reserved=0; PartitionType=       1; QpcOffsetFromRoot=0; PartitionId=partition-a; ParentId=root" {
		t.Errorf("%s", got)
	}
	// A payload no layout fits reports the primary layout's error.
	d, err = dec.Decode(s, p[:10], 8)
	if err == nil || d.Schema != s {
		t.Errorf("short payload: %v, schema %s", err, d.Schema.OpcodeName)
	}
}

func TestDecoderThreadV3(t *testing.T) {
	s := kernelSchema(t, uuid.MustParse("3d6fa8d1-fe05-11d0-9dda-00c04fd7ba7c"), 3, 3)
	base := make([]byte, 72) // Windows 8: no name
	var dec tdh.Decoder
	for _, p := range [][]byte{base, wstr(append([]byte(nil), base...), ""), wstr(append([]byte(nil), base...), "worker")} {
		d, err := dec.Decode(s, p, 8)
		if err != nil || len(d.Extra) != 0 {
			t.Fatalf("%d bytes: %v", len(p), err)
		}
		name := string(tdh.AppendText(nil, d, &d.Values[len(d.Values)-1], nil))
		if want := map[int]string{72: "", 74: "", 86: "worker"}[len(p)]; name != want {
			t.Errorf("%d bytes: ThreadName %q, want %q", len(p), name, want)
		}
	}
}

// raceEnabled is set when the race detector is on (race_test.go), as in
// package session.
var raceEnabled bool

func TestDecoderAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes allocations")
	}
	var dec Decoder
	proc := kernelSchema(t, processGUID, 1, 4)
	pp := processStartV4(8, 0xFFFF8000DEAD0000)
	stack := kernelSchema(t, stackWalkGUID, 32, 2)
	sp := le64(le32(le32(le64(nil, 1), 2), 3), 0xFFFFF80000001000)
	key := kernelSchema(t, stackWalkGUID, 35, 2)
	kp := le64(le64(le64(nil, 7), 8), 9)
	for name, c := range map[string]struct {
		s *tdh.Event
		p []byte
	}{"process": {proc, pp}, "stack": {stack, sp}, "key": {key, kp}} {
		dec.Decode(c.s, c.p, 8)
		if n := testing.AllocsPerRun(100, func() { dec.Decode(c.s, c.p, 8) }); n != 0 {
			t.Errorf("%s: %.1f allocations per decode", name, n)
		}
	}
}
