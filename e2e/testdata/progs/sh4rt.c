/* sh4rt.c: the little of a C library that the tests' crash programs
 * (crossarch.c, nullfn.c, nocfi_main.c) call, for SuperH (sh4) under
 * qemu-sh4. Debian 12's sh4 glibc cannot start under qemu 7.2: a static
 * program spins in __libc_start_main (its loop over envp is compiled
 * without the load and the test: "bf.s ." with the T bit never set), and
 * ld.so faults while relocating itself. So these programs are linked
 * with -nostdlib against this file: raw system calls (trapa, number in
 * r3, arguments in r4-r7, result in r0), threads by clone(2) on static
 * stacks, signals by rt_sigaction(2) without a restorer (qemu's own
 * sigreturn trampoline, as a kernel's vDSO one), the string functions
 * gcc may call. _start and the threads' first frame carry CFI that
 * marks pr undefined: the outermost frames, where gdb stops too. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum {
	NR_exit = 1, NR_getpid = 20, NR_pause = 29, NR_clone = 120, NR_nanosleep = 162,
	NR_rt_sigaction = 174, NR_gettid = 224, NR_futex = 240, NR_exit_group = 252, NR_tgkill = 270,
};

static long syscall4(long n, long a, long b, long c, long d) {
	register long r3 __asm__("r3") = n;
	register long r4 __asm__("r4") = a;
	register long r5 __asm__("r5") = b;
	register long r6 __asm__("r6") = c;
	register long r7 __asm__("r7") = d;
	register long r0 __asm__("r0");
	__asm__ volatile("trapa #0x14" : "=r"(r0) : "r"(r3), "r"(r4), "r"(r5), "r"(r6), "r"(r7) : "memory", "t");
	return r0;
}

int main(int argc, char **argv);

/* _start: sp points at argc, argv[], envp[], auxv. */
__asm__(".text\n"
	".global _start\n"
	".type _start, @function\n"
	"_start:\n"
	".cfi_startproc\n"
	".cfi_undefined pr\n"
	"	mov r15, r4\n"
	"	mov.l 1f, r1\n"
	"	jsr @r1\n"
	"	nop\n"
	"	.align 2\n"
	"1:	.long start_main\n"
	".cfi_endproc\n"
	".size _start, .-_start\n");

__attribute__((noreturn, used)) static void start_main(long *sp) {
	long code = main((int)sp[0], (char **)(sp + 1));
	for (;;)
		syscall4(NR_exit_group, code, 0, 0, 0);
}

/* clone_thread(flags, stack, fn, arg): the child finds fn and arg on its
 * new stack and calls fn(arg), then exits. */
long clone_thread(long flags, void *stack, void (*fn)(void *), void *arg);
__asm__(".text\n"
	".global clone_thread\n"
	".type clone_thread, @function\n"
	"clone_thread:\n"
	".cfi_startproc\n"
	".cfi_undefined pr\n"
	"	mov.l r6, @-r5\n"
	"	mov.l r7, @-r5\n"
	"	mov #120, r3\n"
	"	trapa #0x12\n"
	"	tst r0, r0\n"
	"	bt 1f\n"
	"	rts\n"
	"	nop\n"
	"1:	mov.l @r15+, r4\n"
	"	mov.l @r15+, r1\n"
	"	jsr @r1\n"
	"	nop\n"
	"	mov #1, r3\n"
	"	trapa #0x11\n"
	".cfi_endproc\n"
	".size clone_thread, .-clone_thread\n");

/* Not compiled into calls of themselves at -O2. */
#define NOT_A_CALL __attribute__((optimize("no-tree-loop-distribute-patterns")))

NOT_A_CALL void *memset(void *d, int c, size_t n) {
	unsigned char *p = d;
	while (n--)
		*p++ = (unsigned char)c;
	return d;
}

NOT_A_CALL void *memcpy(void *d, const void *s, size_t n) {
	unsigned char *p = d;
	const unsigned char *q = s;
	while (n--)
		*p++ = *q++;
	return d;
}

int strcmp(const char *a, const char *b) {
	while (*a && *a == *b)
		a++, b++;
	return (unsigned char)*a - (unsigned char)*b;
}

int raise(int sig) {
	return (int)syscall4(NR_tgkill, syscall4(NR_getpid, 0, 0, 0, 0), syscall4(NR_gettid, 0, 0, 0, 0), sig, 0);
}

void abort(void) {
	raise(SIGABRT);
	for (;;)
		syscall4(NR_exit_group, 127, 0, 0, 0);
}

int pause(void) { return (int)syscall4(NR_pause, 0, 0, 0, 0); }

int usleep(useconds_t us) {
	struct timespec ts = {us / 1000000, (long)(us % 1000000) * 1000};
	return (int)syscall4(NR_nanosleep, (long)&ts, 0, 0, 0);
}

/* The kernel's struct sigaction for rt_sigaction: handler, flags,
 * restorer, a 64-bit mask. */
struct kernel_sigaction {
	void *handler;
	unsigned long flags;
	void *restorer;
	unsigned long mask[2];
};

int sigaction(int sig, const struct sigaction *sa, struct sigaction *old) {
	(void)old;
	struct kernel_sigaction k = {(void *)sa->sa_handler, (unsigned long)sa->sa_flags, NULL, {0, 0}};
	return (int)syscall4(NR_rt_sigaction, sig, (long)&k, 0, sizeof k.mask);
}

__sighandler_t signal(int sig, __sighandler_t h) {
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = h;
	sigaction(sig, &sa, NULL);
	return SIG_DFL;
}

int pthread_attr_init(pthread_attr_t *a) {
	memset(a, 0, sizeof *a);
	return 0;
}

int pthread_attr_setstacksize(pthread_attr_t *a, size_t n) {
	(void)a;
	(void)n;
	return 0;
}

/* Threads: up to four, each on a 64 KiB static stack; done is set (and
 * futex-woken) when its function returns. */
enum { maxThreads = 4, stackSize = 64 * 1024 };
static struct thread {
	void *(*fn)(void *);
	void *arg;
	volatile int done;
} threads[maxThreads];
static unsigned char stacks[maxThreads][stackSize] __attribute__((aligned(8)));
static int nthreads;

static void start_thread(void *p) {
	struct thread *t = p;
	t->fn(t->arg);
	t->done = 1;
	syscall4(NR_futex, (long)&t->done, 1 /* FUTEX_WAKE */, 1, 0);
}

int pthread_create(pthread_t *id, const pthread_attr_t *a, void *(*fn)(void *), void *arg) {
	(void)a;
	if (nthreads == maxThreads)
		return 11; /* EAGAIN */
	struct thread *t = &threads[nthreads];
	t->fn = fn;
	t->arg = arg;
	const long flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM;
	if (clone_thread(flags, stacks[nthreads] + stackSize, start_thread, t) < 0)
		return 11;
	*id = (pthread_t)nthreads++;
	return 0;
}

/* loaded reads a word the way gcc 12's sh4 back end cannot drop: it
 * deletes a loop's load of a 4-byte word that is only tested against
 * zero ("while (!flag);" becomes "bt ."). */
static int loaded(volatile int *p) {
	int v = *p;
	__asm__ volatile("" : "+r"(v));
	return v;
}

int pthread_join(pthread_t id, void **ret) {
	struct thread *t = &threads[id];
	while (!loaded(&t->done))
		syscall4(NR_futex, (long)&t->done, 0 /* FUTEX_WAIT */, 0, 0);
	if (ret)
		*ret = NULL;
	return 0;
}
