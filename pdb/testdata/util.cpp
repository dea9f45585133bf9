// Test program for package pdb (see shapes.cpp): compiled without debug
// information, so the PDB has publics, not function records, for these.

namespace util {

int mix(int a, long long b, const char *s) {
	int h = a;
	while (*s)
		h = h * 31 + *s++;
	return h ^ (int)b;
}

struct Acc {
	int total;
	void add(int v);
	int get() const;
};

void Acc::add(int v) { total += v; }
int Acc::get() const { return total; }

template <typename T> T clamp(T v, T lo, T hi) { return v < lo ? lo : v > hi ? hi : v; }
template int clamp<int>(int, int, int);
template unsigned char clamp<unsigned char>(unsigned char, unsigned char, unsigned char);

} // namespace util

// More decorations for the undecorator (compared with llvm-undname).
namespace util {
namespace deep {
struct Node {
	int v;
	Node *next;
	static int made;
	Node &operator=(const Node &o) { v = o.v; return *this; }
	bool operator==(const Node &o) const { return v == o.v; }
	int operator()(int x) const { return v + x; }
	int operator[](unsigned i) const { return v + (int)i; }
	Node *advance(Node **pp, const Node *const *cpp, Node &ref, Node &&rref);
	virtual int kind() const { return 1; }
	~Node() {}
};
int Node::made = 0;
Node *Node::advance(Node **pp, const Node *const *cpp, Node &ref, Node &&rref) {
	return *pp ? *pp : (Node *)(*cpp ? &ref : &rref);
}
template <typename T, int N> struct Buf {
	T items[N];
	T first() const { return items[0]; }
};
template struct Buf<short, 4>;
template struct Buf<Buf<char, 2>, -3 + 4>;
int apply(int (*fn)(int, char), unsigned long long x, wchar_t w, bool b, float f, double d);
int apply(int (*fn)(int, char), unsigned long long x, wchar_t w, bool b, float f, double d) {
	return fn((int)x, (char)w) + (b ? 1 : 0) + (int)(f * 0) + (int)(d * 0);
}
int sum(int n, ...) { return n; }
enum Color { Red, Green };
Color flip(Color c, const volatile int *p) { return c == Red ? Green : (Color)*p; }
} // namespace deep
} // namespace util

namespace {
int hidden(int v) { return v + 3; }
}
int use_hidden(int v) { return hidden(v); }

int use_node(util::deep::Node &a, util::deep::Node &b) {
	a = b;
	util::deep::Buf<short, 4> s;
	s.items[0] = 1;
	return (a == b) + a(1) + a[2] + a.kind() + s.first() + util::deep::sum(1, 2) + util::deep::Node::made;
}

// Floating point without a C runtime needs the marker the CRT defines.
extern "C" int _fltused = 0;
