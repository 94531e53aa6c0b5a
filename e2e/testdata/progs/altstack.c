/* altstack.c: a stack overflow handled on an alternate signal stack. A
 * thread with a 64 KiB stack recurses until it touches its guard page;
 * its SIGSEGV handler runs on a sigaltstack that lies in main's stack
 * frame, far above the thread's stack, and calls abort(). Unwinding the
 * handler's frames, then the interrupted recursion, crosses the signal
 * frame from higher to lower addresses: toward younger frames, for a
 * stack that grows down, which only a signal frame may do. The thread
 * first gives main time to reach pthread_join, so that the core's other
 * thread is always in the same place. */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

volatile unsigned long calls;

__attribute__((noinline)) static void on_overflow(int sig) {
	(void)sig;
	abort();
}

__attribute__((noinline)) static int recurse(int n) {
	volatile int pad[8];
	calls++;
	pad[0] = n;
	return recurse(n + 1) + pad[0];
}

static void *overflow_thread(void *altstack) {
	stack_t ss = {.ss_sp = altstack, .ss_size = 64 << 10};
	sigaltstack(&ss, NULL);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_overflow;
	sa.sa_flags = SA_ONSTACK;
	sigaction(SIGSEGV, &sa, NULL);
	usleep(100 * 1000);
	return (void *)(long)recurse(0);
}

int main(void) {
	char altstack[64 << 10]; /* in main's stack: above every thread stack */
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 << 10);
	pthread_t t;
	pthread_create(&t, &attr, overflow_thread, altstack);
	pthread_join(t, NULL);
	return 0;
}
