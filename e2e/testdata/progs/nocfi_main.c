/* nocfi_main.c: has CFI; calls into nocfi_funcs.c (built without any unwind
 * tables) which calls back here, where the crash happens. An unwinder must
 * get from the callback through the CFI-less frames back to main. */
volatile int sink;

int nocfi_a(int *p, int (*cb)(int *, int));

__attribute__((noinline)) int crash_cb(int *p, int v) {
	*p = v;
	sink = v;
	return v;
}

int main(int argc, char **argv) {
	(void)argv;
	int *p = argc > 100 ? &argc : 0;
	int r = nocfi_a(p, crash_cb);
	sink = r;
	return 0;
}
