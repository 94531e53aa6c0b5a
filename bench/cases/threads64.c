/*
 * threads64: 64 threads, each parked at a different call depth (5..40)
 * in a chain of distinct functions, then the main thread dereferences
 * NULL. The benchmark measures how a tool copes with many threads whose
 * stacks go through many different functions (many unwind-table and
 * line-table lookups), as in a real server core.
 *
 * Built -O2 -g: the steps are called through a table so the compiler
 * can neither inline them nor turn the calls into jumps, and each keeps
 * a volatile local alive after the call so the frame stays on the stack.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define NTHREADS 64
#define MINDEPTH 5
#define MAXDEPTH 40
#define NSTEPS 8

static pthread_barrier_t ready;
static volatile int stop;

typedef int (*step_fn)(int depth, int seed);
static step_fn steps[NSTEPS];

/* leaf parks the thread; the loop on a volatile keeps it from being
 * inferred noreturn, which would let GCC drop the callers' epilogues. */
__attribute__((noinline)) static int leaf(int seed)
{
	pthread_barrier_wait(&ready);
	while (!stop)
		pause();
	return seed;
}

#define STEP(name, k)                                                   \
	__attribute__((noinline)) static int name(int depth, int seed)  \
	{                                                               \
		volatile int local = seed * (k);                        \
		if (depth <= 1)                                         \
			return leaf(seed) + local;                      \
		int r = steps[(depth + seed * (k)) % NSTEPS](depth - 1, seed); \
		return r + local;                                       \
	}

STEP(step_alpha, 3)
STEP(step_bravo, 5)
STEP(step_charlie, 7)
STEP(step_delta, 11)
STEP(step_echo, 13)
STEP(step_foxtrot, 17)
STEP(step_golf, 19)
STEP(step_hotel, 23)

static void *thread_main(void *arg)
{
	int i = (int)(long)arg;
	int depth = MINDEPTH + i * (MAXDEPTH - MINDEPTH) / (NTHREADS - 1);
	static __thread volatile int result;
	result = steps[i % NSTEPS](depth, i);
	return NULL;
}

__attribute__((noinline)) static void crash_here(volatile int *p)
{
	*p = 42;
}

__attribute__((noinline)) static void crash_after_all_parked(void)
{
	pthread_barrier_wait(&ready);
	crash_here(NULL);
}

int main(void)
{
	step_fn all[NSTEPS] = {step_alpha, step_bravo, step_charlie, step_delta,
			       step_echo, step_foxtrot, step_golf, step_hotel};
	pthread_t t[NTHREADS];

	for (int i = 0; i < NSTEPS; i++)
		steps[i] = all[i];
	if (pthread_barrier_init(&ready, NULL, NTHREADS + 1) != 0) {
		perror("pthread_barrier_init");
		return 1;
	}
	for (long i = 0; i < NTHREADS; i++) {
		if (pthread_create(&t[i], NULL, thread_main, (void *)i) != 0) {
			perror("pthread_create");
			return 1;
		}
	}
	crash_after_all_parked();
	return 0;
}
