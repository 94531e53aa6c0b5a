/* crossarch.c: built for other architectures and run under qemu-user.
 * Three threads: main waits in pthread_join, a sleeper in pause, and a
 * worker that crashes as argv[1] says: "segv" (a NULL store in a leaf),
 * "abort", "signal" (raise SIGUSR1, whose handler does the NULL
 * store: the core holds a signal frame), or "siginfo" (the same with the
 * handler installed with SA_SIGINFO, which makes some kernels and qemu
 * build an rt_sigframe where signal() gets the older sigframe). */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *mode = "segv";
int *volatile target; /* NULL: stores through it crash */

__attribute__((noinline)) void handler_crash(int sig) {
	*target = sig;
}

static void on_usr1(int sig) {
	handler_crash(sig);
	__asm__ volatile("");
}

static void on_usr1_info(int sig, siginfo_t *info, void *ctx) {
	(void)info;
	(void)ctx;
	handler_crash(sig);
	__asm__ volatile("");
}

__attribute__((noinline)) void crash_leaf(int depth) {
	if (strcmp(mode, "abort") == 0)
		abort();
	if (strcmp(mode, "signal") == 0 || strcmp(mode, "siginfo") == 0)
		raise(SIGUSR1);
	*target = depth;
}

__attribute__((noinline)) void crash_mid(int depth) {
	crash_leaf(depth + 1);
	__asm__ volatile("");
}

__attribute__((noinline)) void crash_top(int depth) {
	crash_mid(depth + 1);
	__asm__ volatile("");
}

static volatile int sleeper_started;

/* started reads sleeper_started through a register the compiler must
 * keep: gcc 12's sh4 back end deletes the load of a word a loop only
 * tests against zero, and "while (!sleeper_started);" spins forever. */
static int started(void) {
	int v = sleeper_started;
	__asm__ volatile("" : "+r"(v));
	return v;
}

static void *worker(void *arg) {
	/* Crash only once the sleeper runs its own code: a thread caught
	 * while it is still being created (seen under load on riscv64: the
	 * live gdb said "PC not saved" and coreunwind stopped with an error
	 * on one thread) is not what these tests are about. */
	while (!started())
		;
	/* And once main and the sleeper have had time to block in their
	 * system calls (pthread_join's futex wait, pause): a thread caught
	 * at an instruction of a libc function between two calls (seen on
	 * armhf: main at the first instruction of
	 * __futex_abstimed_wait_common, where coreunwind once ended the
	 * walk after frame 0 and gdb did not) makes the comparison depend
	 * on timing. */
	usleep(50000);
	crash_top(0);
	return arg;
}

static void *sleeper(void *arg) {
	sleeper_started = 1;
	for (;;)
		pause();
	return arg;
}

int main(int argc, char **argv) {
	pthread_t s, w;
	pthread_attr_t attr;
	if (argc > 1)
		mode = argv[1];
	if (strcmp(mode, "siginfo") == 0) {
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_sigaction = on_usr1_info;
		sa.sa_flags = SA_SIGINFO;
		sigaction(SIGUSR1, &sa, NULL);
	} else {
		signal(SIGUSR1, on_usr1);
	}
	/* Small stacks: qemu-user cores are not sparse. */
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	pthread_create(&s, &attr, sleeper, NULL);
	pthread_create(&w, &attr, worker, NULL);
	pthread_join(w, NULL);
	return 0;
}
