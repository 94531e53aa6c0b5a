#include <stdarg.h>
#include <alloca.h>
#include <string.h>
volatile int sink;
int leaf(int a, int b) { return a + b; }
__attribute__((noinline)) int big(int n) { char buf[10000]; memset(buf, n, sizeof buf); return buf[n] + leaf(n, 1); }
__attribute__((noinline)) int al(int n) { char *p = alloca(n); memset(p, 1, n); return p[n/2] + leaf(n,2); }
__attribute__((noinline)) double fr(double a, double b) { double x = a*b, y = a+b, z = a-b, w = a/b; sink = leaf(1,2); return x*y+z*w + fr(x,y) * a; }
__attribute__((noinline)) int gr(int a, int b, int c, int d) { int x = a*b, y = a+b, z = a-b, w = a/b, v = c*d, u = c/d, t = c%d; sink = leaf(1,2); return x*y+z*w+v*u*t + gr(x,y,z,w); }
__attribute__((noinline)) unsigned mil(unsigned a, unsigned b) { return a / b + a * b; }
int va(int n, ...) { va_list ap; va_start(ap, n); int s = 0; for (int i = 0; i < n; i++) s += va_arg(ap, int); va_end(ap); return s + leaf(s, n); }
int main(int argc, char **argv) { return big(argc) + al(argc) + (int)fr(argc, 2) + gr(argc,2,3,4) + mil(argc, 3) + va(3, 1, 2, 3); }
