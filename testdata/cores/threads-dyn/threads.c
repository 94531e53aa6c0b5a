/* threads.c: three threads parked in nanosleep, read and a mutex, at
 * different depths; then the main thread stores through NULL. */
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

volatile int sink;
static atomic_int ready;
static pthread_mutex_t held = PTHREAD_MUTEX_INITIALIZER;
static int fds[2];

__attribute__((noinline)) static void *sleeper(void *arg) {
	struct timespec ts = {1000, 0};
	atomic_fetch_add(&ready, 1);
	nanosleep(&ts, 0);
	sink = 1;
	return arg;
}

__attribute__((noinline)) static void read_one(void) {
	char c;
	atomic_fetch_add(&ready, 1);
	sink = (int)read(fds[0], &c, 1);
}

__attribute__((noinline)) static void *reader(void *arg) {
	read_one();
	sink = 2;
	return arg;
}

__attribute__((noinline)) static void take_lock(void) {
	atomic_fetch_add(&ready, 1);
	pthread_mutex_lock(&held);
	sink = 3;
}

__attribute__((noinline)) static void lock_twice(void) {
	take_lock();
	sink = 4;
}

__attribute__((noinline)) static void *locker(void *arg) {
	lock_twice();
	sink = 5;
	return arg;
}

__attribute__((noinline)) static void crash_now(int *p) {
	*p = 6;
	sink = 6;
}

int main(void) {
	pthread_t t;
	pthread_attr_t attr;
	pipe(fds);
	pthread_mutex_lock(&held);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	pthread_create(&t, &attr, sleeper, 0);
	pthread_create(&t, &attr, reader, 0);
	pthread_create(&t, &attr, locker, 0);
	while (atomic_load(&ready) < 3)
		usleep(1000);
	usleep(100000);
	crash_now(0);
	return 0;
}
