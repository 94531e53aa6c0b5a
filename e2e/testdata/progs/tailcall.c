#include <stdlib.h>

/* A double free reached through two tail calls: buf_free jumps to free,
   cleanup jumps to buf_free; neither leaves a return address. */
__attribute__((noinline)) void buf_free(char *p) { free(p); }
__attribute__((noinline)) void cleanup(char *p) { buf_free(p); }

int main(void) {
	char *volatile p = malloc(32);
	free(p);
	cleanup(p);
	return 0;
}
