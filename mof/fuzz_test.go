package mof

import (
	"bytes"
	"testing"
)

// FuzzParse feeds arbitrary text to the parser and the compiler, and
// decodes the input bytes with every schema they yield: nothing may
// panic, and a successful parse must compile without panicking.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		sampleMOF,
		netLogonMOF,
		`[Guid("{6a6b6c6d-0001-0002-0003-000000000004}")] class E { }; [EventType{1,2}] class T : E { [WmiDataId(1)] uint32 N; [WmiDataId(2), WmiSizeIs("N")] string S[]; };`,
		`#pragma namespace("\\\\.\\root\\wmi")` + "\n" + `class A : B { [key] string X = "a"; uint32 M([in] uint32 a); };`,
		"[A(\"x\" \"y\"), B{1, -2, 0x3}, C('c') : amended ToSubclass] class Z {};",
		`instance of X as $Y { A = {1, 2}; };`,
		"\xff\xfe[\x00A\x00]\x00",
		"/* unterminated",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse(bytes.NewReader(data), "fuzz.mof")
		if err != nil {
			if _, ok := err.(*ParseError); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		evs, _ := file.Schemas()
		dec := Decoder{Lenient: true}
		for i, e := range evs {
			if i >= 32 {
				break
			}
			dec.Decode(e, data, 4)
			dec.Decode(e, data, 8)
		}
	})
}
