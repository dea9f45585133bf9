/* Source of the PE + PDB pairs that cmd/tracerpt-go's pdb tests build with
 * clang and lld-link (no C runtime; entry point main). Plain C: the
 * publics are C names (x86 adds the leading underscore). */

struct acc {
	int sum;
	int count;
};

static int square(int v) { return v * v; }

int acc_add(struct acc *a, int v)
{
	a->sum += square(v);
	a->count++;
	return a->sum;
}

int acc_mean(const struct acc *a)
{
	return a->count ? a->sum / a->count : 0;
}

int __stdcall cb_std(int x) { return x + 1; }

int __fastcall cb_fast(int x, int y) { return x - y; }

int main(void)
{
	struct acc a;
	int i;
	a.sum = 0;
	a.count = 0;
	for (i = 1; i <= 4; i++)
		acc_add(&a, i);
	return acc_mean(&a) + cb_std(2) + cb_fast(5, 3);
}
