/* recurse.c: recursion DEPTH (argv[1], default 5000) frames deep, then a
 * null store in the innermost frame. Built at -O0 so no call becomes a jump. */
#include <stdlib.h>

volatile int sink;

__attribute__((noinline)) int recurse(int n, int *p) {
	if (n == 0) {
		*p = 1;
		return 0;
	}
	int r = recurse(n - 1, p);
	sink = r;
	return r + 1;
}

int main(int argc, char **argv) {
	int depth = argc > 1 ? atoi(argv[1]) : 5000;
	sink = recurse(depth, NULL);
	return 0;
}
