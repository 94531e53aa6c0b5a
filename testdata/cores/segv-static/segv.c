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
