/* sleeper.c: a healthy process for gdb's gcore: three threads parked in
 * different calls, the main thread in nanosleep three calls deep. It
 * prints "ready" once every thread is parked. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static pthread_barrier_t parked;

__attribute__((noinline)) static void *wait_forever(void *arg) {
	pthread_barrier_wait(&parked);
	for (;;)
		pause();
	return arg;
}

__attribute__((noinline)) static void *reader(void *arg) {
	int fds[2];
	char c;
	pipe(fds);
	pthread_barrier_wait(&parked);
	read(fds[0], &c, 1);
	return arg;
}

__attribute__((noinline)) static void nap(void) { sleep(1000); }
__attribute__((noinline)) static void idle_loop(void) { nap(); }

int main(void) {
	pthread_t a, b;
	pthread_barrier_init(&parked, 0, 3);
	pthread_create(&a, 0, wait_forever, 0);
	pthread_create(&b, 0, reader, 0);
	pthread_barrier_wait(&parked);
	printf("ready\n");
	fflush(stdout);
	idle_loop();
	return 0;
}
