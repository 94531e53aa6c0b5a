// sortcrash.c: a NULL weight in qsort's comparison callback, while three
// threads wait (two on a condition variable, one asleep): by the number
// of arguments, a read through the NULL pointer (1), abort() (2) or
// strlen(NULL) inside the C library (3).
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <unistd.h>
struct item { const char *name; int *weight; };
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int ready;
static int mode;
__attribute__((noinline)) static int validate_pair(const struct item *a, const struct item *b) {
	if (mode == 2 && (!a->weight || !b->weight)) abort();
	if (mode == 3 && (!a->weight || !b->weight)) return (int)strlen(a->weight ? a->name : NULL);
	return *a->weight - *b->weight;
}
static int by_weight(const void *x, const void *y) {
	return validate_pair(x, y);
}
static void *waiter(void *arg) {
	pthread_mutex_lock(&mu);
	ready++;
	while (ready < 100) pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	return arg;
}
static void *sleeper(void *arg) { for (;;) sleep(100); return arg; }
int main(int argc, char **argv) {
	pthread_t t[3];
	mode = argc;
	pthread_create(&t[0], 0, waiter, 0);
	pthread_create(&t[1], 0, waiter, 0);
	pthread_create(&t[2], 0, sleeper, 0);
	while (1) { pthread_mutex_lock(&mu); int r = ready; pthread_mutex_unlock(&mu); if (r == 2) break; usleep(1000); }
	usleep(20000);
	static int w[8] = {5, 3, 9, 1, 7, 2, 8, 4};
	struct item items[8];
	for (int i = 0; i < 8; i++) { items[i].name = "x"; items[i].weight = &w[i]; }
	items[5].weight = argc > 5 ? &w[0] : NULL;
	qsort(items, 8, sizeof items[0], by_weight);
	printf("%s\n", items[0].name);
	return 0;
}
