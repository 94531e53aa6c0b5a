/* sighandler.c: crashes inside signal handlers, so unwinding must go
 * through the kernel's signal frame (__restore_rt) into the interrupted code.
 *   segv: a null store; its SIGSEGV handler stores through NULL again while
 *         SIGSEGV is blocked, so the kernel kills the process in the handler.
 *   alrm: a busy loop is interrupted by SIGALRM whose handler calls abort(). */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

volatile int sink;
int *volatile null_ptr;

__attribute__((noinline)) static void handler_crash(int *p) {
	*p = 42;
	sink = 1;
}

static void on_segv(int sig) {
	handler_crash(null_ptr);
	sink = sig;
}

static void on_alrm(int sig) {
	sink = sig;
	abort();
}

__attribute__((noinline)) static void fault_here(void) {
	*null_ptr = 7;
	sink = 2;
}

__attribute__((noinline)) static void spin_here(void) {
	for (;;)
		sink++;
}

__attribute__((noinline)) static void run(const char *mode) {
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	if (strcmp(mode, "segv") == 0) {
		sa.sa_handler = on_segv;
		sigaction(SIGSEGV, &sa, NULL);
		fault_here();
	} else {
		sa.sa_handler = on_alrm;
		sigaction(SIGALRM, &sa, NULL);
		struct itimerval it = {{0, 0}, {0, 20000}};
		setitimer(ITIMER_REAL, &it, NULL);
		spin_here();
	}
	sink = 3;
}

int main(int argc, char **argv) {
	run(argc > 1 ? argv[1] : "segv");
	return 0;
}
