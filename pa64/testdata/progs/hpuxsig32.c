/* Freestanding PA-RISC 1.1 (32-bit) program for the interpreter: _start -> work(2)
   -> work(1) -> work(0) -> victim, which stores through a null pointer.
   The test then delivers SIGSEGV the HP-UX way (save state on the stack,
   sigtramp_hpux from hpuxtramp32.S, whose unwind entry carries
   HP_UX_interrupt_marker, calls handler) and handler -> hleaf faults
   again on a null store: the core's thread is stopped in hleaf. */
volatile long sink;
long *volatile nowhere;
__attribute__((noinline)) long victim(long *p, long v) { *p = v; return v + 1; }
__attribute__((noinline)) long work(long *p, long d) { long r = d ? work(p, d - 1) : victim(p, 7); sink += r; return r + 1; }
__attribute__((noinline)) void hleaf(long sig) { long buf[6]; for (int i = 0; i < 6; i++) buf[i] = sig + i; *nowhere = buf[sig & 3]; }
void handler(int sig, void *info, void *ctx) { long big[25]; big[sink & 15] = 1; hleaf(sig + big[3]); sink++; }
void _start(void) { work(0, 2); for (;;) ; }
