/* callback_lib.c: a shared library that recurses a few frames deep and
 * then calls back into the program, which crashes: the stack passes
 * through the library. Built with -DREBUILT=1 it is another build of the
 * same library (other code, so another build ID), as an upgrade leaves
 * it at the same path. */
#ifndef REBUILT
#define REBUILT 0
#endif

volatile int callback_sink;

__attribute__((noinline)) int callback_walk(void (*cb)(int), int depth) {
	if (depth <= 0) {
		cb(REBUILT);
		return callback_sink;
	}
	callback_sink += depth * (REBUILT + 1);
	int r = callback_walk(cb, depth - 1);
	callback_sink += r;
	return r + 1;
}

#if REBUILT
int callback_added(int x) { return x * 3 + callback_sink; }
#endif
