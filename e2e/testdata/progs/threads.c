/* threads.c: NTHREADS threads, each parked at a different call depth
 * (1 + i % 13) in one of four blocking calls, reached through different
 * chains of functions; then the main thread stores through NULL. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define NTHREADS 56

volatile int sink;
static atomic_int ready;
static pthread_mutex_t held = PTHREAD_MUTEX_INITIALIZER;
static int pipefd[2];

__attribute__((noinline)) static void block_pause(void) { pause(); sink = 1; }
__attribute__((noinline)) static void block_sleep(void) {
	struct timespec ts = {1000, 0};
	nanosleep(&ts, NULL);
	sink = 2;
}
__attribute__((noinline)) static void block_read(void) {
	char c;
	sink = (int)read(pipefd[0], &c, 1);
}
__attribute__((noinline)) static void block_mutex(void) {
	pthread_mutex_lock(&held);
	sink = 4;
}

static void level_b(int depth, int kind);

__attribute__((noinline)) static void level_a(int depth, int kind) {
	if (depth <= 0) {
		atomic_fetch_add(&ready, 1);
		switch (kind) {
		case 0: block_pause(); break;
		case 1: block_sleep(); break;
		case 2: block_read(); break;
		default: block_mutex(); break;
		}
	} else {
		level_b(depth - 1, kind);
	}
	sink = depth;
}

__attribute__((noinline)) static void level_b(int depth, int kind) {
	level_a(depth, kind);
	sink = depth + 1;
}

static void *worker(void *arg) {
	long i = (long)arg;
	level_a((int)(i % 13), (int)(i % 4));
	return NULL;
}

__attribute__((noinline)) static void crash_main(int *p) {
	*p = 1;
	sink = 5;
}

int main(void) {
	pipe(pipefd);
	pthread_mutex_lock(&held);
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	for (long i = 0; i < NTHREADS; i++) {
		pthread_t t;
		if (pthread_create(&t, &attr, worker, (void *)i) != 0)
			abort();
	}
	while (atomic_load(&ready) < NTHREADS)
		usleep(1000);
	usleep(200000); /* let every thread enter its blocking call */
	crash_main(NULL);
	return 0;
}
