/* Callee-saved floating-point registers (fr12..fr21) live across calls
   in frames of every shape: a plain frame saving all ten, a frame over
   8 KiB (r1 set up by addil), an alloca frame (saves through r3), and
   main's values under all of them. Frame by frame, the values an unwinder
   recovers must be what each caller held when it made its call. */
#include <alloca.h>
volatile double sink;
volatile int *volatile nullp;
volatile int depth = 16;
__attribute__((noinline)) void crash(double x) { sink = x; *nullp = 1; }
__attribute__((noinline)) double opaque(double x) { return x * 1.5; }
__attribute__((noinline)) double fpmany(double a, double b) {
  double v0 = opaque(a), v1 = opaque(b), v2 = opaque(a + 1), v3 = opaque(b + 2);
  double v4 = opaque(a + 3), v5 = opaque(b + 4), v6 = opaque(a + 5), v7 = opaque(b + 6);
  double v8 = opaque(a + 7), v9 = opaque(b + 8);
  crash(v0);
  return v0 + v1 + v2 + v3 + v4 + v5 + v6 + v7 + v8 + v9;
}
__attribute__((noinline)) double withalloca(double a) {
  volatile char *p = alloca(depth * 100);
  p[0] = 2;
  double k0 = opaque(a * 19), k1 = opaque(a * 23), k2 = opaque(a * 29);
  double r = fpmany(a + p[0], a * 31);
  return r + k0 + k1 + k2;
}
__attribute__((noinline)) double bigfp(double a) {
  volatile char buf[10000];
  buf[0] = 1;
  double k0 = opaque(a), k1 = opaque(a + 1), k2 = opaque(a + 2);
  double r = withalloca(a + buf[0]);
  return r + k0 + k1 + k2;
}
__attribute__((noinline)) double outer(double a) {
  double k0 = a * 3, k1 = a * 5, k2 = a * 7, k3 = a * 11, k4 = a * 13, k5 = a * 17;
  double r = bigfp(a);
  return r + k0 + k1 + k2 + k3 + k4 + k5;
}
int main(int argc, char **argv) {
  (void)argv;
  double m0 = argc * 0.5, m1 = argc * 0.75;
  sink = outer(argc + 0.25) * m0 + m1;
  return 0;
}
