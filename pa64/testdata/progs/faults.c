/* faults.c: a NULL field read or write, chosen by argv[1], at -O0 so
   the access is the instruction the source says. */
#include <string.h>
struct record {
	long id, size, flags;
	int count; /* offset 12 on hppa */
};
__attribute__((noinline)) int read_count(struct record *r) { return r->count; }
__attribute__((noinline)) void write_count(struct record *r) { r->count = 42; }
int main(int argc, char **argv) {
	if (argc > 1 && !strcmp(argv[1], "write"))
		write_count(0);
	return read_count(0);
}
