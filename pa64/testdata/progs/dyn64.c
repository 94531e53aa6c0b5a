/* Freestanding PA-RISC 2.0W program for the interpreter in
   internal/crossarch/hppa whose .jit section plays generated code: it is
   linked in a segment of its own that the test's core does not attribute
   to the executable, and is described only by the _U_dyn_info_list the
   test writes into dyn_area. _start -> top -> jit_a (a 0x150-byte frame
   without frame pointer) -> jit_b (std,ma frame, r3 saved, an epilogue in
   the middle) -> jit_c -> leaf, which stores through a null pointer. */
volatile long sink;
struct { unsigned version, generation; void *first; } _U_dyn_info_list;
char dyn_area[4096] __attribute__((aligned(16)));
#define JIT __attribute__((noinline, section(".jit")))
__attribute__((noinline)) long leaf(long *p, long v) { long buf[4]; for (int i = 0; i < 4; i++) buf[i] = v + i; *p = buf[v & 3]; return buf[1]; }
JIT long jit_c(long *p, long v) { long r = leaf(p, v + 1); sink += r; return r + 2; }
JIT long jit_b(long *p, long v) { long acc = v; for (long i = 0; i < v; i++) acc += sink ^ i; long r = jit_c(p, acc); sink += r + acc; return r + acc; }
JIT long jit_a(long *p, long n) { char big[200]; big[sink & 127] = 1; return jit_b(p, n) + big[3]; }
__attribute__((noinline)) long top(long *p) { long r = jit_a(p, 3); sink += r; return r; }
void _start(void) { top((long *)0); for (;;) ; }
