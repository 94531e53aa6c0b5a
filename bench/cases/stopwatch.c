/* stopwatch.c: measures, from inside, how long a debugger stops it.
 *
 * THREADS-1 threads park in pthread_cond_wait at call depths 1..8; one
 * more (the stopwatch) reads CLOCK_MONOTONIC in a tight loop and keeps
 * the largest gap between two reads. A tool that stops every thread
 * stops the stopwatch too: the gap it leaves is the stop as this thread
 * saw it. The main thread reads commands from stdin, one a line:
 *   reset   forget the largest gap (answers "ok")
 *   gap     print the largest gap since the reset, in nanoseconds
 * It prints "ready PID" once every thread is parked.
 * Usage: stopwatch [THREADS] (default 20). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;
static _Atomic int parked;
static _Atomic long long max_gap;
static _Atomic int reset;

__attribute__((noinline)) static void park(int depth) {
	if (depth > 0) {
		park(depth - 1);
		__asm__ volatile("");
		return;
	}
	pthread_mutex_lock(&mu);
	parked++;
	for (;;)
		pthread_cond_wait(&never, &mu);
}

static void *parker(void *arg) {
	park((int)(long)arg % 8 + 1);
	return 0;
}

static long long now(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void *stopwatch(void *arg) {
	(void)arg;
	long long last = now(), worst = 0;
	for (;;) {
		long long t = now();
		if (reset) {
			reset = 0;
			worst = 0;
		} else if (t - last > worst) {
			worst = t - last;
			max_gap = worst;
		}
		last = t;
	}
	return 0;
}

int main(int argc, char **argv) {
	int n = argc > 1 ? atoi(argv[1]) : 20;
	pthread_t t;
	for (int i = 0; i < n - 2; i++)
		pthread_create(&t, 0, parker, (void *)(long)i);
	while (parked < n - 2)
		usleep(1000);
	pthread_create(&t, 0, stopwatch, 0);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	char line[64];
	while (fgets(line, sizeof line, stdin)) {
		if (strncmp(line, "reset", 5) == 0) {
			max_gap = 0;
			reset = 1;
			while (reset)
				usleep(100);
			printf("ok\n");
		} else if (strncmp(line, "gap", 3) == 0) {
			printf("%lld\n", (long long)max_gap);
		}
		fflush(stdout);
	}
	return 0;
}
