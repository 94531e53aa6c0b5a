/* dlopen_main.c: loads the plugin named in argv[1] with dlopen and calls its
 * plugin_entry, which crashes inside the library. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

volatile int sink;

__attribute__((noinline)) static int call_plugin(const char *path) {
	void *h = dlopen(path, RTLD_NOW);
	if (h == NULL) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		exit(9);
	}
	int (*entry)(int) = (int (*)(int))dlsym(h, "plugin_entry");
	if (entry == NULL)
		exit(10);
	int r = entry(3);
	sink = r;
	return r;
}

int main(int argc, char **argv) {
	if (argc < 2)
		return 2;
	sink = call_plugin(argv[1]);
	return 0;
}
