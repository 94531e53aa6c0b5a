/* C for the readelf -u comparison: leaves, frames with locals, calls
 * through pointers, variadic calls, alloca (a frame pointer even at -O2). */
#include <alloca.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int leaf(int *p) { return *p; }

int sum(int n, ...)
{
	va_list ap;
	int s = 0;
	va_start(ap, n);
	while (n-- > 0)
		s += va_arg(ap, int);
	va_end(ap);
	return s;
}

int locals(int n)
{
	char buf[300];
	double d = n * 1.5;
	snprintf(buf, sizeof buf, "%d %f", n, d);
	return (int)strlen(buf) + leaf(&n);
}

int dynamic(int n)
{
	char *p = alloca(n + 16);
	memset(p, 1, n + 16);
	return p[n] + locals(n) + sum(3, n, n, n);
}

int main(int argc, char **argv)
{
	int (*fn)(int) = argc > 5 ? locals : dynamic;
	return fn(argc) + (argv[0][0] == 0);
}
