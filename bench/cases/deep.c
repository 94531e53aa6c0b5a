/*
 * deep: one thread, 5000 frames of recursion, then a NULL dereference
 * at the bottom. Measures the per-frame cost of a tool (and whether it
 * has a frame limit). Built -O0 -g so every call keeps its frame.
 */
#include <stdlib.h>

#define DEPTH 5000

int recurse(int n)
{
	volatile char pad[32];

	pad[0] = (char)n;
	if (n == 0) {
		*(volatile int *)0 = 1;
		return 0;
	}
	return recurse(n - 1) + pad[0];
}

int main(void)
{
	return recurse(DEPTH) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
