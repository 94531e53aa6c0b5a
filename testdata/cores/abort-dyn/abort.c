/* abort.c: abort() two calls deep, dynamically linked. */
#include <stdlib.h>

volatile int sink;

__attribute__((noinline)) static void give_up(int why) {
	if (why > 0)
		abort();
	sink = why;
}

__attribute__((noinline)) static void check(int n) {
	give_up(n);
	sink = n;
}

int main(int argc, char **argv) {
	(void)argv;
	check(argc);
	return 0;
}
