/* crashkinds.c: one crash of each kind the report explains, chosen by
 * argv[1]. Built at -O0 so every access is the instruction the source
 * says. The struct's field offsets are what the tests ask gdb about. */
#include <assert.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

struct record {
	long id, size, flags;
	int count; /* offset 0x18 */
};

volatile int sink;

__attribute__((noinline)) int read_count(struct record *r) { return r->count; }
__attribute__((noinline)) void write_count(struct record *r) { r->count = 42; }

/* Optimized, gcc folds the NULL pointer into the instruction's constant
 * address (movl $0x0,0x0; mov 0x18,%eax): no register holds it. */
__attribute__((noinline, optimize("O2"))) void write_null_constant(void) { *(volatile int *)0 = 0; }
__attribute__((noinline, optimize("O2"))) int read_null_constant(void) { return ((volatile struct record *)0)->count; }

typedef void (*handler)(void);
__attribute__((noinline)) void dispatch(handler h) { h(); }

int down_b(int n);
__attribute__((noinline)) int down_a(int n) {
	volatile char pad[512];
	pad[n % 512] = (char)n;
	return down_b(n + 1) + pad[0];
}
__attribute__((noinline)) int down_b(int n) {
	volatile char pad[512];
	pad[n % 512] = (char)n;
	return down_a(n + 1) + pad[0];
}

static void *overflow_thread(void *arg) { return (void *)(long)down_a((int)(long)arg); }

__attribute__((noinline)) int read_bad_pointer(long *p) { return (int)*p; }

__attribute__((noinline)) void shout(char *s) { s[0] = 'H'; }

__attribute__((noinline)) void check_balance(int balance) { assert(balance >= 0); }

__attribute__((noinline)) void release_twice(void) {
	char *p = malloc(32);
	free(p);
	free(p);
}

__attribute__((noinline)) void unreachable(void) { __builtin_trap(); }

__attribute__((noinline)) int average(int total, int n) { return total / n; }

/* Optimized, gcc makes the check a conditional trap where the machine
 * has one (Power's tdeqi r3,0). */
__attribute__((noinline, optimize("O2"))) int checked_average(int total, int n) {
	if (n == 0)
		__builtin_trap();
	return total / n;
}

__attribute__((noinline)) int read_past_end(const char *path) {
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || ftruncate(fd, 8192) != 0)
		return -1;
	volatile char *m = mmap(NULL, 8192, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED || ftruncate(fd, 4096) != 0)
		return -1;
	return m[4096];
}

/* Code bytes (a ret) in .data, which is mapped without execute
 * permission. */
unsigned char data_code[16] = {0xc3};

/* x86's alignment check: with EFLAGS.AC set (Linux keeps CR0.AM on), a
 * misaligned access in user mode raises #AC, SIGBUS BUS_ADRALN. The
 * stack pointer moves below the red zone first, where -O0 keeps p. */
__attribute__((noinline)) int read_misaligned(char *p) {
#if defined(__x86_64__)
	__asm__ volatile("sub $128, %%rsp; pushfq; orq $0x40000, (%%rsp); popfq; add $128, %%rsp" ::: "memory", "cc");
#elif defined(__i386__)
	__asm__ volatile("pushfl; orl $0x40000, (%%esp); popfl" ::: "memory", "cc");
#endif
	return *(volatile int *)(p + 1);
}

int main(int argc, char **argv) {
	const char *k = argc > 1 ? argv[1] : "";
	volatile int zero = 0;
	if (!strcmp(k, "null-read"))
		return read_count(NULL);
	if (!strcmp(k, "null-write"))
		write_count(NULL);
	if (!strcmp(k, "null-constant-write"))
		write_null_constant();
	if (!strcmp(k, "null-constant-read"))
		return read_null_constant();
	if (!strcmp(k, "wild-call"))
		dispatch((handler)0xdead0000);
	if (!strcmp(k, "stack-overflow"))
		return down_a(0);
	if (!strcmp(k, "thread-overflow")) {
		pthread_t t;
		pthread_create(&t, NULL, overflow_thread, NULL);
		pthread_join(t, NULL);
	}
	if (!strcmp(k, "non-canonical"))
		return read_bad_pointer((long *)0x8000000000000010UL);
	if (!strcmp(k, "rodata-write"))
		shout("hello");
	if (!strcmp(k, "assert"))
		check_balance(-5 + zero);
	if (!strcmp(k, "double-free"))
		release_twice();
	if (!strcmp(k, "sigill"))
		unreachable();
	if (!strcmp(k, "sigfpe"))
		return average(10, zero);
	if (!strcmp(k, "cond-trap"))
		return checked_average(10, zero);
	if (!strcmp(k, "sigbus"))
		return read_past_end("truncated.dat");
	if (!strcmp(k, "exec-data"))
		dispatch((handler)data_code);
	if (!strcmp(k, "misaligned")) {
		static long buf[4];
		return read_misaligned((char *)buf);
	}
	fprintf(stderr, "unknown kind %s\n", k);
	return 2;
}
