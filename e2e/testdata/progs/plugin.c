/* plugin.c: a shared library whose entry point crashes two calls deep. */
volatile int plugin_sink;

__attribute__((noinline)) static int plugin_deep(int *p, int v) {
	*p = v;
	plugin_sink = v;
	return v;
}

__attribute__((noinline)) static int plugin_mid(int v) {
	int r = plugin_deep(0, v + 1);
	plugin_sink = r;
	return r;
}

int plugin_entry(int v) {
	int r = plugin_mid(v * 2);
	plugin_sink = r;
	return r;
}
