/* liveproc.c: a healthy process for coreunwind -p, stopped at a known
 * point: every thread is parked in a known call and stays there, except
 * one that spins in a leaf function (its callers stay put).
 *   main     nanosleep three calls deep (idle_loop -> nap -> sleep)
 *   reader   read() on a pipe nobody writes
 *   waiter   pthread_cond_wait on a condition nobody signals
 *   handler  pause() inside its SIGUSR1 handler, on an alternate stack
 *   spinner  a busy loop in spin() (skipped with argument "nospin")
 *   jit      with argument "jit OBJ": pause() called from code loaded from
 *            OBJ and registered with the GDB JIT interface
 * It prints "ready" once every thread is on its way to its call, then
 * the test waits for the kernel to show them asleep. Each thread is
 * named after its function (pthread_setname_np). */
#define _GNU_SOURCE
#include <link.h> /* ElfW */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static pthread_barrier_t parked;
volatile unsigned long spins;

__attribute__((noinline)) static void *reader(void *arg) {
	pthread_setname_np(pthread_self(), "reader");
	int fds[2];
	char c;
	if (pipe(fds) != 0)
		abort();
	pthread_barrier_wait(&parked);
	read(fds[0], &c, 1);
	return arg;
}

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;

__attribute__((noinline)) static void *waiter(void *arg) {
	pthread_setname_np(pthread_self(), "waiter");
	pthread_mutex_lock(&mu);
	pthread_barrier_wait(&parked);
	for (;;)
		pthread_cond_wait(&never, &mu);
	return arg;
}

__attribute__((noinline)) static void in_handler(void) {
	for (;;)
		pause();
}

static void on_usr1(int sig) {
	(void)sig;
	in_handler();
}

__attribute__((noinline)) static void *handler(void *arg) {
	pthread_setname_np(pthread_self(), "handler");
	stack_t ss = {.ss_sp = malloc(1 << 16), .ss_size = 1 << 16};
	sigaltstack(&ss, 0);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_ONSTACK;
	sigaction(SIGUSR1, &sa, 0);
	pthread_barrier_wait(&parked);
	pthread_kill(pthread_self(), SIGUSR1);
	return arg;
}

__attribute__((noinline)) static void spin(void) {
	for (;;)
		spins++;
}

__attribute__((noinline)) static void *spinner(void *arg) {
	pthread_setname_np(pthread_self(), "spinner");
	pthread_barrier_wait(&parked);
	spin();
	return arg;
}

/* The GDB JIT interface (gdb/jit.h). */
struct jit_code_entry { struct jit_code_entry *next, *prev; const char *symfile_addr; uint64_t symfile_size; };
struct jit_descriptor { uint32_t version; uint32_t action_flag; struct jit_code_entry *relevant_entry, *first_entry; };
struct jit_descriptor __jit_debug_descriptor = {1, 0, 0, 0};
__attribute__((noinline)) void __jit_debug_register_code(void) { __asm__ volatile(""); }

__attribute__((noinline)) static void host_block(void) {
	for (;;)
		pause();
}

static const char *jit_path;

/* load_jit maps OBJ's PT_LOAD segments where it was linked, registers the
 * object with the GDB JIT interface and returns its entry. */
static void *load_jit(const char *path) {
	FILE *f = fopen(path, "rb");
	if (!f)
		abort();
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	rewind(f);
	char *img = malloc(n);
	if (fread(img, 1, n, f) != (size_t)n)
		abort();
	ElfW(Ehdr) *eh = (ElfW(Ehdr) *)img;
	ElfW(Phdr) *ph = (ElfW(Phdr) *)(img + eh->e_phoff);
	for (int i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD)
			continue;
		uintptr_t lo = ph[i].p_vaddr & ~(uintptr_t)0xfff, hi = (ph[i].p_vaddr + ph[i].p_memsz + 0xfff) & ~(uintptr_t)0xfff;
		void *m = mmap((void *)lo, hi - lo, PROT_READ | PROT_WRITE | PROT_EXEC,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
		if (m != (void *)lo)
			abort();
		memcpy((void *)ph[i].p_vaddr, img + ph[i].p_offset, ph[i].p_filesz);
	}
	static struct jit_code_entry e;
	e.symfile_addr = img;
	e.symfile_size = n;
	__jit_debug_descriptor.first_entry = __jit_debug_descriptor.relevant_entry = &e;
	__jit_debug_descriptor.action_flag = 1; /* JIT_REGISTER_FN */
	__jit_debug_register_code();
	return (void *)eh->e_entry;
}

__attribute__((noinline)) static void *jit(void *arg) {
	pthread_setname_np(pthread_self(), "jit");
	void (*entry)(void (*)(void)) = (void (*)(void (*)(void)))load_jit(jit_path);
	pthread_barrier_wait(&parked);
	entry(host_block);
	return arg;
}

__attribute__((noinline)) static void nap(void) { sleep(100000); }
__attribute__((noinline)) static void idle_loop(void) {
	for (;;)
		nap();
}

int main(int argc, char **argv) {
	int spinning = !(argc > 1 && strcmp(argv[1], "nospin") == 0);
	if (argc > 2 && strcmp(argv[1], "jit") == 0)
		jit_path = argv[2];
	void *(*fns[])(void *) = {reader, waiter, handler, spinner, jit};
	int n = 3 + spinning + (jit_path != 0);
	pthread_barrier_init(&parked, 0, n + 1);
	for (int i = 0; i < 5; i++) {
		if ((fns[i] == spinner && !spinning) || (fns[i] == jit && !jit_path))
			continue;
		pthread_t t;
		pthread_create(&t, 0, fns[i], 0);
	}
	pthread_barrier_wait(&parked);
	printf("ready\n");
	fflush(stdout);
	idle_loop();
	return 0;
}
