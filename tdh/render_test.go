package tdh

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"
)

// prop returns a scalar property with no length or count references.
func rProp(name string, in InType, out OutType) Property {
	return Property{Name: name, InType: in, OutType: out, LengthIndex: -1, CountIndex: -1}
}

func rU16(v uint16) []byte  { return binary.LittleEndian.AppendUint16(nil, v) }
func rU32(v uint32) []byte  { return binary.LittleEndian.AppendUint32(nil, v) }
func rU64(v uint64) []byte  { return binary.LittleEndian.AppendUint64(nil, v) }
func rF32(v float32) []byte { return rU32(math.Float32bits(v)) }
func rF64(v float64) []byte { return rU64(math.Float64bits(v)) }

func rCat(parts ...[]byte) []byte {
	var b []byte
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}

// utf16z encodes s as NUL-terminated UTF-16LE.
func rUtf16z(s string) []byte { return append(rUtf16le(s), 0, 0) }

func rUtf16le(s string) []byte {
	var b []byte
	for _, c := range utf16.Encode([]rune(s)) {
		b = binary.LittleEndian.AppendUint16(b, c)
	}
	return b
}

// units encodes raw UTF-16 code units (to build unpaired surrogates).
func rUnits(us ...uint16) []byte {
	var b []byte
	for _, u := range us {
		b = binary.LittleEndian.AppendUint16(b, u)
	}
	return b
}

// rGUIDBytes is {00112233-4455-6677-8899-aabbccddeeff} in Windows layout.
var rGUIDBytes = []byte{0x33, 0x22, 0x11, 0x00, 0x55, 0x44, 0x77, 0x66, 0x88, 0x99, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF}

// sid builds a binary SID.
func rSid(rev byte, auth uint64, subs ...uint32) []byte {
	b := []byte{rev, byte(len(subs))}
	for i := 5; i >= 0; i-- {
		b = append(b, byte(auth>>(8*i)))
	}
	for _, s := range subs {
		b = binary.LittleEndian.AppendUint32(b, s)
	}
	return b
}

// systime builds a SYSTEMTIME.
func rSystime(f ...uint16) []byte {
	var b []byte
	for _, v := range f {
		b = binary.LittleEndian.AppendUint16(b, v)
	}
	return b
}

func rWithLen(p Property, n uint16) Property { p.Length = n; return p }

func rWithMap(p Property, kind MapKind, entries ...MapEntry) Property {
	m := &Map{Name: "m", Kind: kind, Entries: entries}
	m.Sort()
	p.Map = m
	return p
}

type renderCase struct {
	name  string
	src   Source
	ptr   int
	props []Property
	data  []byte
	text  string // AppendText of the first top-level value
	json  string // AppendJSON of it ("" = don't check)
}

func (c *renderCase) run(t *testing.T) {
	t.Helper()
	e := &Event{Source: c.src, Properties: c.props}
	ptr := c.ptr
	if ptr == 0 {
		ptr = 8
	}
	var dec Decoder
	d, err := dec.Decode(e, c.data, ptr)
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	v := &d.Values[0]
	if got := string(AppendText(nil, d, v, nil)); got != c.text {
		t.Errorf("text = %q, want %q", got, c.text)
	}
	js := AppendJSON(nil, d, v)
	if !json.Valid(js) {
		t.Errorf("JSON %q is not valid", js)
	}
	if c.json != "" && string(js) != c.json {
		t.Errorf("JSON = %s, want %s", js, c.json)
	}
}

func rOne(p Property) []Property { return []Property{p} }

func TestRenderScalars(t *testing.T) {
	cases := []renderCase{
		// integers
		{name: "Int8", props: rOne(rProp("v", InTypeInt8, 0)), data: []byte{0xFB}, text: "-5", json: "-5"},
		{name: "UInt8", props: rOne(rProp("v", InTypeUInt8, 0)), data: []byte{250}, text: "250", json: "250"},
		{name: "Int16", props: rOne(rProp("v", InTypeInt16, 0)), data: rU16(0xFFFE), text: "-2", json: "-2"},
		{name: "UInt16", props: rOne(rProp("v", InTypeUInt16, 0)), data: rU16(65535), text: "65535", json: "65535"},
		{name: "Int32", props: rOne(rProp("v", InTypeInt32, 0)), data: rU32(0xFFFFFFFF), text: "-1", json: "-1"},
		{name: "UInt32", props: rOne(rProp("v", InTypeUInt32, 0)), data: rU32(4000000000), text: "4000000000", json: "4000000000"},
		{name: "Int64 min", props: rOne(rProp("v", InTypeInt64, 0)), data: rU64(1 << 63), text: "-9223372036854775808", json: `"-9223372036854775808"`},
		{name: "Int64 -2^53", props: rOne(rProp("v", InTypeInt64, 0)), data: rU64(1<<64 - 1<<53), text: "-9007199254740992", json: "-9007199254740992"},
		{name: "UInt64 2^53", props: rOne(rProp("v", InTypeUInt64, 0)), data: rU64(1 << 53), text: "9007199254740992", json: "9007199254740992"},
		{name: "UInt64 2^53+1", props: rOne(rProp("v", InTypeUInt64, 0)), data: rU64(1<<53 + 1), text: "9007199254740993", json: `"9007199254740993"`},
		{name: "UInt8 char", props: rOne(rProp("v", InTypeUInt8, OutTypeString)), data: []byte{'A'}, text: "A", json: `"A"`},
		{name: "Int8 char cp1252", props: rOne(rProp("v", InTypeInt8, OutTypeString)), data: []byte{0xE9}, text: "é", json: `"é"`},
		{name: "UInt8 char euro", props: rOne(rProp("v", InTypeUInt8, OutTypeString)), data: []byte{0x80}, text: "€"},
		{name: "UInt8 char NUL", props: rOne(rProp("v", InTypeUInt8, OutTypeString)), data: []byte{0}, text: "", json: `""`},
		{name: "UInt16 char", props: rOne(rProp("v", InTypeUInt16, OutTypeString)), data: rU16(0x263A), text: "☺", json: `"☺"`},
		{name: "UInt16 char surrogate", props: rOne(rProp("v", InTypeUInt16, OutTypeString)), data: rU16(0xD800), text: "\uFFFD"},
		{name: "UInt32 String falls back", props: rOne(rProp("v", InTypeUInt32, OutTypeString)), data: rU32(65), text: "65", json: "65"},
		{name: "UInt8 bool true", props: rOne(rProp("v", InTypeUInt8, OutTypeBoolean)), data: []byte{2}, text: "true", json: "true"},
		{name: "UInt8 bool false", props: rOne(rProp("v", InTypeUInt8, OutTypeBoolean)), data: []byte{0}, text: "false", json: "false"},
		{name: "Boolean 1", props: rOne(rProp("v", InTypeBoolean, 0)), data: rU32(1), text: "true", json: "true"},
		{name: "Boolean 0x100", props: rOne(rProp("v", InTypeBoolean, 0)), data: rU32(0x100), text: "true", json: "true"},
		{name: "Boolean 0", props: rOne(rProp("v", InTypeBoolean, 0)), data: rU32(0), text: "false", json: "false"},
		{name: "HexInt8", props: rOne(rProp("v", InTypeUInt8, OutTypeHexInt8)), data: []byte{0xAB}, text: "0xAB", json: `"0xAB"`},
		{name: "HexInt16", props: rOne(rProp("v", InTypeUInt16, OutTypeHexInt16)), data: rU16(0x1F), text: "0x1F", json: `"0x1F"`},
		{name: "HexInt32 out", props: rOne(rProp("v", InTypeUInt32, OutTypeHexInt32)), data: rU32(0x10EC), text: "0x10EC", json: `"0x10EC"`},
		{name: "HexInt32 in", props: rOne(rProp("v", InTypeHexInt32, 0)), data: rU32(0x1AB000), text: "0x1AB000", json: `"0x1AB000"`},
		{name: "HexInt32 zero", props: rOne(rProp("v", InTypeHexInt32, 0)), data: rU32(0), text: "0x0", json: `"0x0"`},
		{name: "HexInt64 in", props: rOne(rProp("v", InTypeHexInt64, 0)), data: rU64(0xFFFFF800AC08A9C0), text: "0xFFFFF800AC08A9C0", json: `"0xFFFFF800AC08A9C0"`},
		{name: "HexInt64 out", props: rOne(rProp("v", InTypeUInt64, OutTypeHexInt64)), data: rU64(0xF00000000008), text: "0xF00000000008"},
		{name: "Int32 as HexInt32", props: rOne(rProp("v", InTypeInt32, OutTypeHexInt32)), data: rU32(0xFFFFFFFF), text: "0xFFFFFFFF"},
		{name: "Pointer 64", props: rOne(rProp("v", InTypePointer, 0)), data: rU64(0xFFFFF800AC08A9C0), text: "0xFFFFF800AC08A9C0", json: `"0xFFFFF800AC08A9C0"`},
		{name: "Pointer 32", ptr: 4, props: rOne(rProp("v", InTypePointer, 0)), data: rU32(9), text: "0x9", json: `"0x9"`},
		{name: "Pointer as UnsignedLong", props: rOne(rProp("v", InTypePointer, OutTypeUnsignedLong)), data: rU64(4096), text: "4096", json: "4096"},
		{name: "SizeT 32", ptr: 4, src: SourceMOF, props: rOne(rProp("v", InTypeSizeT, 0)), data: rU32(16), text: "0x10"},
		{name: "PID", props: rOne(rProp("v", InTypeUInt32, OutTypePID)), data: rU32(1234), text: "1234", json: "1234"},
		{name: "TID", props: rOne(rProp("v", InTypeUInt32, OutTypeTID)), data: rU32(0xFFFFFFFF), text: "4294967295", json: "4294967295"},
		{name: "Port 80", props: rOne(rProp("v", InTypeUInt16, OutTypePort)), data: []byte{0x00, 0x50}, text: "80", json: "80"},
		{name: "Port 8080", props: rOne(rProp("v", InTypeUInt16, OutTypePort)), data: []byte{0x1F, 0x90}, text: "8080", json: "8080"},
		{name: "Port on UInt32 falls back", props: rOne(rProp("v", InTypeUInt32, OutTypePort)), data: rU32(80), text: "80"},
		{name: "IPv4", props: rOne(rProp("v", InTypeUInt32, OutTypeIPv4)), data: []byte{192, 168, 1, 2}, text: "192.168.1.2", json: `"192.168.1.2"`},
		{name: "ETWTIME", props: rOne(rProp("v", InTypeUInt64, OutTypeETWTime)), data: rU64(123456789), text: "123456789", json: "123456789"},
		{name: "ErrorCode", props: rOne(rProp("v", InTypeUInt32, OutTypeErrorCode)), data: rU32(0x80004005), text: "0x80004005", json: `"0x80004005"`},
		{name: "CodePointer", props: rOne(rProp("v", InTypeUInt64, OutTypeCodePointer)), data: rU64(0x7FF6A0B01234), text: "0x7FF6A0B01234", json: `"0x7FF6A0B01234"`},
		{name: "CIMDateTime int", props: rOne(rProp("v", InTypeUInt32, OutTypeCIMDateTime)), data: rU32(255), text: "0xFF"},
		{name: "NoPrint", props: rOne(rProp("v", InTypeUInt32, OutTypeNoPrint)), data: rU32(7), text: "7", json: "7"},
		{name: "UInt64 as FILETIME", props: rOne(rProp("v", InTypeUInt64, OutTypeDateTime)), data: rU64(132247862638609634), text: "2020-01-29T15:44:23.860963400Z", json: `"2020-01-29T15:44:23.8609634Z"`},
		{name: "UInt32 with Float out-type falls back", props: rOne(rProp("v", InTypeUInt32, OutTypeFloat)), data: rU32(3), text: "3"},

		// error codes
		{name: "Win32 known", props: rOne(rProp("v", InTypeUInt32, OutTypeWin32Error)), data: rU32(5), text: "Access is denied.", json: `"Access is denied."`},
		{name: "Win32 0", props: rOne(rProp("v", InTypeUInt32, OutTypeWin32Error)), data: rU32(0), text: "The operation completed successfully."},
		{name: "Win32 1223", props: rOne(rProp("v", InTypeHexInt32, OutTypeWin32Error)), data: rU32(1223), text: "The operation was canceled by the user."},
		{name: "Win32 unknown", props: rOne(rProp("v", InTypeUInt32, OutTypeWin32Error)), data: rU32(9999), text: "Unknown Win32 Error code: 0x270F"},
		{name: "NTSTATUS known", props: rOne(rProp("v", InTypeUInt32, OutTypeNTStatus)), data: rU32(0xC0000022), text: "{Access Denied} A process has requested access to an object, but has not been granted those access rights."},
		{name: "NTSTATUS pending", props: rOne(rProp("v", InTypeHexInt32, OutTypeNTStatus)), data: rU32(0x103), text: "The operation that was requested is pending completion."},
		{name: "NTSTATUS unknown", props: rOne(rProp("v", InTypeUInt32, OutTypeNTStatus)), data: rU32(0xC0001234), text: "Unknown NTSTATUS Error code: 0xC0001234", json: `"Unknown NTSTATUS Error code: 0xC0001234"`},
		{name: "HResult win32", props: rOne(rProp("v", InTypeInt32, OutTypeHResult)), data: rU32(0x80070005), text: "Access is denied."},
		{name: "HResult E_INVALIDARG", props: rOne(rProp("v", InTypeInt32, OutTypeHResult)), data: rU32(0x80070057), text: "The parameter is incorrect."},
		{name: "HResult E_FAIL", props: rOne(rProp("v", InTypeInt32, OutTypeHResult)), data: rU32(0x80004005), text: "Unspecified error"},
		{name: "HResult S_OK", props: rOne(rProp("v", InTypeInt32, OutTypeHResult)), data: rU32(0), text: "The operation completed successfully."},
		{name: "HResult unknown", props: rOne(rProp("v", InTypeInt32, OutTypeHResult)), data: rU32(0x8007FFFF), text: "Unknown HResult Error code: 0x8007FFFF"},
		{name: "Win32Error on UInt16 falls back", props: rOne(rProp("v", InTypeUInt16, OutTypeWin32Error)), data: rU16(5), text: "5"},

		// floats
		{name: "Float 1.5", props: rOne(rProp("v", InTypeFloat, 0)), data: rF32(1.5), text: "1.5", json: "1.5"},
		{name: "Float 0.1", props: rOne(rProp("v", InTypeFloat, 0)), data: rF32(0.1), text: "0.1", json: "0.1"},
		{name: "Float 16777216", props: rOne(rProp("v", InTypeFloat, 0)), data: rF32(16777216), text: "1.6777216e+07"},
		{name: "Double pi", props: rOne(rProp("v", InTypeDouble, 0)), data: rF64(math.Pi), text: "3.141592653589793", json: "3.141592653589793"},
		{name: "Double 123456", props: rOne(rProp("v", InTypeDouble, 0)), data: rF64(123456), text: "123456"},
		{name: "Double 1e6", props: rOne(rProp("v", InTypeDouble, 0)), data: rF64(1e6), text: "1e+06", json: "1e+06"},
		{name: "Double 1e21", props: rOne(rProp("v", InTypeDouble, 0)), data: rF64(1e21), text: "1e+21"},
		{name: "Double 0.0001", props: rOne(rProp("v", InTypeDouble, 0)), data: rF64(0.0001), text: "0.0001"},
		{name: "Double 1e-5", props: rOne(rProp("v", InTypeDouble, 0)), data: rF64(1e-5), text: "1e-05", json: "1e-05"},
		{name: "Double -0", props: rOne(rProp("v", InTypeDouble, 0)), data: rF64(math.Copysign(0, -1)), text: "-0", json: "-0"},
		{name: "Double NaN", props: rOne(rProp("v", InTypeDouble, 0)), data: rF64(math.NaN()), text: "nan", json: `"nan"`},
		{name: "Double -NaN", props: rOne(rProp("v", InTypeDouble, 0)), data: rU64(0xFFF8000000000000), text: "-nan", json: `"-nan"`},
		{name: "Float +Inf", props: rOne(rProp("v", InTypeFloat, 0)), data: rF32(float32(math.Inf(1))), text: "inf", json: `"inf"`},
		{name: "Double -Inf", props: rOne(rProp("v", InTypeDouble, 0)), data: rF64(math.Inf(-1)), text: "-inf", json: `"-inf"`},

		// GUID, binary
		{name: "GUID", props: rOne(rProp("v", InTypeGUID, 0)), data: rGUIDBytes, text: "{00112233-4455-6677-8899-aabbccddeeff}", json: `"{00112233-4455-6677-8899-aabbccddeeff}"`},
		{name: "Binary", props: rOne(rWithLen(rProp("v", InTypeBinary, 0), 4)), data: []byte{0xDE, 0xAD, 0xBE, 0xEF}, text: "0xDEADBEEF", json: `"DEADBEEF"`},
		{name: "Binary leading zero", props: rOne(rWithLen(rProp("v", InTypeBinary, OutTypeHexBinary), 2)), data: []byte{0x00, 0x0A}, text: "0x000A", json: `"000A"`},
		{name: "CountedBinary", props: rOne(rProp("v", InTypeCountedBinary, 0)), data: rCat(rU16(3), []byte{1, 2, 0xFF}), text: "0x0102FF", json: `"0102FF"`},
		{name: "CountedBinary empty", props: rOne(rProp("v", InTypeCountedBinary, 0)), data: rU16(0), text: "", json: `""`},
		{name: "HexDump", src: SourceMOF, props: rOne(rProp("v", InTypeHexDump, 0)), data: rCat(rU32(2), []byte{0xAB, 0xCD}), text: "0xABCD", json: `"ABCD"`},
		{name: "PKCS7", props: rOne(rWithLen(rProp("v", InTypeBinary, OutTypePKCS7WithTypeInfo), 3)), data: []byte{0x30, 0x82, 0x01}, text: "0x308201", json: `"308201"`},
		{name: "CIMDateTime binary", props: rOne(rWithLen(rProp("v", InTypeBinary, OutTypeCIMDateTime), 2)), data: []byte{0x12, 0x34}, text: "0x1234"},

		// times
		{name: "FILETIME doc", props: rOne(rProp("v", InTypeFileTime, 0)), data: rU64(130888406700009419), text: "2015-10-09T05:04:30.000941900Z", json: `"2015-10-09T05:04:30.0009419Z"`},
		{name: "FILETIME tracerpt", props: rOne(rProp("v", InTypeFileTime, OutTypeDateTimeUTC)), data: rU64(132247862638609634), text: "2020-01-29T15:44:23.860963400Z", json: `"2020-01-29T15:44:23.8609634Z"`},
		{name: "FILETIME CultureInsensitive", props: rOne(rProp("v", InTypeFileTime, OutTypeCultureInsensitiveDateTime)), data: rU64(132247862638609634), text: "2020-01-29T15:44:23.860963400Z"},
		{name: "FILETIME zero", props: rOne(rProp("v", InTypeFileTime, 0)), data: rU64(0), text: "1601-01-01T00:00:00.000000000Z", json: `"1601-01-01T00:00:00.0000000Z"`},
		{name: "FILETIME max", props: rOne(rProp("v", InTypeFileTime, 0)), data: rU64(0x7FFFFFFFFFFFFFFF), text: "30828-09-14T02:48:05.477580700Z"},
		{name: "FILETIME 2^63", props: rOne(rProp("v", InTypeFileTime, 0)), data: rU64(1 << 63), text: "0x8000000000000000", json: `"0x8000000000000000"`},
		{name: "SYSTEMTIME", props: rOne(rProp("v", InTypeSystemTime, 0)), data: rSystime(2015, 10, 5, 9, 5, 4, 30, 123), text: "2015-10-09T05:04:30.123000000Z", json: `"2015-10-09T05:04:30.123Z"`},
		{name: "SYSTEMTIME leap day", props: rOne(rProp("v", InTypeSystemTime, OutTypeDateTimeUTC)), data: rSystime(2020, 2, 6, 29, 23, 59, 59, 999), text: "2020-02-29T23:59:59.999000000Z"},
		{name: "SYSTEMTIME not leap", props: rOne(rProp("v", InTypeSystemTime, 0)), data: rSystime(2019, 2, 5, 29, 0, 0, 0, 0), text: "0xE307020005001D000000000000000000", json: `"0xE307020005001D000000000000000000"`},
		{name: "SYSTEMTIME month 13", props: rOne(rProp("v", InTypeSystemTime, 0)), data: rSystime(2019, 13, 5, 1, 0, 0, 0, 0), text: "0xE3070D00050001000000000000000000"},
		{name: "SYSTEMTIME zero", props: rOne(rProp("v", InTypeSystemTime, 0)), data: make([]byte, 16), text: "0x00000000000000000000000000000000"},

		// SIDs
		{name: "SID S-1-5-18", props: rOne(rProp("v", InTypeSID, 0)), data: rSid(1, 5, 18), text: "S-1-5-18", json: `"S-1-5-18"`},
		{name: "SID domain", props: rOne(rProp("v", InTypeSID, 0)), data: rSid(1, 5, 21, 3623811015, 3361044348, 30300820, 1013), text: "S-1-5-21-3623811015-3361044348-30300820-1013"},
		{name: "SID no subauthority", props: rOne(rProp("v", InTypeSID, 0)), data: rSid(1, 1), text: "S-1-1"},
		{name: "SID big authority", props: rOne(rProp("v", InTypeSID, 0)), data: rSid(1, 0x0102030405AB, 7), text: "S-1-0x0102030405ab-7"},
		{name: "SID authority 2^32", props: rOne(rProp("v", InTypeSID, 0)), data: rSid(1, 1<<32, 7), text: "S-1-0x000100000000-7"},
		{name: "SID authority 2^32-1", props: rOne(rProp("v", InTypeSID, 0)), data: rSid(1, 0xFFFFFFFF, 7), text: "S-1-4294967295-7"},
		{name: "WBEMSID 64", src: SourceMOF, props: rOne(rProp("v", InTypeWBEMSID, 0)), data: rCat(rU32(1), make([]byte, 12), rSid(1, 5, 18)), text: "S-1-5-18", json: `"S-1-5-18"`},
		{name: "WBEMSID 32", src: SourceMOF, ptr: 4, props: rOne(rProp("v", InTypeWBEMSID, 0)), data: rCat(rU32(1), make([]byte, 4), rSid(1, 5, 32, 544)), text: "S-1-5-32-544"},
		{name: "WBEMSID null", src: SourceMOF, props: rOne(rProp("v", InTypeWBEMSID, 0)), data: rU32(0), text: "", json: `""`},

		// addresses
		{name: "IPv6 doc", props: rOne(rProp("v", InTypeBinary, OutTypeIPv6)), data: []byte{0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, text: "2001:db8::1", json: `"2001:db8::1"`},
		{name: "IPv6 loopback", props: rOne(rProp("v", InTypeBinary, OutTypeIPv6)), data: []byte{15: 1}, text: "::1"},
		{name: "IPv6 unspecified", props: rOne(rProp("v", InTypeBinary, OutTypeIPv6)), data: make([]byte, 16), text: "::"},
		{name: "IPv6 trailing run", props: rOne(rProp("v", InTypeBinary, OutTypeIPv6)), data: []byte{0, 1, 15: 0}, text: "1::"},
		{name: "IPv6 mapped", props: rOne(rProp("v", InTypeBinary, OutTypeIPv6)), data: []byte{10: 0xFF, 11: 0xFF, 12: 1, 13: 2, 14: 3, 15: 4}, text: "::ffff:1.2.3.4"},
		{name: "IPv6 compatible", props: rOne(rProp("v", InTypeBinary, OutTypeIPv6)), data: []byte{12: 1, 13: 2, 14: 3, 15: 4}, text: "::1.2.3.4"},
		{name: "IPv6 translated", props: rOne(rProp("v", InTypeBinary, OutTypeIPv6)), data: []byte{8: 0xFF, 9: 0xFF, 12: 1, 13: 2, 14: 3, 15: 4}, text: "::ffff:0:1.2.3.4"},
		{name: "IPv6 longest run", props: rOne(rProp("v", InTypeBinary, OutTypeIPv6)), data: []byte{0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1}, text: "2001:db8::1:0:0:1"},
		{name: "IPv6 tie first", props: rOne(rProp("v", InTypeBinary, OutTypeIPv6)), data: []byte{0x20, 0x01, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 1}, text: "2001::1:1:0:0:1"},
		{name: "IPv6 single zero", props: rOne(rProp("v", InTypeBinary, OutTypeIPv6)), data: []byte{0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1}, text: "2001:db8:0:1:1:1:1:1"},
		{name: "IPv6 counted", props: rOne(rProp("v", InTypeCountedBinary, OutTypeIPv6)), data: rCat(rU16(16), []byte{0xfe, 0x80, 15: 1}), text: "fe80::1"},
		{name: "IPv6 short falls back", props: rOne(rWithLen(rProp("v", InTypeBinary, OutTypeIPv6), 4)), data: []byte{1, 2, 3, 4}, text: "0x01020304"},
		{name: "SockAddr v4", props: rOne(rWithLen(rProp("v", InTypeBinary, OutTypeSocketAddress), 16)), data: rCat(rU16(2), []byte{0x00, 0x50, 192, 168, 1, 2}, make([]byte, 8)), text: "192.168.1.2:80", json: `"192.168.1.2:80"`},
		{name: "SockAddr v4 port 0", props: rOne(rWithLen(rProp("v", InTypeBinary, OutTypeSocketAddress), 16)), data: rCat(rU16(2), []byte{0, 0, 10, 0, 0, 1}, make([]byte, 8)), text: "10.0.0.1"},
		{name: "SockAddr v6", props: rOne(rWithLen(rProp("v", InTypeBinary, OutTypeSocketAddress), 28)), data: rCat(rU16(23), []byte{0x01, 0xBB}, rU32(0), []byte{0x20, 0x01, 0x0d, 0xb8, 14: 0, 15: 1}, rU32(0)), text: "[2001:db8::1]:443", json: `"[2001:db8::1]:443"`},
		{name: "SockAddr v6 scope", props: rOne(rWithLen(rProp("v", InTypeBinary, OutTypeSocketAddress), 28)), data: rCat(rU16(23), []byte{0x01, 0xBB}, rU32(0), []byte{0xfe, 0x80, 15: 1}, rU32(5)), text: "[fe80::1%5]:443"},
		{name: "SockAddr v6 port 0", props: rOne(rWithLen(rProp("v", InTypeBinary, OutTypeSocketAddress), 28)), data: rCat(rU16(23), []byte{0, 0}, rU32(0), []byte{15: 1}, rU32(0)), text: "::1"},
		{name: "SockAddr other family", props: rOne(rWithLen(rProp("v", InTypeBinary, OutTypeSocketAddress), 4)), data: []byte{1, 0, 0x41, 0x42}, text: "0x01004142", json: `"0x01004142"`},
		{name: "SockAddr short v6", props: rOne(rWithLen(rProp("v", InTypeBinary, OutTypeSocketAddress), 8)), data: rCat(rU16(23), make([]byte, 6)), text: "0x1700000000000000"},
	}
	for i := range cases {
		t.Run(cases[i].name, cases[i].run)
	}
}

func TestRenderStrings(t *testing.T) {
	cases := []renderCase{
		{name: "UnicodeString", props: rOne(rProp("v", InTypeUnicodeString, 0)), data: rUtf16z("Hello"), text: "Hello", json: `"Hello"`},
		{name: "UnicodeString surrogates", props: rOne(rProp("v", InTypeUnicodeString, 0)), data: rUtf16z("a😀b"), text: "a😀b", json: `"a😀b"`},
		{name: "UnicodeString lone surrogate", props: rOne(rProp("v", InTypeUnicodeString, 0)), data: rCat(rUnits('a', 0xD83D, 'b'), rU16(0)), text: "a\uFFFDb", json: "\"a\uFFFDb\""},
		{name: "UnicodeString empty", props: rOne(rProp("v", InTypeUnicodeString, 0)), data: rU16(0), text: "", json: `""`},
		{name: "UnicodeString fixed length NUL", props: rOne(rWithLen(rProp("v", InTypeUnicodeString, 0), 5)), data: rUtf16le("ab\x00cd"), text: "ab", json: `"ab"`},
		{name: "UnicodeString JSON escapes", props: rOne(rProp("v", InTypeUnicodeString, 0)), data: rUtf16z("a\"b\\c\n\x01\t"), text: "a\"b\\c\n\x01\t", json: `"a\"b\\c\n\u0001\t"`},
		{name: "AnsiString", props: rOne(rProp("v", InTypeAnsiString, 0)), data: []byte("plain\x00"), text: "plain", json: `"plain"`},
		{name: "AnsiString cp1252", props: rOne(rProp("v", InTypeAnsiString, 0)), data: []byte{0x93, 'x', 0x94, 0x80, 0}, text: "“x”€", json: `"“x”€"`},
		{name: "AnsiString utf8", props: rOne(rProp("v", InTypeAnsiString, 0)), data: []byte("caf\xc3\xa9\x00"), text: "café"},
		{name: "AnsiString fixed length NUL", props: rOne(rWithLen(rProp("v", InTypeAnsiString, 0), 5)), data: []byte("ab\x00cd"), text: "ab"},
		{name: "AnsiString Utf8 invalid", props: rOne(rProp("v", InTypeAnsiString, OutTypeUTF8)), data: []byte{'a', 0xFF, 'b', 0}, text: "a\uFFFDb", json: "\"a\uFFFDb\""},
		{name: "AnsiString Utf8 no cp1252", props: rOne(rProp("v", InTypeAnsiString, OutTypeUTF8)), data: []byte{0x93, 0}, text: "\uFFFD"},
		{name: "AnsiString Xml", props: rOne(rProp("v", InTypeAnsiString, OutTypeXML)), data: []byte("<a x=\"é\"/>\x00"), text: "<a x=\"é\"/>", json: `"<a x=\"é\"/>"`},
		{name: "UnicodeString Json", props: rOne(rProp("v", InTypeUnicodeString, OutTypeJSON)), data: rUtf16z(`{"k":1}`), text: `{"k":1}`, json: `"{\"k\":1}"`},
		{name: "CountedString", props: rOne(rProp("v", InTypeCountedString, 0)), data: rCat(rU16(6), rUtf16le("xyz")), text: "xyz"},
		{name: "CountedAnsiString", props: rOne(rProp("v", InTypeCountedAnsiString, 0)), data: rCat(rU16(3), []byte("abc")), text: "abc"},
		{name: "MOF CountedString", src: SourceMOF, props: rOne(rProp("v", InTypeMOFCountedString, 0)), data: rCat(rU16(4), rUtf16le("hi")), text: "hi"},
		{name: "ReversedCountedString", src: SourceMOF, props: rOne(rProp("v", InTypeReversedCountedString, 0)), data: rCat([]byte{0, 4}, rUtf16le("ok")), text: "ok"},
		{name: "ReversedCountedAnsiString", src: SourceMOF, props: rOne(rProp("v", InTypeReversedCountedAnsiString, 0)), data: rCat([]byte{0, 2}, []byte("ok")), text: "ok"},
		{name: "NonNullTerminatedString", src: SourceMOF, props: rOne(rProp("v", InTypeNonNullTerminatedString, 0)), data: rUtf16le("rest"), text: "rest"},
		{name: "NonNullTerminatedAnsi", src: SourceMOF, props: rOne(rProp("v", InTypeNonNullTerminatedAnsi, 0)), data: []byte("rest"), text: "rest"},
		{name: "ReducedString", src: SourceMOF, props: rOne(rProp("v", InTypeUnicodeString, OutTypeReducedString)), data: rUtf16z("a\r\nb\nc"), text: "a  b c", json: `"a  b c"`},
		{name: "ReducedString ansi", src: SourceMOF, props: rOne(rProp("v", InTypeAnsiString, OutTypeReducedString)), data: []byte("x\ry\x00"), text: "x y"},
		{name: "UnicodeChar", src: SourceMOF, props: rOne(rProp("v", InTypeUnicodeChar, 0)), data: rU16('Ω'), text: "Ω", json: `"Ω"`},
		{name: "UnicodeChar length", src: SourceMOF, props: rOne(rWithLen(rProp("v", InTypeUnicodeChar, 0), 4)), data: rUtf16le("ab\x00\x00"), text: "ab"},
		{name: "AnsiChar", src: SourceMOF, props: rOne(rProp("v", InTypeAnsiChar, 0)), data: []byte{'Z'}, text: "Z", json: `"Z"`},
		{name: "Null in-type", props: rOne(rProp("v", InTypeNull, 0)), data: nil, text: "", json: "null"},
	}
	for i := range cases {
		t.Run(cases[i].name, cases[i].run)
	}
}

func TestRenderMaps(t *testing.T) {
	vm := func(in InType, out OutType) Property {
		return rWithMap(rProp("v", in, out), ValueMap, MapEntry{1, "One "}, MapEntry{2, "Two"})
	}
	bm := func(in InType) Property {
		return rWithMap(rProp("v", in, 0), BitMap, MapEntry{8, "Exec"}, MapEntry{1, "Read"}, MapEntry{2, "Write"})
	}
	fm := rWithMap(rProp("v", InTypeUInt32, 0), FlagMap, MapEntry{1, "A"}, MapEntry{2, "B"}, MapEntry{3, "C"})
	cases := []renderCase{
		{name: "value hit keeps trailing space", props: rOne(vm(InTypeUInt32, 0)), data: rU32(1), text: "One ", json: `"One "`},
		{name: "value UInt8", props: rOne(vm(InTypeUInt8, 0)), data: []byte{2}, text: "Two", json: `"Two"`},
		{name: "value UInt16", props: rOne(vm(InTypeUInt16, 0)), data: rU16(2), text: "Two"},
		{name: "value HexInt32", props: rOne(vm(InTypeHexInt32, 0)), data: rU32(2), text: "Two"},
		{name: "value miss", props: rOne(vm(InTypeUInt32, 0)), data: rU32(3), text: "3", json: "3"},
		{name: "value miss hex", props: rOne(vm(InTypeHexInt32, 0)), data: rU32(3), text: "0x3", json: `"0x3"`},
		{name: "value on manifest Int32 ignored", props: rOne(vm(InTypeInt32, 0)), data: rU32(1), text: "1"},
		{name: "value on manifest UInt64 ignored", props: rOne(vm(InTypeUInt64, 0)), data: rU64(1), text: "1"},
		{name: "value on MOF Int32", src: SourceMOF, props: rOne(vm(InTypeInt32, 0)), data: rU32(1), text: "One "},
		{name: "value on MOF UInt64", src: SourceMOF, props: rOne(vm(InTypeUInt64, 0)), data: rU64(2), text: "Two"},
		{name: "bitmap all", props: rOne(bm(InTypeUInt32)), data: rU32(0xB), text: "Read | Write | Exec", json: `"Read | Write | Exec"`},
		{name: "bitmap leftover", props: rOne(bm(InTypeUInt32)), data: rU32(0x13), text: "Read | Write | 0x10"},
		{name: "bitmap no entry", props: rOne(bm(InTypeUInt32)), data: rU32(0x10), text: "16", json: "16"},
		{name: "bitmap zero", props: rOne(bm(InTypeUInt32)), data: rU32(0), text: "0"},
		{name: "bitmap zero entry", props: rOne(rWithMap(rProp("v", InTypeUInt8, 0), BitMap, MapEntry{0, "None"}, MapEntry{1, "A"})), data: []byte{0}, text: "None"},
		{name: "bitmap zero entry not listed", props: rOne(rWithMap(rProp("v", InTypeUInt8, 0), BitMap, MapEntry{0, "None"}, MapEntry{1, "A"})), data: []byte{1}, text: "A"},
		{name: "bitmap multi-bit entry", props: rOne(rWithMap(rProp("v", InTypeUInt16, 0), BitMap, MapEntry{3, "Both"}, MapEntry{4, "Four"})), data: rU16(7), text: "Both | Four"},
		{name: "index map", src: SourceMOF, props: rOne(rWithMap(rProp("v", InTypeUInt32, 0), IndexMap, MapEntry{0, "Zero"}, MapEntry{1, "One"})), data: rU32(1), text: "One"},
		{name: "index map miss", src: SourceMOF, props: rOne(rWithMap(rProp("v", InTypeUInt32, 0), IndexMap, MapEntry{0, "Zero"}, MapEntry{1, "One"})), data: rU32(2), text: "2"},
		{name: "flag map", src: SourceMOF, props: rOne(fm), data: rU32(5), text: "A | C", json: `"A | C"`},
		{name: "flag map leftover", src: SourceMOF, props: rOne(fm), data: rU32(9), text: "A | 0x8"},
		{name: "flag map zero", src: SourceMOF, props: rOne(fm), data: rU32(0), text: "0"},
		{name: "MOF padding does not touch maps", src: SourceMOF, props: rOne(vm(InTypeUInt32, 0)), data: rU32(1), text: "One "},
	}
	for i := range cases {
		t.Run(cases[i].name, cases[i].run)
	}
}

func TestRenderArraysStructs(t *testing.T) {
	arr := func(p Property, n uint16) Property { p.IsArray, p.Count = true, n; return p }
	count := rProp("Count", InTypeUInt16, 0)
	vals := rProp("Values", InTypeUInt32, 0)
	vals.IsArray, vals.CountIndex = true, 0
	point := Property{Name: "Items", LengthIndex: -1, CountIndex: -1, IsArray: true, Count: 2,
		Members: []Property{rProp("X", InTypeUInt8, 0), rProp("Y", InTypeUnicodeString, 0)}}
	outer := Property{Name: "Outer", LengthIndex: -1, CountIndex: -1,
		Members: []Property{rProp("Id", InTypeUInt32, OutTypeHexInt32), point}}
	hidden := Property{Name: "S", LengthIndex: -1, CountIndex: -1,
		Members: []Property{rProp("A", InTypeUInt8, 0), rProp("Secret", InTypeUInt8, OutTypeNoPrint), rProp("B", InTypeUInt8, 0)}}
	mapped := rWithMap(arr(rProp("v", InTypeUInt8, 0), 3), ValueMap, MapEntry{1, "on"}, MapEntry{0, "off"})
	cases := []renderCase{
		{name: "fixed count", props: rOne(arr(rProp("v", InTypeUInt32, 0), 3)), data: rCat(rU32(1), rU32(2), rU32(3)), text: "[1, 2, 3]", json: "[1,2,3]"},
		{name: "count 1 array", props: rOne(arr(rProp("v", InTypeUInt32, 0), 1)), data: rU32(9), text: "[9]", json: "[9]"},
		{name: "empty", props: rOne(arr(rProp("v", InTypeUInt32, 0), 0)), data: nil, text: "[]", json: "[]"},
		{name: "count from property", props: []Property{count, vals}, data: rCat(rU16(2), rU32(7), rU32(8)), text: "2", json: "2"},
		{name: "strings", props: rOne(arr(rProp("v", InTypeUnicodeString, 0), 2)), data: rCat(rUtf16z("a"), rUtf16z("b, c")), text: "[a, b, c]", json: `["a","b, c"]`},
		{name: "GUIDs", props: rOne(arr(rProp("v", InTypeGUID, 0), 2)), data: rCat(rGUIDBytes, make([]byte, 16)), text: "[{00112233-4455-6677-8899-aabbccddeeff}, {00000000-0000-0000-0000-000000000000}]"},
		{name: "mapped elements", props: rOne(mapped), data: []byte{1, 0, 5}, text: "[on, off, 5]", json: `["on","off",5]`},
		{name: "UInt16 char array", props: rOne(arr(rProp("v", InTypeUInt16, OutTypeString), 4)), data: rUtf16le("hi\x00x"), text: "hi", json: `"hi"`},
		{name: "UInt16 char array surrogates", props: rOne(arr(rProp("v", InTypeUInt16, OutTypeString), 3)), data: rUtf16le("😀!"), text: "😀!"},
		{name: "UInt8 char array", props: rOne(arr(rProp("v", InTypeUInt8, OutTypeString), 3)), data: []byte{'o', 'k', 0x80}, text: "ok€"},
		{name: "UnicodeChar array", src: SourceMOF, props: rOne(arr(rProp("v", InTypeUnicodeChar, 0), 3)), data: rUtf16le("ab\x00"), text: "ab", json: `"ab"`},
		{name: "AnsiChar array", src: SourceMOF, props: rOne(arr(rProp("v", InTypeAnsiChar, 0), 2)), data: []byte("xy"), text: "xy"},
		{name: "nested structs", props: rOne(outer), data: rCat(rU32(0x1F), []byte{1}, rUtf16z("p"), []byte{2}, rUtf16z("q")),
			text: "{Id: 0x1F, Items: [{X: 1, Y: p}, {X: 2, Y: q}]}", json: `{"Id":"0x1F","Items":[{"X":1,"Y":"p"},{"X":2,"Y":"q"}]}`},
		{name: "NoPrint member", props: rOne(hidden), data: []byte{1, 2, 3}, text: "{A: 1, B: 3}", json: `{"A":1,"B":3}`},
		{name: "empty struct", props: rOne(Property{Name: "E", LengthIndex: -1, CountIndex: -1, Members: []Property{}}), data: nil, text: "{}", json: "{}"},
	}
	for i := range cases {
		t.Run(cases[i].name, cases[i].run)
	}

	// The counted array itself (second top-level value).
	e := &Event{Properties: []Property{count, vals}}
	var dec Decoder
	d, err := dec.Decode(e, rCat(rU16(2), rU32(7), rU32(8)), 8)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(AppendText(nil, d, &d.Values[1], nil)); got != "[7, 8]" {
		t.Errorf("counted array text = %q", got)
	}
	if got := string(AppendPropertiesJSON(nil, d)); got != `{"Count":2,"Values":[7,8]}` {
		t.Errorf("properties JSON = %s", got)
	}
}

// TestRenderFallback checks values whose size does not fit their type.
func TestRenderFallback(t *testing.T) {
	cases := []struct {
		p    Property
		data []byte
		text string
	}{
		{rProp("v", InTypeUInt32, 0), []byte{1, 2, 3}, "0x010203"},
		{rProp("v", InTypeUInt32, OutTypeIPv4), []byte{1, 2, 3}, "0x010203"},
		{rProp("v", InTypeGUID, 0), make([]byte, 15), "0x000000000000000000000000000000"},
		{rProp("v", InTypeFileTime, 0), []byte{1, 2}, "0x0102"},
		{rProp("v", InTypeFloat, 0), []byte{1, 2, 3}, "0x010203"},
		{rProp("v", InTypeDouble, 0), []byte{1}, "0x01"},
		{rProp("v", InTypeSID, 0), []byte{1, 2, 0, 0, 0, 0, 0, 5, 1, 0, 0, 0}, "0x010200000000000501000000"},
		{rProp("v", InTypeSID, 0), []byte{1, 0, 0}, "0x010000"},
		{rProp("v", InTypeUInt16, OutTypePort), []byte{1}, "0x01"},
		{rProp("v", InTypeBoolean, 0), []byte{1, 0, 0}, "0x010000"},
		{rProp("v", InType(999), 0), []byte{0xAA}, "0xAA"},
		{rProp("v", InTypeUInt32, 0), nil, ""},
	}
	for _, c := range cases {
		p := c.p
		v := &Value{Prop: &p, Data: c.data}
		d := &Decoded{Schema: &Event{Properties: []Property{p}}, Values: []Value{*v}}
		if got := string(AppendText(nil, d, v, nil)); got != c.text {
			t.Errorf("%v/%v % x: text %q, want %q", p.InType, p.OutType, c.data, got, c.text)
		}
		js := AppendJSON(nil, d, v)
		if !json.Valid(js) {
			t.Errorf("%v % x: invalid JSON %s", p.InType, c.data, js)
		}
	}
	// Values the renderer must survive: nil value, nil property, broken
	// child references, nil Decoded.
	p := rProp("v", InTypeUInt32, 0)
	bad := []*Value{nil, {}, {Prop: &p, Kind: Array, First: 5, N: 3}, {Prop: &p, Kind: Struct, First: -1, N: 1}}
	for _, v := range bad {
		_ = AppendText(nil, nil, v, nil)
		if js := AppendJSON(nil, nil, v); !json.Valid(js) {
			t.Errorf("invalid JSON %s", js)
		}
	}
	if got := string(AppendPropertiesJSON(nil, nil)); got != "{}" {
		t.Errorf("nil properties JSON = %s", got)
	}
}

func TestMOFPadding(t *testing.T) {
	on := &RenderOptions{MOFPadding: true}
	cases := []struct {
		src  Source
		p    Property
		data []byte
		o    *RenderOptions
		want string
	}{
		{SourceMOF, rProp("v", InTypeUInt32, 0), rU32(8192), on, "    8192"},
		{SourceMOF, rProp("v", InTypeUInt32, OutTypeUnsignedInt), rU32(4), on, "       4"},
		{SourceMOF, rProp("v", InTypeUInt32, 0), rU32(4294967295), on, "4294967295"},
		{SourceMOF, rProp("v", InTypeUInt32, 0), rU32(8192), nil, "8192"},
		{SourceMOF, rProp("v", InTypeUInt32, 0), rU32(8192), &RenderOptions{}, "8192"},
		{SourceManifest, rProp("v", InTypeUInt32, 0), rU32(8192), on, "8192"},
		{SourceMOF, rProp("v", InTypeUInt32, OutTypeHexInt32), rU32(8192), on, "0x2000"},
		{SourceMOF, rProp("v", InTypeUInt32, OutTypePID), rU32(8192), on, "8192"},
		{SourceMOF, rProp("v", InTypeInt32, 0), rU32(8192), on, "8192"},
		{SourceMOF, rProp("v", InTypeUInt16, 0), rU16(0), on, "0"},
		{SourceMOF, rProp("v", InTypeUInt64, 0), rU64(131531840950918566), on, "131531840950918566"},
	}
	for _, c := range cases {
		e := &Event{Source: c.src, Properties: []Property{c.p}}
		var dec Decoder
		d, err := dec.Decode(e, c.data, 8)
		if err != nil {
			t.Fatal(err)
		}
		if got := string(AppendText(nil, d, &d.Values[0], c.o)); got != c.want {
			t.Errorf("%v %v %v: %q, want %q", c.src, c.p.InType, c.p.OutType, got, c.want)
		}
		if js := string(AppendJSON(nil, d, &d.Values[0])); strings.HasPrefix(js, " ") {
			t.Errorf("JSON padded: %q", js)
		}
	}
}

func TestPropertiesJSON(t *testing.T) {
	e := &Event{Properties: []Property{
		rProp("A", InTypeUInt32, 0),
		rProp("Hidden", InTypeUInt32, OutTypeNoPrint),
		rProp("Name \"q\"", InTypeUnicodeString, 0),
		rProp("When", InTypeFileTime, 0),
		rProp("Tail", InTypeUInt64, 0),
	}}
	var dec Decoder
	payload := rCat(rU32(1), rU32(2), rUtf16z("x"), rU64(132247862638609634), rU64(5))
	d, err := dec.Decode(e, payload, 8)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"A":1,"Name \"q\"":"x","When":"2020-01-29T15:44:23.8609634Z","Tail":5}`
	if got := string(AppendPropertiesJSON(nil, d)); got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
	if Printable(&e.Properties[1]) || !Printable(&e.Properties[0]) || Printable(nil) {
		t.Error("Printable")
	}
	// A truncated payload: properties after the failure are null.
	d, err = dec.Decode(e, payload[:6], 8)
	if err == nil {
		t.Fatal("no decode error")
	}
	want = `{"A":1,"Name \"q\"":null,"When":null,"Tail":null}`
	if got := string(AppendPropertiesJSON(nil, d)); got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
	// Appending keeps what dst already holds.
	if got := string(AppendPropertiesJSON([]byte("x="), d)); !strings.HasPrefix(got, "x={") {
		t.Errorf("prefix lost: %s", got)
	}
}

func TestJSONQuoteInPlace(t *testing.T) {
	for _, s := range []string{"", "plain", "é€😀", "a\"b", "\x00\x1f", "bad\xffutf8\xc3", "\\", "\u2028"} {
		dst := jsonQuoteFrom(append([]byte("pre"), s...), 3)
		var back string
		if err := json.Unmarshal(dst[3:], &back); err != nil || string(dst[:3]) != "pre" {
			t.Errorf("%q: %s (%v)", s, dst, err)
			continue
		}
		if want := strings.ToValidUTF8(s, "\uFFFD"); back != want {
			t.Errorf("%q: round trip %q, want %q", s, back, want)
		}
	}
}

func TestErrorTables(t *testing.T) {
	// The codes the brief requires must be present.
	for _, c := range []uint32{0, 1, 2, 3, 4, 5, 6, 8, 13, 32, 53, 87, 122, 183, 1168, 1223, 1460} {
		if s, ok := win32ErrorText(c); !ok || s == "" || strings.HasSuffix(s, "\n") {
			t.Errorf("Win32 %d missing", c)
		}
		if c != 0 {
			if s, ok := hresultText(0x80070000 | c); !ok || s != win32Messages()[c] {
				t.Errorf("HRESULT_FROM_WIN32(%d) = %q", c, s)
			}
		}
	}
	for _, c := range []uint32{0, 0xC0000001, 0xC0000005, 0xC000000D, 0xC0000022, 0xC0000034, 0xC000009A, 0xC00000BB, 0xC0000120, 0x103, 0x80000005} {
		if _, ok := ntstatusText(c); !ok {
			t.Errorf("NTSTATUS 0x%X missing", c)
		}
	}
	for _, c := range []uint32{0, 0x80004005, 0x80070057, 0x8007000E, 0x80004001, 0x80070005, 0x80004003, 0x80004004, 0x8000FFFF} {
		if _, ok := hresultText(c); !ok {
			t.Errorf("HRESULT 0x%X missing", c)
		}
	}
	if n := len(win32Messages()) + len(ntstatusMessages()) + len(hresultMessages()); n > 70 {
		t.Errorf("%d table entries", n)
	}
}

// TestAppendHex0x compares appendHex0x with strconv at every digit count.
func TestAppendHex0x(t *testing.T) {
	for bit := 0; bit < 64; bit++ {
		for _, n := range []uint64{1 << bit, 1<<bit - 1, 1<<bit + 1, 0xA5A5A5A5A5A5A5A5 >> bit, ^uint64(0) >> bit} {
			want := "x0x" + strings.ToUpper(strconv.FormatUint(n, 16))
			if got := string(appendHex0x([]byte("x"), n)); got != want {
				t.Fatalf("appendHex0x(%#x) = %q, want %q", n, got, want)
			}
		}
	}
}
