/* nullderef.c: a null pointer store three calls deep. Built at -O0 and at
 * -O2 -fomit-frame-pointer, static, PIE, non-PIE and stripped. The volatile
 * results after each call keep the compiler from turning calls into jumps. */
#include <stdio.h>

volatile int sink;

__attribute__((noinline)) static int store_through(int *p, int v) {
	*p = v;
	sink = v;
	return v + 1;
}

__attribute__((noinline)) static int middle(int *p, int v) {
	int r = store_through(p, v * 3);
	sink = r;
	return r + 2;
}

__attribute__((noinline)) static int outer(int *p, int v) {
	int r = middle(p, v + 7);
	sink = r;
	return r + 3;
}

int main(int argc, char **argv) {
	(void)argv;
	int *p = argc > 100 ? &argc : NULL;
	int r = outer(p, argc);
	printf("%d\n", r);
	return 0;
}
