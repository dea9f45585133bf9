// Second source of cmd/tracerpt-go's pdb tests, compiled without debug
// information: these functions are publics only, with decorated names.
namespace tbl {
template <typename K, typename V> struct Pair {
	K key;
	V val;
	bool less(const Pair &o) const { return key < o.key; }
};
int lookup(const Pair<int, long> *p, int n, int key) {
	for (int i = 0; i < n; i++)
		if (p[i].key == key)
			return (int)p[i].val;
	return -1;
}
template struct Pair<int, long>;
} // namespace tbl

extern "C" int table_probe(int key) {
	tbl::Pair<int, long> ps[2];
	ps[0].key = 1;
	ps[0].val = 10;
	ps[1].key = 2;
	ps[1].val = 20;
	return tbl::lookup(ps, 2, key) + (ps[0].less(ps[1]) ? 1 : 0);
}
