/* A program for the symbol tests: three functions, each calling the next. */
int counter;

__declspec(noinline) int leaf(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += i * counter;
	return s;
}

__declspec(noinline) int middle(int n)
{
	return leaf(n) + leaf(n + 1);
}

int main(void)
{
	return middle(10);
}
