/* livemem.c: a process whose core should be sparse and hold its vector
 * registers, for coreunwind gcore / -p --dump:
 *   big      256 MiB of anonymous memory, three pages of it written
 *            ("first" at its start, "middle" 128 MiB in, "last" in its
 *            last page), the rest never touched
 *   vectors  a thread with ymm0 = bytes 1..32, parked in the pause system
 *            call made from the same asm block (no C library code between
 *            the load and the stop to touch the register)
 * It prints "ready" once the vectors thread is on its way to its call;
 * the test then waits for the kernel to show every thread asleep. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define BIG (256UL << 20)

char *big;
static pthread_barrier_t started;
static const unsigned char pattern[32] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
	17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32};

static void *vectors(void *arg) {
	pthread_barrier_wait(&started);
	__asm__ volatile("vmovdqu %0, %%ymm0\n\t"
			 "1: mov $34, %%eax\n\t" /* SYS_pause */
			 "syscall\n\t"
			 "jmp 1b"
			 :
			 : "m"(pattern)
			 : "rax", "rcx", "r11", "memory");
	return arg;
}

int main(void) {
	big = mmap(0, BIG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (big == MAP_FAILED)
		return 1;
	strcpy(big, "first");
	strcpy(big + BIG / 2, "middle");
	strcpy(big + BIG - 4096, "last");
	pthread_barrier_init(&started, 0, 2);
	pthread_t t;
	pthread_create(&t, 0, vectors, 0);
	pthread_barrier_wait(&started);
	printf("ready\n");
	fflush(stdout);
	for (;;)
		pause();
}
