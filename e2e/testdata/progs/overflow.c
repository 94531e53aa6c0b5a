/* overflow.c: unbounded mutual recursion a -> b -> a -> ... until the
 * stack runs out. The store that touches the guard page gets SIGSEGV,
 * and with no alternate signal stack nothing can handle it: the kernel
 * dumps core. The stack limit is set to Linux's default 8 MiB whatever
 * the caller's is; a frame is 64 bytes at -O0, so the core holds about
 * 131,000 frames. calls counts the calls of a and b, for the debugger. */
#include <sys/resource.h>

volatile unsigned long calls;

int b(int n);

__attribute__((noinline)) int a(int n) {
	volatile int pad[8];
	calls++;
	pad[0] = n;
	return b(n + 1) + pad[0];
}

__attribute__((noinline)) int b(int n) {
	volatile int pad[8];
	calls++;
	pad[0] = n;
	return a(n + 1) + pad[0];
}

int main(void) {
	struct rlimit rl;
	if (getrlimit(RLIMIT_STACK, &rl) == 0) {
		rl.rlim_cur = 8 << 20;
		setrlimit(RLIMIT_STACK, &rl);
	}
	return a(0);
}
