#!/bin/sh
# make.sh rebuilds the small real cores shipped in this directory, each in
# its own folder with the program's source, its binary, the core and
# expected.gdb.txt (gdb's "thread apply all bt" of that core):
#
#   segv-static/  a static C program storing through NULL (self-contained:
#                 works on any x86_64 Linux machine)
#   abort-dyn/    a dynamically linked C program calling abort()
#   threads-dyn/  a dynamically linked C program with three threads parked
#                 in different calls while the main thread crashes
#
# libs.txt lists the shared libraries each dynamic program used, with their
# build IDs, so tests can tell whether this machine's libc is the one the
# core was made with. expected.eu-stack.txt is eu-stack's view of the same
# core: gdb alone adds frames no unwinder can see (tail calls it rebuilds
# from DW_TAG_call_site), so tests judge by where the two tools agree.
# Needs gcc, gdb, eu-stack, readelf and core_pattern "core".
# Usage: sh testdata/cores/make.sh   (run from anywhere)
set -eu
cd "$(dirname "$0")"
here=$(pwd)

if [ "$(cat /proc/sys/kernel/core_pattern)" != core ]; then
	echo "make.sh: /proc/sys/kernel/core_pattern must be 'core'" >&2
	exit 1
fi

# crash DIR BIN: runs ./BIN in DIR with cores enabled and checks the core.
crash() {
	(cd "$1" && rm -f core && sh -c 'ulimit -c unlimited; exec "$0"' "./$2" >/dev/null 2>&1) || true
	if [ ! -s "$1/core" ]; then
		echo "make.sh: $1/$2 left no core" >&2
		exit 1
	fi
	size=$(wc -c <"$1/core")
	if [ "$size" -gt 1048576 ]; then
		echo "make.sh: $1/core is $size bytes, more than 1 MB" >&2
		exit 1
	fi
	(cd "$1" && gdb -batch -nx \
		-ex 'set backtrace past-main on' -ex 'set backtrace past-entry on' \
		-ex 'set pagination off' -ex 'set width 0' -ex 'set print address on' \
		-ex 'thread apply all bt -frame-info location-and-address' \
		"./$2" core >expected.gdb.txt 2>/dev/null)
	(cd "$1" && eu-stack --core=core -e "./$2" -i -s -a >expected.eu-stack.txt 2>/dev/null) || true
}

# libs DIR BIN: records "path build-id" for each library BIN loads.
libs() {
	: >"$1/libs.txt"
	for lib in $(ldd "$1/$2" | sed -n 's|^[^/]*\(/[^ ]*\) (0x.*|\1|p'); do
		id=$(readelf -n "$lib" | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p')
		echo "$lib $id" >>"$1/libs.txt"
	done
}

mkdir -p segv-static abort-dyn threads-dyn

cat >segv-static/segv.c <<'C'
/* segv.c: a null store three calls deep, built -static. */
volatile int sink;

__attribute__((noinline)) static void write_record(int *slot, int v) {
	*slot = v;
	sink = v;
}

__attribute__((noinline)) static void save(int *slot, int v) {
	write_record(slot, v + 1);
	sink = 2;
}

int main(int argc, char **argv) {
	(void)argv;
	save(argc > 9 ? &argc : 0, argc);
	return 0;
}
C
(cd segv-static && gcc -g -O1 -static -o segv segv.c)
crash segv-static segv

cat >abort-dyn/abort.c <<'C'
/* abort.c: abort() two calls deep, dynamically linked. */
#include <stdlib.h>

volatile int sink;

__attribute__((noinline)) static void give_up(int why) {
	if (why > 0)
		abort();
	sink = why;
}

__attribute__((noinline)) static void check(int n) {
	give_up(n);
	sink = n;
}

int main(int argc, char **argv) {
	(void)argv;
	check(argc);
	return 0;
}
C
(cd abort-dyn && gcc -g -O1 -o abort abort.c)
crash abort-dyn abort
libs abort-dyn abort

cat >threads-dyn/threads.c <<'C'
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
C
(cd threads-dyn && gcc -g -O1 -pthread -o threads threads.c)
crash threads-dyn threads
libs threads-dyn threads

ls -l "$here"/*/core
