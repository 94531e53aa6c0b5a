/* mdcrash.c: a crash that becomes a minidump. When MDCRASH_PROC names a
 * directory, the program first copies its /proc/self files there (maps,
 * auxv, cmdline, environ, status): Breakpad's core2md reads a dead
 * process's procfs from such a copy. Three threads wait at different
 * depths; then the main thread stores through NULL three calls deep. */
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef NTHREADS_OVERRIDE /* the benchmark's (bench/minidump.sh) */
#define NTHREADS NTHREADS_OVERRIDE
#else
#define NTHREADS 3
#endif

volatile int sink;
static atomic_int ready;
static int pipefd[2];

static void copy_proc(const char *dir, const char *name) {
	char src[64], dst[4096], buf[65536];
	snprintf(src, sizeof src, "/proc/self/%s", name);
	snprintf(dst, sizeof dst, "%s/%s", dir, name);
	int in = open(src, O_RDONLY), out = open(dst, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (in < 0 || out < 0)
		abort();
	ssize_t n;
	while ((n = read(in, buf, sizeof buf)) > 0)
		if (write(out, buf, (size_t)n) != n)
			abort();
	close(in);
	close(out);
}

__attribute__((noinline)) static void wait_here(void) {
	char c;
	atomic_fetch_add(&ready, 1);
	sink = (int)read(pipefd[0], &c, 1);
}

__attribute__((noinline)) static void descend(int depth) {
	if (depth > 0)
		descend(depth - 1);
	else
		wait_here();
	sink = depth;
}

static void *worker(void *arg) {
	descend((int)(long)arg);
	return NULL;
}

__attribute__((noinline)) static void store(int *p) {
	*p = 42;
	sink = 1;
}

__attribute__((noinline)) static void middle(int *p) {
	store(p);
	sink = 2;
}

__attribute__((noinline)) static void outer(int *p) {
	middle(p);
	sink = 3;
}

int main(void) {
	if (pipe(pipefd) != 0)
		abort();
	for (long i = 0; i < NTHREADS; i++) {
		pthread_t t;
		if (pthread_create(&t, NULL, worker, (void *)(i * 2)) != 0)
			abort();
	}
	while (atomic_load(&ready) < NTHREADS)
		usleep(1000);
	usleep(100000); /* let every thread enter read */
	const char *dir = getenv("MDCRASH_PROC");
	if (dir != NULL) {
		static const char *files[] = {"maps", "auxv", "cmdline", "environ", "status"};
		for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
			copy_proc(dir, files[i]);
	}
	outer(NULL);
	return 0;
}
