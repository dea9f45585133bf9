package tdh

import (
	"strings"
	"testing"
)

// msgEvent decodes an event whose top-level properties are:
// %1 Name (UnicodeString "calc.exe"), %2 Count (UInt32 31),
// %3 Delta (Int32 -5), %4 State (UInt32 1 mapped to "Running "),
// %5 Big (UInt64 2^40+1), %6 Ch (UInt16 0x41), %7 Ratio (Double 0.25),
// %8 Flags (HexInt32 0x1F), %9 Short (UInt32 0x12345678), %10 Zero (UInt32 0).
func msgEvent(t *testing.T, src Source) *Decoded {
	t.Helper()
	state := rWithMap(rProp("State", InTypeUInt32, 0), ValueMap, MapEntry{1, "Running "}, MapEntry{2, "Stopped"})
	e := &Event{Source: src, Properties: []Property{
		rProp("Name", InTypeUnicodeString, 0),
		rProp("Count", InTypeUInt32, 0),
		rProp("Delta", InTypeInt32, 0),
		state,
		rProp("Big", InTypeUInt64, 0),
		rProp("Ch", InTypeUInt16, 0),
		rProp("Ratio", InTypeDouble, 0),
		rProp("Flags", InTypeHexInt32, 0),
		rProp("Short", InTypeUInt32, 0),
		rProp("Zero", InTypeUInt32, 0),
	}}
	payload := rCat(rUtf16z("calc.exe"), rU32(31), rU32(0xFFFFFFFB), rU32(1), rU64(1<<40+1), rU16(0x41),
		rF64(0.25), rU32(0x1F), rU32(0x12345678), rU32(0))
	var dec Decoder
	d, err := dec.Decode(e, payload, 8)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestFormatMessage(t *testing.T) {
	d := msgEvent(t, SourceManifest)
	cases := []struct{ msg, want string }{
		{"Process %1 started with %2 threads.", "Process calc.exe started with 31 threads."},
		{"no inserts", "no inserts"},
		{"", ""},
		{"%1%2", "calc.exe31"},
		{"%10|%1 0", "0|calc.exe 0"},
		{"state=%4.", "state=Running ."},
		{"delta %3", "delta -5"},
		{"flags %8", "flags 0x1F"},
		{"ratio %7", "ratio 0.25"},
		// escapes
		{"100%% done%.", "100% done."},
		{"a%nb", "a\r\nb"},
		{"a%rb%tc", "a\rb\tc"},
		{"x% y%!z", "x y!z"},
		{"keep%q", "keepq"},
		{"%é", "é"},
		{"end%", "end%"},
		{"cut%0 here", "cut"},
		{"%1%0", "calc.exe"},
		// parameter inserts stay as written
		{"%%1936 and %%1", "%%1936 and %%1"},
		// out-of-range inserts stay literal, with their format
		{"%11 %12!d! %99", "%11 %12!d! %99"},
		// %n!fmt!
		{"%1!s!", "calc.exe"},
		{"%1!S!", "calc.exe"},
		{"[%1!10s!]", "[  calc.exe]"},
		{"[%1!-10s!]", "[calc.exe  ]"},
		{"[%1!.4s!]", "[calc]"},
		{"[%1!6.2s!]", "[    ca]"},
		{"%2!d!", "31"},
		{"%2!u!", "31"},
		{"%2!x!", "1f"},
		{"%2!X!", "1F"},
		{"%2!#x!", "0x1f"},
		{"%10!#x!", "0"},
		{"%2!08X!", "0000001F"},
		{"%2!-5d!|", "31   |"},
		{"%2!+d!", "+31"},
		{"%2!o!", "37"},
		{"%2!lu!", "31"},
		{"%2!ld!", "31"},
		{"%2!lx!", "1f"},
		{"%3!d!", "-5"},
		{"%3!ld!", "-5"},
		{"%3!u!", "4294967291"},
		{"%3!x!", "fffffffb"},
		{"%3!I64d!", "-5"},
		{"%3!I64u!", "18446744073709551611"},
		{"%5!I64u!", "1099511627777"},
		{"%5!I64x!", "10000000001"},
		{"%5!I64d!", "1099511627777"},
		{"%5!u!", "1"}, // 32-bit conversion of a 64-bit value
		{"%9!hu!", "22136"},
		{"%9!hhx!", "78"},
		{"%6!c!", "A"},
		{"%6!wc!", "A"},
		{"%4!u!", "1"},        // an integer conversion formats the number, not the map text
		{"%4!s!", "Running "}, // the text keeps the map
		{"%1!d!", "calc.exe"}, // not an integer: the text
		{"%7!f!", "0.25"},     // floating point is not supported: the text
		{"%2!*d!", "31"},      // unsupported format: the text
		{"%8!p!", "000000000000001F"},
		{"%1!d", "calc.exe!d"}, // unterminated format
		{"%2!!", "31"},
	}
	for _, c := range cases {
		if got := FormatMessage(c.msg, d, nil); got != c.want {
			t.Errorf("FormatMessage(%q) = %q, want %q", c.msg, got, c.want)
		}
	}
}

// TestFormatMessageHugeInsert: insert numbers and widths past any integer
// type render as text (an insert is at most two digits, as FormatMessage
// reads it: %4294967296 is %42 then "94967296"; widths are clamped),
// never as a message cut short (2^32 taken modulo 32 bits would be %0,
// the end of the message).
func TestFormatMessageHugeInsert(t *testing.T) {
	d := msgEvent(t, SourceManifest)
	for _, c := range []struct{ msg, want string }{
		{"a %4294967296 b", "a %4294967296 b"},
		{"a %18446744073709551616 b", "a %18446744073709551616 b"},
		{"a %4294967296!d! b", "a %4294967296!d! b"},
		{"a %1!.4294967296s! b", "a calc.exe b"},
		{"a %10%4294967296 b", "a 0%4294967296 b"},
		{"a %2!.18446744073709551616d! b", "a " + strings.Repeat("0", maxFormatWidth-2) + "31 b"},
	} {
		if got := FormatMessage(c.msg, d, nil); got != c.want {
			t.Errorf("FormatMessage(%q) = %q, want %q", c.msg, got, c.want)
		}
	}
	if got := FormatMessage("a %2!4294967296d! b", d, nil); got != "a "+strings.Repeat(" ", maxFormatWidth-2)+"31 b" {
		t.Errorf("a width of 2^32: %q", got)
	}
}

func TestFormatMessageNoEvent(t *testing.T) {
	for _, c := range []struct{ msg, want string }{
		{"%1 and %2!d!", "%1 and %2!d!"},
		{"a%nb%%c", "a\r\nb%c"},
	} {
		if got := FormatMessage(c.msg, nil, nil); got != c.want {
			t.Errorf("FormatMessage(%q, nil) = %q, want %q", c.msg, got, c.want)
		}
	}
}

func TestFormatMessageOptions(t *testing.T) {
	e := &Event{Source: SourceMOF, Properties: []Property{
		rProp("Size", InTypeUInt32, 0),
		rProp("Ptr", InTypePointer, 0),
	}}
	var dec Decoder
	d, err := dec.Decode(e, rCat(rU32(8192), rU32(0xABC)), 4)
	if err != nil {
		t.Fatal(err)
	}
	if got := FormatMessage("[%1] %2 %2!p! %2!Ix!", d, &RenderOptions{MOFPadding: true}); got != "[    8192] 0xABC 00000ABC abc" {
		t.Errorf("got %q", got)
	}
	if got := FormatMessage("[%1] [%1!d!]", d, nil); got != "[8192] [8192]" {
		t.Errorf("got %q", got)
	}
}

func TestParsePrintf(t *testing.T) {
	for _, c := range []struct {
		s    string
		ok   bool
		bits int
		conv byte
	}{
		{"d", true, 32, 'd'}, {"I64u", true, 64, 'u'}, {"I32x", true, 32, 'x'}, {"lu", true, 32, 'u'},
		{"hd", true, 16, 'd'}, {"llX", true, 64, 'X'}, {"Id", true, 64, 'd'}, {"-08.3hhx", true, 8, 'x'},
		{"", false, 0, 0}, {"dd", false, 0, 0}, {"*d", false, 0, 0}, {"I64", false, 0, 0},
	} {
		f, ok := parsePrintf(c.s, 8)
		if ok != c.ok || ok && (f.bits != c.bits || f.conversion != c.conv) {
			t.Errorf("parsePrintf(%q) = %+v, %v", c.s, f, ok)
		}
	}
	if f, _ := parsePrintf("99999999999999d", 8); f.width != maxFormatWidth {
		t.Errorf("width not clamped: %d", f.width)
	}
}
