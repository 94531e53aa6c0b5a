/* Freestanding PA-RISC 2.0W test program: no libc exists for hppa64
   Linux, so everything is here. Each function exercises one unwind
   descriptor case: a leaf, a frame over 8 KiB, alloca, callee-saved
   general and floating-point registers, millicode (division), varargs. */
#include <stdarg.h>

volatile long sink;

__attribute__((noinline)) long leaf(long a, long b) { return a + b; }

__attribute__((noinline)) long big(long n) {
  volatile char buf[10000];
  for (int i = 0; i < (int)sizeof buf; i += 512) buf[i] = (char)n;
  return buf[n & 511] + leaf(n, 1);
}

__attribute__((noinline)) long al(long n) {
  volatile char *p = __builtin_alloca(n);
  p[0] = 1;
  return p[n / 2] + leaf(n, 2);
}

__attribute__((noinline)) double fr(double a, double b, int d) {
  double x = a * b, y = a + b, z = a - b, w = a / b;
  sink = leaf(1, 2);
  return d ? x * y + z * w + fr(x, y, d - 1) * a : x;
}

__attribute__((noinline)) long gr(long a, long b, long c, long d) {
  long x = a * b, y = a + b, z = a - b, w = a / b, v = c * d, u = c / d, t = c % d;
  sink = leaf(1, 2);
  return a > 100 ? x : x * y + z * w + v * u * t + gr(x, y, z, w);
}

__attribute__((noinline)) unsigned mil(unsigned a, unsigned b) { return a / b + a * b; }

__attribute__((noinline)) long va(int n, ...) {
  va_list ap;
  va_start(ap, n);
  long s = 0;
  for (int i = 0; i < n; i++) s += va_arg(ap, long);
  va_end(ap);
  return s + leaf(s, n);
}

void _start(void) {
  sink = big(3) + al(40) + (long)fr(1.5, 2.0, 2) + gr(1, 2, 3, 4) + mil(9, 3) + va(3, 1L, 2L, 3L);
  for (;;)
    ;
}
