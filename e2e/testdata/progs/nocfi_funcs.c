/* nocfi_funcs.c: compiled with -O0 -fno-asynchronous-unwind-tables
 * -fno-unwind-tables, so these functions have frame pointers but no CFI. */
extern volatile int sink;

__attribute__((noinline)) int nocfi_c(int *p, int (*cb)(int *, int)) {
	int r = cb(p, 5);
	sink = r;
	return r + 1;
}

__attribute__((noinline)) int nocfi_b(int *p, int (*cb)(int *, int)) {
	int r = nocfi_c(p, cb);
	sink = r;
	return r + 1;
}

__attribute__((noinline)) int nocfi_a(int *p, int (*cb)(int *, int)) {
	int r = nocfi_b(p, cb);
	sink = r;
	return r + 1;
}
