/* cbugs: ten C bugs for the labelled triage corpus (bench/triage-corpus.sh,
 * e2e/triageeval_test.go). Usage: cbugs BUG CALLER [thread]
 * BUG is one of the names in bugs[] below; CALLER (a, b or c) is the path
 * that reaches it; "thread" runs it in a second thread. Each bug is one
 * function: the same bug reached through another caller, thread,
 * optimisation level or link mode must land in one bucket. */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))

static volatile int zero;
static int *volatile nowhere;
static char *volatile no_name;

/* What the compiler must not optimise away. Stores to it after a call
 * also keep the call from being a tail call: a tail call removes the
 * function with the bug from the stack at -O2. */
static void *volatile keep;

struct record { int id; int value; };

NOINLINE void store_record(struct record *r, int v) { r->value = v; keep = r; }
NOINLINE void bug_null_store(int x) { store_record((struct record *)nowhere, x); keep = 0; }

NOINLINE void reuse_session(int x) {
	/* A write through a dangling pointer corrupts the tcache's link
	 * (the second chunk freed is the list's head, its link the first
	 * word); glibc's malloc catches it on the second allocation after. */
	long *s1 = malloc(48), *s2 = malloc(48);
	keep = s1;
	keep = s2;
	free(s1);
	free(s2);
	s2[0] = (long)(((unsigned long)s2 >> 12) ^ (0x10001UL + 16 * (unsigned)x));
	keep = malloc(48);
	keep = malloc(48);
}
NOINLINE void bug_use_after_free(int x) { reuse_session(x); keep = 0; }

NOINLINE void release_buffer(char *p) { free(p); free(p); keep = p; }
NOINLINE void bug_double_free(int x) { release_buffer(malloc(16 + x % 5)); keep = 0; }

NOINLINE int check_balance(int balance) { assert(balance >= 0); return balance; }
NOINLINE void bug_assert(int x) { keep = (void *)(long)check_balance(-x - 1); }

enum state { IDLE, RUNNING, BROKEN };
NOINLINE void validate_state(enum state s) {
	if (s == BROKEN) {
		fprintf(stderr, "validate_state: broken state\n");
		abort();
	}
	keep = 0;
}
NOINLINE void bug_bad_state(int x) { validate_state(x >= 0 ? BROKEN : IDLE); keep = 0; }

NOINLINE int descend(int depth) {
	volatile char frame[256];
	frame[depth % 256] = (char)depth;
	return descend(depth + 1) + frame[0];
}
NOINLINE void bug_stack_overflow(int x) { keep = (void *)(long)descend(x); }

NOINLINE int compute_ratio(int a) { return a / zero; }
NOINLINE void bug_divide(int x) { keep = (void *)(long)compute_ratio(x + 1); }

typedef void (*handler)(int);
static handler volatile handlers[2] = { 0, (handler)0x10 };
NOINLINE void dispatch_event(int ev) { handlers[ev & 1](ev); keep = 0; }
NOINLINE void bug_bad_function_pointer(int x) { dispatch_event(1 + 2 * x); keep = 0; }

NOINLINE size_t parse_name(const char *s) { return strlen(s) + 1; }
static volatile size_t sink; /* a pure function's result, kept */
NOINLINE void bug_strlen_null(int x) { sink = parse_name(no_name) + (size_t)x; }

static const struct { const char *name; void (*fn)(int); } bugs[] = {
	{"null_store", bug_null_store},
	{"use_after_free", bug_use_after_free},
	{"double_free", bug_double_free},
	{"assert", bug_assert},
	{"bad_state", bug_bad_state},
	{"stack_overflow", bug_stack_overflow},
	{"divide", bug_divide},
	{"bad_function_pointer", bug_bad_function_pointer},
	{"strlen_null", bug_strlen_null},
};

static void (*chosen)(int);

/* Three callers, of different depths. */
NOINLINE int via_a(int x) { chosen(x); return x + 1; }
NOINLINE int via_b2(int x) { chosen(x * 3); return x - 1; }
NOINLINE int via_b(int x) { return via_b2(x + 2) * 2; }
NOINLINE int via_c(int x) { int r = via_a(x + 5); return r * 7; }

static char caller = 'a';
static void *run(void *arg) {
	int x = (int)(long)arg;
	switch (caller) {
	case 'b': via_b(x); break;
	case 'c': via_c(x); break;
	default: via_a(x);
	}
	return NULL;
}

int main(int argc, char **argv) {
	if (argc < 3) {
		fprintf(stderr, "usage: cbugs BUG CALLER [thread]\n");
		return 2;
	}
	for (size_t i = 0; i < sizeof bugs / sizeof bugs[0]; i++)
		if (!strcmp(argv[1], bugs[i].name))
			chosen = bugs[i].fn;
	if (!chosen) {
		fprintf(stderr, "cbugs: no bug %s\n", argv[1]);
		return 2;
	}
	caller = argv[2][0];
	if (argc > 3 && !strcmp(argv[3], "thread")) {
		pthread_t t;
		pthread_create(&t, NULL, run, (void *)(long)argc);
		pthread_join(t, NULL);
	} else {
		run((void *)(long)argc);
	}
	return 0;
}
