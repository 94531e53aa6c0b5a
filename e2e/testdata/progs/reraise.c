/* reraise.c: a fatal-signal handler that restores the default action and
 * raises the signal again, as Python's faulthandler, the JVM and Breakpad
 * do: the core's signal is SIGSEGV SI_TKILL in raise, the fault is below
 * the handler's signal frame.
 *   reraise:         the handler without SA_SIGINFO (faulthandler's): the
 *                    kernel saves no siginfo, x86's signal context only;
 *   reraise-siginfo: the handler with SA_SIGINFO (the JVM's, Breakpad's);
 *   reraise-blocked: the handler without SA_NODEFER: the raised signal
 *                    waits until the handler returns, and kills the
 *                    thread at the faulting instruction with SI_TKILL;
 *   sleep:           no fault: prints "ready" and waits to be killed.
 * The faulting modes print the address they read before reading it. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

struct record {
	long id;
	char name[40];
	long count;
};

struct record *volatile null_record;
volatile long sink;

__attribute__((noinline)) long read_count(struct record *r) {
	return r->count;
}

static void on_segv(int sig) {
	signal(sig, SIG_DFL);
	raise(sig);
}

static void on_segv_info(int sig, siginfo_t *si, void *uc) {
	(void)si;
	(void)uc;
	signal(sig, SIG_DFL);
	raise(sig);
}

int main(int argc, char **argv) {
	const char *mode = argc > 1 ? argv[1] : "reraise";
	if (strcmp(mode, "sleep") == 0) {
		printf("ready\n");
		fflush(stdout);
		for (;;)
			pause();
	}
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	if (strcmp(mode, "reraise-blocked") != 0)
		sa.sa_flags = SA_NODEFER;
	if (strcmp(mode, "reraise-siginfo") == 0) {
		sa.sa_sigaction = on_segv_info;
		sa.sa_flags |= SA_SIGINFO;
	} else {
		sa.sa_handler = on_segv;
	}
	sigaction(SIGSEGV, &sa, NULL);
	struct record *r = null_record;
	printf("fault address %p\n", (void *)&r->count);
	fflush(stdout);
	sink = read_count(r);
	return 0;
}
