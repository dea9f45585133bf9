package pdb

import (
	"strconv"
	"strings"
	"sync"
)

// Undecorate returns the full undecorated form of an MSVC-decorated C++
// name, spelled as llvm-undname and MSVC's undname print it:
// "public: int __cdecl ns::C::get(void) const". It reads the common
// forms — functions and variables in namespaces and classes, operators,
// constructors and destructors, calling conventions, parameter and return
// types with const, pointers and references, function pointers,
// templates with type and integer arguments, back-references — and
// reports ok false for anything else (string literals, RTTI, thunks,
// arrays, member pointers, …) rather than guess.
func Undecorate(name string) (string, bool) {
	sym, ok := undecorate(name)
	if !ok {
		return "", false
	}
	return sym.full(), true
}

// UndecorateName returns the qualified name of an MSVC-decorated C++ name
// without its type: "ns::C::get", "std::max<int>" (as [Undecorate] spells
// them). ok is false where Undecorate's is.
func UndecorateName(name string) (string, bool) {
	sym, ok := undecorate(name)
	if !ok {
		return "", false
	}
	return sym.name, true
}

// maxDecorated bounds the names the undecorator reads.
const maxDecorated = 4096

// maxDepth bounds the nesting of types and template arguments.
const maxDepth = 32

type undSym struct {
	name string // qualified name
	// Function parts.
	isFunc  bool
	access  string // "public: ", …
	static  bool
	virtual bool
	ret     string // empty for structors
	cc      string
	params  string
	quals   string // " const" after the parameters
	// Variable parts.
	varType string
}

func (s *undSym) full() string {
	var b strings.Builder
	b.WriteString(s.access)
	if s.static {
		b.WriteString("static ")
	}
	if s.virtual {
		b.WriteString("virtual ")
	}
	if !s.isFunc {
		b.WriteString(spaceIfNeeded(s.varType))
		b.WriteString(s.name)
		return b.String()
	}
	if s.ret != "" {
		b.WriteString(s.ret)
		b.WriteString(" ")
	}
	b.WriteString(s.cc)
	b.WriteString(" ")
	b.WriteString(s.name)
	b.WriteString("(")
	b.WriteString(s.params)
	b.WriteString(")")
	b.WriteString(s.quals)
	return b.String()
}

// backrefs are the two back-reference tables of a mangling context.
type backrefs struct {
	names []string
	types []string
}

type undParser struct {
	s     string
	pos   int
	fail  bool
	depth int
	br    backrefs
	// fnptr tells that the type just read is a function pointer.
	fnptr bool
	// pending is the qualifier a pointer's code gives its pointee when
	// that is a pointer: it is printed after the pointee's '*'.
	pending string
}

func undecorate(name string) (undSym, bool) {
	if len(name) < 2 || name[0] != '?' || len(name) > maxDecorated {
		return undSym{}, false
	}
	p := &undParser{s: name, pos: 1}
	sym := p.symbol()
	if p.fail || p.pos != len(p.s) {
		return undSym{}, false
	}
	return sym, true
}

func (p *undParser) peek() byte {
	if p.pos >= len(p.s) {
		return 0
	}
	return p.s[p.pos]
}

func (p *undParser) eat(prefix string) bool {
	if strings.HasPrefix(p.s[p.pos:], prefix) {
		p.pos += len(prefix)
		return true
	}
	return false
}

func (p *undParser) next() byte {
	if p.pos >= len(p.s) {
		p.fail = true
		return 0
	}
	c := p.s[p.pos]
	p.pos++
	return c
}

func (p *undParser) memoName(n string) {
	for _, x := range p.br.names {
		if x == n {
			return
		}
	}
	if len(p.br.names) < 10 {
		p.br.names = append(p.br.names, n)
	}
}

// symbol reads a whole decorated name after its leading '?'.
func (p *undParser) symbol() undSym {
	var sym undSym
	// The unqualified name: an operator or structor code, a template
	// instance, or a simple name.
	var leaf string
	structor := 0 // 1 constructor, 2 destructor
	switch c := p.peek(); {
	case c >= '0' && c <= '9':
		p.pos++
		if int(c-'0') >= len(p.br.names) {
			p.fail = true
			return sym
		}
		leaf = p.br.names[c-'0']
	case p.eat("?$"):
		leaf = p.templateName()
	case c == '?':
		p.pos++
		leaf, structor = p.operatorName()
	default:
		leaf = p.simpleName(true)
	}
	scopes := p.scopeChain()
	if p.fail {
		return sym
	}
	if structor != 0 {
		if len(scopes) == 0 {
			p.fail = true
			return sym
		}
		leaf = scopes[0]
		if structor == 2 {
			leaf = "~" + leaf
		}
	}
	sym.name = qualify(scopes, leaf)
	c := p.next()
	switch {
	case c >= '0' && c <= '4':
		sym.access = [...]string{"private: ", "protected: ", "public: ", "", ""}[c-'0']
		sym.static = c <= '2'
		ptr := isPointerCode(p.peek(), true) || strings.HasPrefix(p.s[p.pos:], "$$Q")
		t := p.typ()
		if ptr {
			// A pointer variable: __ptr64, then qualifiers of the
			// pointee, which are not read here.
			p.eat("E")
			if p.next() != 'A' {
				p.fail = true
			}
			sym.varType = t
		} else if q := p.cvQuals(); q != "" {
			sym.varType = t + " " + q
		} else {
			sym.varType = t
		}
	default:
		sym.isFunc = true
		member := true
		switch c {
		case 'A', 'B', 'C', 'D', 'E', 'F':
			sym.access = "private: "
		case 'I', 'J', 'K', 'L', 'M', 'N':
			sym.access = "protected: "
		case 'Q', 'R', 'S', 'T', 'U', 'V':
			sym.access = "public: "
		case 'Y', 'Z':
			member = false
		default:
			p.fail = true
			return sym
		}
		if member {
			switch c {
			case 'C', 'D', 'K', 'L', 'S', 'T':
				sym.static = true
			case 'E', 'F', 'M', 'N', 'U', 'V':
				sym.virtual = true
			}
			if !sym.static {
				sym.quals = p.thisQuals()
			}
		}
		sym.cc = p.callConv()
		if structor != 0 {
			if !p.eat("@") {
				p.fail = true
			}
		} else {
			sym.ret = p.returnType()
		}
		sym.params = p.params()
		p.throwSpec()
	}
	return sym
}

func qualify(scopes []string, leaf string) string {
	var b strings.Builder
	for i := len(scopes) - 1; i >= 0; i-- {
		b.WriteString(scopes[i])
		b.WriteString("::")
	}
	b.WriteString(leaf)
	return b.String()
}

// simpleName reads chars up to '@' (a name never starts with a digit:
// that is a back-reference).
func (p *undParser) simpleName(memo bool) string {
	i := strings.IndexByte(p.s[p.pos:], '@')
	if i <= 0 || p.s[p.pos] >= '0' && p.s[p.pos] <= '9' {
		p.fail = true
		return ""
	}
	n := p.s[p.pos : p.pos+i]
	p.pos += i + 1
	if memo {
		p.memoName(n)
	}
	return n
}

// templateName reads "name@args@" after "?$" in a fresh back-reference
// context and returns "name<args>".
func (p *undParser) templateName() string {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxDepth {
		p.fail = true
		return ""
	}
	outer := p.br
	p.br = backrefs{}
	var name string
	if p.peek() == '?' {
		p.pos++
		var structor int
		name, structor = p.operatorName()
		if structor != 0 {
			p.fail = true
		}
	} else {
		name = p.simpleName(true)
	}
	args := p.templateArgs()
	p.br = outer
	return name + "<" + args + ">"
}

func (p *undParser) templateArgs() string {
	var args []string
	for !p.fail && !p.eat("@") {
		switch {
		case p.eat("$0"):
			args = append(args, p.number())
		case p.eat("$$V"):
			// An empty template parameter pack: no argument.
		case p.peek() == '$' || p.peek() == '?':
			p.fail = true
		default:
			args = append(args, p.typ())
		}
	}
	return strings.Join(args, ", ")
}

// number reads an encoded integer: optional '?' (negative), then a digit
// (value+1) or hex digits A–P ended by '@'.
func (p *undParser) number() string {
	neg := p.eat("?")
	var v uint64
	c := p.next()
	switch {
	case c >= '0' && c <= '9':
		v = uint64(c-'0') + 1
	case c >= 'A' && c <= 'P':
		v = uint64(c - 'A')
		for n := 0; ; n++ {
			c = p.next()
			if c == '@' {
				break
			}
			if c < 'A' || c > 'P' || n >= 16 {
				p.fail = true
				return ""
			}
			v = v<<4 | uint64(c-'A')
		}
	default:
		p.fail = true
		return ""
	}
	s := strconv.FormatUint(v, 10)
	if neg {
		s = "-" + s
	}
	return s
}

// operatorName reads the code after '?' of an operator, structor or
// special function name.
func (p *undParser) operatorName() (string, int) {
	c := p.next()
	switch c {
	case '0':
		return "", 1
	case '1':
		return "", 2
	case '_':
		c2 := p.next()
		if n, ok := operators2[c2]; ok {
			return n, 0
		}
		p.fail = true
		return "", 0
	}
	if n, ok := operators()[c]; ok {
		return n, 0
	}
	p.fail = true
	return "", 0
}

var operators = sync.OnceValue(func() map[byte]string {
	return map[byte]string{
		'2': "operator new", '3': "operator delete", '4': "operator=", '5': "operator>>",
		'6': "operator<<", '7': "operator!", '8': "operator==", '9': "operator!=",
		'A': "operator[]", 'C': "operator->", 'D': "operator*", 'E': "operator++",
		'F': "operator--", 'G': "operator-", 'H': "operator+", 'I': "operator&",
		'J': "operator->*", 'K': "operator/", 'L': "operator%", 'M': "operator<",
		'N': "operator<=", 'O': "operator>", 'P': "operator>=", 'Q': "operator,",
		'R': "operator()", 'S': "operator~", 'T': "operator^", 'U': "operator|",
		'V': "operator&&", 'W': "operator||", 'X': "operator*=", 'Y': "operator+=",
		'Z': "operator-=",
	}
})

var operators2 = map[byte]string{
	'0': "operator/=", '1': "operator%=", '2': "operator>>=", '3': "operator<<=",
	'4': "operator&=", '5': "operator|=", '6': "operator^=",
	'E': "`vector deleting dtor'", 'G': "`scalar deleting dtor'",
	'U': "operator new[]", 'V': "operator delete[]",
}

// scopeChain reads name fragments up to the '@' that ends a qualified
// name, innermost first.
func (p *undParser) scopeChain() []string {
	var out []string
	for !p.fail {
		if p.eat("@") {
			return out
		}
		if len(out) > maxDepth {
			p.fail = true
			return nil
		}
		out = append(out, p.scopePiece())
	}
	return nil
}

func (p *undParser) scopePiece() string {
	c := p.peek()
	switch {
	case c >= '0' && c <= '9':
		p.pos++
		if int(c-'0') >= len(p.br.names) {
			p.fail = true
			return ""
		}
		return p.br.names[c-'0']
	case p.eat("?$"):
		n := p.templateName()
		p.memoName(n)
		return n
	case p.eat("?A"):
		// Anonymous namespace: ?A0x<hex>@
		if i := strings.IndexByte(p.s[p.pos:], '@'); i >= 0 {
			p.memoName(p.s[p.pos : p.pos+i])
			p.pos += i + 1
			return "`anonymous namespace'"
		}
		p.fail = true
		return ""
	case c == '?':
		p.fail = true // local scopes, nested symbols
		return ""
	}
	return p.simpleName(true)
}

// fullTypeName reads a qualified type name (after T/U/V/W4).
func (p *undParser) fullTypeName() string {
	var leaf string
	c := p.peek()
	switch {
	case c >= '0' && c <= '9':
		p.pos++
		if int(c-'0') >= len(p.br.names) {
			p.fail = true
			return ""
		}
		leaf = p.br.names[c-'0']
	case p.eat("?$"):
		leaf = p.templateName()
		p.memoName(leaf)
	case c == '?':
		p.fail = true
		return ""
	default:
		leaf = p.simpleName(true)
	}
	return qualify(p.scopeChain(), leaf)
}

var primitives = sync.OnceValue(func() map[byte]string {
	return map[byte]string{
		'C': "signed char", 'D': "char", 'E': "unsigned char", 'F': "short",
		'G': "unsigned short", 'H': "int", 'I': "unsigned int", 'J': "long",
		'K': "unsigned long", 'M': "float", 'N': "double", 'O': "long double",
		'X': "void",
	}
})

var primitives2 = map[byte]string{
	'N': "bool", 'J': "__int64", 'K': "unsigned __int64", 'W': "wchar_t",
	'S': "char16_t", 'U': "char32_t", 'Q': "char8_t",
}

// typ reads one type; p.fnptr tells whether it is a function pointer.
func (p *undParser) typ() string {
	p.fnptr = false
	t := p.typ1()
	return t
}

func (p *undParser) typ1() string {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxDepth {
		p.fail = true
		return ""
	}
	c := p.next()
	if n, ok := primitives()[c]; ok {
		return n
	}
	switch c {
	case '_':
		if n, ok := primitives2[p.next()]; ok {
			return n
		}
	case 'T':
		return p.tagType("union ")
	case 'U':
		return p.tagType("struct ")
	case 'V':
		return p.tagType("class ")
	case 'W':
		if p.eat("4") {
			return p.tagType("enum ")
		}
	case 'P', 'Q', 'R', 'S':
		return p.pointer(c, "*")
	case 'A':
		return p.pointer(c, "&")
	case '$':
		if p.eat("$Q") {
			return p.pointer('A', "&&")
		}

	}
	p.fail = true
	return ""
}

// tagType reads the qualified name of a union, struct, class or enum.
func (p *undParser) tagType(kw string) string {
	n := p.fullTypeName()
	p.fnptr = false // function pointers among template arguments
	return kw + n
}

// pointer reads the rest of a pointer or reference type.
func (p *undParser) pointer(kind byte, op string) string {
	var own string
	switch kind {
	case 'Q':
		own = "const"
	case 'R':
		own = "volatile"
	case 'S':
		own = "const volatile"
	}
	if p.pending != "" {
		if own != "" && own != p.pending {
			p.fail = true
			return ""
		}
		own = p.pending
		p.pending = ""
	}
	if p.eat("6") {
		if kind != 'P' {
			p.fail = true
			return ""
		}
		cc := p.callConv()
		ret := p.returnType()
		params := p.params()
		p.throwSpec()
		p.fnptr = true
		return ret + " (" + cc + " " + op + ")(" + params + ")"
	}
	p.eat("E") // __ptr64: not printed
	if p.eat("I") {
		own = joinQual(own, "__restrict")
	}
	// A pointer pointee carries its qualifier in its own code as well
	// (PBQAH: pointer to const pointer).
	pointee := p.qualifiedType(p.cvQuals(), true)
	return spaceIfNeeded(pointee) + op + own
}

// qualifiedType reads a type that cv qualifies: a pointer (or, with refs,
// a reference) takes cv as its own qualifier ("char const *const"),
// another type gets it after its name ("int const"). Function pointers,
// and cv on other references, are not read.
func (p *undParser) qualifiedType(cv string, refs bool) string {
	c := p.peek()
	ptr := isPointerCode(c, refs)
	if ptr {
		p.pending = cv
	} else if cv != "" && (c == 'A' || c == '$') {
		p.fail = true
		return ""
	}
	t := p.typ()
	if p.fnptr {
		// Spelled inside the function pointer's parentheses.
		p.fail = true
		return ""
	}
	if cv != "" && !ptr {
		t += " " + cv
	}
	return t
}

// spaceIfNeeded appends the space that undname puts between a type and a
// following '*', '&' or name: only after a letter, a digit or '>'
// ("int *", "char const *", but "int **" and "struct HWND__*").
func spaceIfNeeded(t string) string {
	if t == "" {
		return t
	}
	c := t[len(t)-1]
	if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '>' {
		return t + " "
	}
	return t
}

// isPointerCode reports whether a type code is a pointer (P, Q, R, S) or,
// with refs, a reference (A).
func isPointerCode(c byte, refs bool) bool {
	return c == 'P' || c == 'Q' || c == 'R' || c == 'S' || refs && c == 'A'
}

func joinQual(a, b string) string {
	if a == "" {
		return b
	}
	return a + " " + b
}

// cvQuals reads A–D: none, const, volatile, const volatile.
func (p *undParser) cvQuals() string {
	switch p.next() {
	case 'A':
		return ""
	case 'B':
		return "const"
	case 'C':
		return "volatile"
	case 'D':
		return "const volatile"
	}
	p.fail = true
	return ""
}

// thisQuals reads the qualifiers of a member function's this pointer
// (with an optional __ptr64 marker) and returns " const" etc.
func (p *undParser) thisQuals() string {
	p.eat("E")
	if q := p.cvQuals(); q != "" {
		return " " + q
	}
	return ""
}

func (p *undParser) callConv() string {
	switch p.next() {
	case 'A', 'B':
		return "__cdecl"
	case 'C', 'D':
		return "__pascal"
	case 'E', 'F':
		return "__thiscall"
	case 'G', 'H':
		return "__stdcall"
	case 'I', 'J':
		return "__fastcall"
	case 'M', 'N':
		return "__clrcall"
	case 'Q':
		return "__vectorcall"
	}
	p.fail = true
	return ""
}

// returnType reads a function's return type; "?A".."?D" prefix a
// cv-qualified one.
func (p *undParser) returnType() string {
	cv := ""
	if p.eat("?") {
		cv = p.cvQuals()
	}
	return p.qualifiedType(cv, false)
}

// params reads a parameter list: "X" (void), or types ended by '@', or
// by 'Z' for a variadic list.
func (p *undParser) params() string {
	if p.eat("X") {
		return "void"
	}
	if p.eat("Z") {
		return "..."
	}
	var out []string
	for !p.fail {
		if p.eat("@") {
			break
		}
		if p.eat("Z") {
			out = append(out, "...")
			break
		}
		c := p.peek()
		if c >= '0' && c <= '9' {
			p.pos++
			if int(c-'0') >= len(p.br.types) {
				p.fail = true
				return ""
			}
			out = append(out, p.br.types[c-'0'])
			continue
		}
		start := p.pos
		t := p.typ()
		if p.pos-start > 1 && len(p.br.types) < 10 {
			p.br.types = append(p.br.types, t)
		}
		out = append(out, t)
		if len(out) > 256 {
			p.fail = true
		}
	}
	return strings.Join(out, ", ")
}

func (p *undParser) throwSpec() {
	if !p.eat("Z") {
		p.fail = true
	}
}

// undecorateX86C reads the decorations of C names on x86 (32-bit)
// Windows: "_name" (__cdecl), "_name@N" (__stdcall) and "@name@N"
// (__fastcall), N the decimal bytes of arguments. It returns ok false
// for anything else, and for import pointers ("__imp_…").
func undecorateX86C(s string) (string, bool) {
	if strings.HasPrefix(s, "__imp_") || len(s) < 2 {
		return "", false
	}
	var name string
	switch s[0] {
	case '_':
		name = s[1:]
		if i := strings.LastIndexByte(name, '@'); i >= 0 {
			if !argBytes(name[i+1:]) {
				return "", false
			}
			name = name[:i]
		}
	case '@':
		i := strings.LastIndexByte(s, '@')
		if i <= 1 || !argBytes(s[i+1:]) {
			return "", false
		}
		name = s[1:i]
	default:
		return "", false
	}
	if name == "" || strings.ContainsAny(name, "@?$") {
		return "", false
	}
	return name, true
}

// argBytes reports whether s is a stdcall/fastcall argument size: 1 to 4
// decimal digits.
func argBytes(s string) bool {
	if len(s) == 0 || len(s) > 4 {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
