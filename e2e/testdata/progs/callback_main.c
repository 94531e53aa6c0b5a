/* callback_main.c: passes a crashing callback to libcallback.so, which
 * calls it five frames deep. */
int callback_walk(void (*cb)(int), int depth);

static volatile int *volatile callback_target;

__attribute__((noinline)) static void crash_in_callback(int v) {
	*callback_target = v;
}

__attribute__((noinline)) static int call_library(int depth) {
	int r = callback_walk(crash_in_callback, depth);
	return r + 1;
}

int main(void) {
	return call_library(5);
}
