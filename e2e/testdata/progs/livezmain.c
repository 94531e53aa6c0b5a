/* livezmain.c: a process whose main thread has exited (pthread_exit)
 * while another runs on: the main thread is a zombie, /proc/PID/maps,
 * auxv and exe are empty or gone, the process lives in its worker,
 * parked in pause() called from worker. It prints "ready" first. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

__attribute__((noinline)) static void *worker(void *arg) {
	for (;;)
		pause();
	return arg;
}

int main(void) {
	pthread_t t;
	pthread_create(&t, 0, worker, 0);
	printf("ready\n");
	fflush(stdout);
	pthread_exit(0);
}
