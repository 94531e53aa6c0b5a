/* Freestanding PA-RISC 2.0W program for the interpreter in
   internal/crossarch/hppa: _start -> top (a 3000-byte frame) -> fp (an
   alloca frame: Save_SP, r3 as frame pointer) -> mid(2) -> mid(1) ->
   mid(0) -> leaf, which stores through a null pointer. */
volatile long sink;
__attribute__((noinline)) long leaf(long *p, long v) { long buf[8]; for (int i = 0; i < 8; i++) buf[i] = v + i; *p = buf[v & 7]; return buf[3]; }
__attribute__((noinline)) long mid(long *p, long d) { long r = d ? mid(p, d - 1) : leaf(p, 5); sink += r; return r + 1; }
__attribute__((noinline)) long fp(long *p, long n) { volatile char *a = __builtin_alloca(n); a[0] = 1; return mid(p, 2) + a[0]; }
__attribute__((noinline)) long top(long *p) { char big[3000]; big[sink & 1023] = 1; return fp(p, 40 + (sink & 7)) + big[5]; }
void _start(void) { top((long *)0); for (;;) ; }
