package pdb

import (
	"errors"
	"math/rand"
	"os/exec"
	"strings"
	"testing"
)

// undnameCases are decorated names with llvm-undname's answers (captured
// from llvm-undname 14; TestUndecorateLLVM asks the tool again when it is
// installed).
var undnameCases = []struct{ in, full, name string }{
	{"?get@C@ns@@QEBAHXZ", "public: int __cdecl ns::C::get(void) const", "ns::C::get"},
	{"?s@C@ns@@SAHHD@Z", "public: static int __cdecl ns::C::s(int, char)", "ns::C::s"},
	{"??$twice@_J@ns@@YA_J_J@Z", "__int64 __cdecl ns::twice<__int64>(__int64)", "ns::twice<__int64>"},
	{"?f@@YAXPEAH@Z", "void __cdecl f(int *)", "f"},
	{"?f@@YAXPAHAAHPBD@Z", "void __cdecl f(int *, int &, char const *)", "f"},
	{"?cout@std@@3V?$basic_ostream@DU?$char_traits@D@std@@@1@A", "class std::basic_ostream<char, struct std::char_traits<char>> std::cout", "std::cout"},
	{"??0C@@QAE@XZ", "public: __thiscall C::C(void)", "C::C"},
	{"??1C@@UAE@XZ", "public: virtual __thiscall C::~C(void)", "C::~C"},
	{"?m@C@@UAEXXZ", "public: virtual void __thiscall C::m(void)", "C::m"},
	{"??6?$basic_ostream@DU?$char_traits@D@std@@@std@@QAEAAV01@H@Z", "public: class std::basic_ostream<char, struct std::char_traits<char>> & __thiscall std::basic_ostream<char, struct std::char_traits<char>>::operator<<(int)", "std::basic_ostream<char, struct std::char_traits<char>>::operator<<"},
	{"?f@@YGXXZ", "void __stdcall f(void)", "f"},
	{"?f@@YIXXZ", "void __fastcall f(void)", "f"},
	{"?x@@3HA", "int x", "x"},
	{"?f@@YAXAEBV?$vector@H@std@@@Z", "void __cdecl f(class std::vector<int> const &)", "f"},
	{"?g@@YAX_N_K_W@Z", "void __cdecl g(bool, unsigned __int64, wchar_t)", "g"},
	{"??$?6U?$char_traits@D@std@@@std@@YAAAV?$basic_ostream@DU?$char_traits@D@std@@@0@AAV10@PBD@Z", "class std::basic_ostream<char, struct std::char_traits<char>> & __cdecl std::operator<<<struct std::char_traits<char>>(class std::basic_ostream<char, struct std::char_traits<char>> &, char const *)", "std::operator<<<struct std::char_traits<char>>"},
	{"?f@@YAXPAPAH@Z", "void __cdecl f(int **)", "f"},
	{"?f@@YAXQAH@Z", "void __cdecl f(int *const)", "f"},
	{"?f@@YAXP6AHH@Z@Z", "void __cdecl f(int (__cdecl *)(int))", "f"},
	{"?f@@YAHZZ", "int __cdecl f(...)", "f"},
	{"?f@@YAXHZZ", "void __cdecl f(int, ...)", "f"},
	{"?f@A@B@@AAEXXZ", "private: void __thiscall B::A::f(void)", "B::A::f"},
	{"?f@A@@IAEXXZ", "protected: void __thiscall A::f(void)", "A::f"},
	{"?f@A@@KAXXZ", "protected: static void __cdecl A::f(void)", "A::f"},
	{"?f@@YAX$$QAH@Z", "void __cdecl f(int &&)", "f"},
	{"?f@@YAXW4E@@@Z", "void __cdecl f(enum E)", "f"},
	{"??$f@$0A@@@YAXXZ", "void __cdecl f<0>(void)", "f<0>"},
	{"??$f@$00@@YAXXZ", "void __cdecl f<1>(void)", "f<1>"},
	{"??$f@$0BA@@@YAXXZ", "void __cdecl f<16>(void)", "f<16>"},
	{"??$f@$0?0@@YAXXZ", "void __cdecl f<-1>(void)", "f<-1>"},
	{"?f@@YAXPEBUS@@@Z", "void __cdecl f(struct S const *)", "f"},
	{"??_GC@@UAEPAXI@Z", "public: virtual void * __thiscall C::`scalar deleting dtor'(unsigned int)", "C::`scalar deleting dtor'"},
	{"?f@?A0x1234@@YAXXZ", "void __cdecl `anonymous namespace'::f(void)", "`anonymous namespace'::f"},
	{"?f@@YAXPEAPEAH@Z", "void __cdecl f(int **)", "f"},
	{"?f@@YAXPEIAH@Z", "void __cdecl f(int *__restrict)", "f"},
	{"??$f@H$0A@@@YAXXZ", "void __cdecl f<int, 0>(void)", "f<int, 0>"},
	{"??$f@HH@@YAXHH@Z", "void __cdecl f<int, int>(int, int)", "f<int, int>"},
	{"?f@@YAXU?$S@H@@0@Z", "void __cdecl f(struct S<int>, struct S<int>)", "f"},
	{"?f@@YAXVA@@0@Z", "void __cdecl f(class A, class A)", "f"},
	{"??4C@@QAEAAV0@ABV0@@Z", "public: class C & __thiscall C::operator=(class C const &)", "C::operator="},
	{"??8C@@QBE_NABV0@@Z", "public: bool __thiscall C::operator==(class C const &) const", "C::operator=="},
	{"??RC@@QAEXXZ", "public: void __thiscall C::operator()(void)", "C::operator()"},
	{"??2@YAPAXI@Z", "void * __cdecl operator new(unsigned int)", "operator new"},
	{"??3@YAXPAX@Z", "void __cdecl operator delete(void *)", "operator delete"},
	{"?f@@YAXMNO@Z", "void __cdecl f(float, double, long double)", "f"},
	{"?f@@YAXEFGIJK@Z", "void __cdecl f(unsigned char, short, unsigned short, unsigned int, long, unsigned long)", "f"},
	{"?f@@YA_JXZ", "__int64 __cdecl f(void)", "f"},
	{"?p@@3PEAHEA", "int *p", "p"},
	{"?x@C@@2HA", "public: static int C::x", "C::x"},
	{"?x@C@@0HB", "private: static int const C::x", "C::x"},
	{"?x@@3HB", "int const x", "x"},
	{"??0?$vector@H@std@@QAE@XZ", "public: __thiscall std::vector<int>::vector<int>(void)", "std::vector<int>::vector<int>"},
	{"??1?$vector@H@std@@QAE@XZ", "public: __thiscall std::vector<int>::~vector<int>(void)", "std::vector<int>::~vector<int>"},
	{"?f@@YA?AVA@@XZ", "class A __cdecl f(void)", "f"},
	{"?f@@YA?BHXZ", "int const __cdecl f(void)", "f"},
	{"?f@@YAXPBQAH@Z", "void __cdecl f(int *const *)", "f"},
	{"?f@@YAXABQAH@Z", "void __cdecl f(int *const &)", "f"},
	{"?f@@YAXV?$S@V?$S@H@@@@@Z", "void __cdecl f(class S<class S<int>>)", "f"},
	{"?f@@YAXP6AXXZP6AXXZ@Z", "void __cdecl f(void (__cdecl *)(void), void (__cdecl *)(void))", "f"},
	{"?f@@YAX_W_S_U_Q@Z", "void __cdecl f(wchar_t, char16_t, char32_t, char8_t)", "f"},
	{"?f@@YAXPBPBD@Z", "void __cdecl f(char const *const *)", "f"},
	{"?f@@YAXPAPBD@Z", "void __cdecl f(char const **)", "f"},
	{"?f@@YAXPBQBD@Z", "void __cdecl f(char const *const *)", "f"},
	{"?f@@YAXPBX@Z", "void __cdecl f(void const *)", "f"},
	{"??_EC@@UAEPAXI@Z", "public: virtual void * __thiscall C::`vector deleting dtor'(unsigned int)", "C::`vector deleting dtor'"},
	{"?f@?$C@H@@QAEXV1@@Z", "public: void __thiscall C<int>::f(class C<int>)", "C<int>::f"},
	{"?f@@YAXPAU?$S@H@@PAU1@@Z", "void __cdecl f(struct S<int> *, struct S<int> *)", "f"},
	{"?f@x@@YAXVx@@@Z", "void __cdecl x::f(class x)", "x::f"},
	{"?Initialize@CThreadPool@@QEAAJPEAUHWND__@@K@Z", "public: long __cdecl CThreadPool::Initialize(struct HWND__*, unsigned long)", "CThreadPool::Initialize"},
	{"?QueryInterface@CUnknown@@UEAAJAEBU_GUID@@PEAPEAX@Z", "public: virtual long __cdecl CUnknown::QueryInterface(struct _GUID const &, void **)", "CUnknown::QueryInterface"},
	{"?GetName@Obj@@QEBAAEBV?$basic_string@_WU?$char_traits@_W@std@@V?$allocator@_W@2@@std@@XZ", "public: class std::basic_string<wchar_t, struct std::char_traits<wchar_t>, class std::allocator<wchar_t>> const & __cdecl Obj::GetName(void) const", "Obj::GetName"},
	{"??$make_unique@VFoo@@$$V@std@@YA?AV?$unique_ptr@VFoo@@U?$default_delete@VFoo@@@std@@@0@XZ", "class std::unique_ptr<class Foo, struct std::default_delete<class Foo>> __cdecl std::make_unique<class Foo>(void)", "std::make_unique<class Foo>"},
	{"?s_instance@Singleton@@0PEAV1@EA", "private: static class Singleton *Singleton::s_instance", "Singleton::s_instance"},
	{"?Log@@YAXPEBDZZ", "void __cdecl Log(char const *, ...)", "Log"},
	{"??$forward@AEAH@std@@YAAEAHAEAH@Z", "int & __cdecl std::forward<int &>(int &)", "std::forward<int &>"},
	{"?Swap@@YAXAEAPEAH0@Z", "void __cdecl Swap(int *&, int *&)", "Swap"},
	{"?Callback@@YGJPAUHWND__@@IIJ@Z", "long __stdcall Callback(struct HWND__*, unsigned int, unsigned int, long)", "Callback"},
	{"??Hx@@YA?AV0@ABV0@0@Z", "class x __cdecl x::operator+(class x const &, class x const &)", "x::operator+"},
}

// notUndecorated are names the undecorator must leave alone (it cannot
// spell them as llvm-undname does, or they are not C++ names).
var notUndecorated = []string{
	"main", "_exit", "@__security_check_cookie@4", "__imp_?cout@std@@3V?$basic_ostream@DU?$char_traits@D@std@@@1@A",
	"??_C@_0M@ABCDEFGH@hello?5world?$AA@", "??_R0?AVtype_info@@@8", "?f@@YAXAAY02H@Z",
	"??R<lambda_1>@?0??Run@Worker@@QEAAXXZ@QEBA?A?<auto>@@XZ", "?f@@YAXP8C@@AEXXZ@Z", "?g@@YAXQAY03H@Z",
	"??$h@$1?x@@3HA@@YAXXZ", "??_7Widget@@6B@", "??_R4Widget@@6B@",
	"?", "??", "?f@@", "?f@@YA", "?f@@YAXH", "?f@@YAX9@Z", "?f@@YAXXZjunk",
}

func TestUndecorate(t *testing.T) {
	for _, c := range undnameCases {
		full, ok := Undecorate(c.in)
		if !ok || full != c.full {
			t.Errorf("Undecorate(%q) = %q, %v; want %q", c.in, full, ok, c.full)
		}
		name, ok := UndecorateName(c.in)
		if !ok || name != c.name {
			t.Errorf("UndecorateName(%q) = %q, %v; want %q", c.in, name, ok, c.name)
		}
	}
	for _, in := range notUndecorated {
		if full, ok := Undecorate(in); ok {
			t.Errorf("Undecorate(%q) = %q; want no answer", in, full)
		}
	}
}

// llvmUndname runs llvm-undname over names and returns its answer for
// each (empty when it reports an error).
func llvmUndname(t *testing.T, names []string) map[string]string {
	t.Helper()
	if _, err := exec.LookPath("llvm-undname"); err != nil {
		t.Skip("llvm-undname not installed: names not compared with it")
	}
	cmd := exec.Command("llvm-undname")
	cmd.Stdin = strings.NewReader(strings.Join(names, "\n") + "\n")
	out, err := cmd.Output()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		// llvm-undname exits 1 when some name is invalid; its answers
		// for the others stand.
		t.Fatalf("llvm-undname: %v", err)
	}
	// Each input gives "input\nanswer\n\n", or "input\n\n" when
	// llvm-undname cannot read it (its error goes to stderr).
	lines := strings.Split(string(out), "\n")
	res := make(map[string]string, len(names))
	k := 0
	for _, n := range names {
		if k >= len(lines) || lines[k] != n {
			t.Fatalf("llvm-undname: line %d is not the input %q", k+1, n)
		}
		k++
		if k < len(lines) && lines[k] != "" {
			res[n] = lines[k]
			k++
		}
		if k < len(lines) && lines[k] == "" {
			k++
		}
	}
	return res
}

// checkUndecorated compares Undecorate with llvm-undname for names; every
// answer Undecorate gives must be llvm-undname's, and its short name must
// be part of it. It returns how many names were undecorated.
func checkUndecorated(t *testing.T, names []string) int {
	t.Helper()
	var cpp []string
	for _, n := range names {
		if strings.HasPrefix(n, "?") {
			cpp = append(cpp, n)
		}
	}
	if len(cpp) == 0 {
		return 0
	}
	ref := llvmUndname(t, cpp)
	n := 0
	for _, in := range cpp {
		full, ok := Undecorate(in)
		if !ok {
			continue
		}
		n++
		if full != ref[in] {
			t.Errorf("Undecorate(%q) = %q; llvm-undname says %q", in, full, ref[in])
		}
		if short, _ := UndecorateName(in); !strings.Contains(full, short) {
			t.Errorf("UndecorateName(%q) = %q is not part of %q", in, short, full)
		}
	}
	return n
}

func TestUndecorateLLVM(t *testing.T) {
	var names []string
	for _, c := range undnameCases {
		names = append(names, c.in)
	}
	if n := checkUndecorated(t, names); n != len(undnameCases) {
		t.Errorf("%d of %d names undecorated", n, len(undnameCases))
	}
}

func FuzzUndecorate(f *testing.F) {
	for _, c := range undnameCases {
		f.Add(c.in)
	}
	for _, c := range notUndecorated {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, s string) {
		full, ok := Undecorate(s)
		name, ok2 := UndecorateName(s)
		if ok != ok2 || (ok && !strings.Contains(full, name)) {
			t.Fatalf("%q: full %q %v, name %q %v", s, full, ok, name, ok2)
		}
	})
}

func TestUndecorateX86C(t *testing.T) {
	for in, want := range map[string]string{
		"_main": "main", "_Sleep@4": "Sleep", "@fast@8": "fast", "___security_cookie": "__security_cookie",
		"__SEH_prolog4": "_SEH_prolog4", "_f@1024": "f",
		"__imp__Sleep@4": "", "main": "", "_": "", "@x": "", "@@4": "", "_x@12345": "", "_x@a": "",
		"?f@@YAXXZ": "", "__real@4000000000000000": "", "_a@b@4": "",
	} {
		got, ok := undecorateX86C(in)
		if ok != (want != "") || got != want {
			t.Errorf("undecorateX86C(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
}

// TestUndecorateMutations holds the undecorator to llvm-undname on names
// near the real ones: every one-character change, insertion and deletion
// of every case, then random runs of up to five such edits. Whatever
// Undecorate answers must be llvm-undname's answer (where it gives up is
// free): it never names a symbol wrongly.
func TestUndecorateMutations(t *testing.T) {
	const alphabet = "ABCDEFGHIJKMNOPQRSTUVWXYZ0123456789@$?_"
	seen := map[string]bool{}
	var names []string
	add := func(m string) {
		if !seen[m] {
			seen[m] = true
			if _, ok := Undecorate(m); ok {
				names = append(names, m)
			}
		}
	}
	for _, c := range undnameCases {
		for i := 1; i < len(c.in); i++ {
			for _, r := range alphabet {
				add(c.in[:i] + string(r) + c.in[i+1:])
				add(c.in[:i] + string(r) + c.in[i:])
			}
			add(c.in[:i] + c.in[i+1:])
		}
	}
	r := rand.New(rand.NewSource(1))
	for k := 0; k < 300000; k++ {
		m := undnameCases[r.Intn(len(undnameCases))].in
		for e := 0; e < 1+r.Intn(5) && len(m) > 2; e++ {
			i := 1 + r.Intn(len(m)-1)
			ch := string(alphabet[r.Intn(len(alphabet))])
			switch r.Intn(3) {
			case 0:
				m = m[:i] + ch + m[i+1:]
			case 1:
				m = m[:i] + ch + m[i:]
			default:
				m = m[:i] + m[i+1:]
			}
		}
		add(m)
	}
	n := checkUndecorated(t, names)
	t.Logf("%d of %d edited names undecorated, each as llvm-undname", n, len(seen))
}
