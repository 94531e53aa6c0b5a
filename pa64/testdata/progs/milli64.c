/* Freestanding PA-RISC 2.0W program for the interpreter: 32-bit unsigned
   division and remainder, which hppa64 gcc compiles to calls of libgcc's
   millicode $$divU and $$remU (b,l $$divU,%rp: on PA 2.0W the millicode
   return pointer is rp, not r31 as on 32-bit). _start -> scale -> quot ->
   $$divU with a zero divisor, which traps (addi,tc) inside the millicode. */
volatile unsigned sink;
__attribute__((noinline)) unsigned quot(unsigned a, unsigned b) { return a / b + sink; }
__attribute__((noinline)) unsigned rem(unsigned a, unsigned b) { return a % b + sink; }
__attribute__((noinline)) unsigned scale(unsigned a, unsigned d) { unsigned q = quot(a, d); return q * 3 + rem(a, d + 1); }
void _start(void) { sink = scale(100, sink); for (;;) ; }
