// Test program for package pdb: built with clang and lld-link into a PE +
// PDB pair by the tests (no C runtime: /nodefaultlib, entry point main).
// This file is compiled with debug information (function records, lines).

namespace geo {

struct Point {
	int x, y;
	int sum() const { return x + y; }
	Point operator+(const Point &o) const { return Point{x + o.x, y + o.y}; }
};

class Counter {
public:
	explicit Counter(int start) : n(start) {}
	int next() { return ++n; }
	static int twice(int v, char c) { return 2 * v + c; }

private:
	int n;
};

template <typename T>
T largest(T a, T b) { return a > b ? a : b; }

} // namespace geo

// Defined in util.cpp, which has no debug information: its functions are
// named by their publics only, which are decorated.
namespace util {
int mix(int a, long long b, const char *s);
struct Acc {
	int total;
	void add(int v);
	int get() const;
};
template <typename T> T clamp(T v, T lo, T hi);
}

static int localHelper(int v) { return v * 7 + 1; }

extern "C" int main() {
	geo::Point p{1, 2}, q{3, 4};
	geo::Point r = p + q;
	geo::Counter c(r.sum());
	int v = c.next() + geo::Counter::twice(3, 'a');
	v += geo::largest<int>(v, 42) + (int)geo::largest<long long>(5, 6);
	util::Acc acc;
	acc.total = 0;
	acc.add(v);
	acc.add(util::mix(v, 9, "abc"));
	return localHelper(acc.get()) + util::clamp<int>(v, 0, 100) + (int)util::clamp<unsigned char>(3, 1, 2);
}
