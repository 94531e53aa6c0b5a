/* crash.c: a program that prints facts about itself, then dies the way
 * argv[1] says. The corefile tests compare what they read from its core
 * with these facts.
 *
 * usage: crash segv|abort|kill|wait [nthreads]
 * "wait" prints "ready" and waits to be dumped by gcore and killed. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* In .rodata: part of a read-only file mapping the kernel does not dump. */
static const char rodata_msg[] = "coreunwind rodata 0123456789abcdef";
/* In .data: written below, so the page is in the core. */
volatile unsigned long global_value = 0x1122334455667788UL;

static pthread_barrier_t ready;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

static void *worker(void *arg) {
	(void)arg;
	pthread_mutex_lock(&out_lock);
	printf("tid %ld\n", (long)syscall(SYS_gettid));
	fflush(stdout);
	pthread_mutex_unlock(&out_lock);
	pthread_barrier_wait(&ready);
	for (;;)
		pause();
	return NULL;
}

int main(int argc, char **argv) {
	const char *mode = argc > 1 ? argv[1] : "segv";
	int nthreads = argc > 2 ? atoi(argv[2]) : 0;
	global_value ^= 0xff; /* dirty the page so the kernel dumps it */
	pthread_barrier_init(&ready, NULL, nthreads + 1);
	pthread_mutex_lock(&out_lock);
	printf("pid %d\n", (int)getpid());
	printf("main %ld\n", (long)syscall(SYS_gettid));
	printf("rodata %p %s\n", (void *)rodata_msg, rodata_msg);
	printf("global %p %lx\n", (void *)&global_value, (unsigned long)global_value);
	fflush(stdout);
	pthread_mutex_unlock(&out_lock);
	for (int i = 0; i < nthreads; i++) {
		pthread_t t;
		pthread_create(&t, NULL, worker, NULL);
	}
	pthread_barrier_wait(&ready);
	if (strcmp(mode, "wait") == 0) {
		printf("ready\n");
		fflush(stdout);
		for (;;)
			pause();
	} else if (strcmp(mode, "abort") == 0) {
		abort();
	} else if (strcmp(mode, "kill") == 0) {
		kill(getpid(), SIGQUIT);
	} else {
		volatile int *p = (volatile int *)0x10;
		printf("fault 0x10\n");
		fflush(stdout);
		*p = 1;
	}
	return 0;
}
