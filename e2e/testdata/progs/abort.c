/* abort.c: main -> first -> second -> abort(); the crash goes through
 * glibc's abort and raise (pthread_kill) frames. */
#include <stdlib.h>
#include <stdio.h>

__attribute__((noinline)) static void second(int n) {
	if (n > 0)
		abort();
	printf("unreachable\n");
}

__attribute__((noinline)) static void first(int n) {
	second(n + 1);
	printf("unreachable\n");
}

int main(int argc, char **argv) {
	(void)argv;
	first(argc);
	return 0;
}
