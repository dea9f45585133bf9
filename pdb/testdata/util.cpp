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
