/* Freestanding PA-RISC 2.0W program for the interpreter: a loop whose
   compare-and-branch nullifies the instruction after it. The test stops
   the machine (as an interrupt would) right when the front of the queue is
   a nullified instruction. _start -> outer -> count. */
volatile long sink;
__attribute__((noinline)) long count(long *a, long n) {
  long c = 0;
  for (long i = 0; i < n; i++)
    if (a[i] > 3)
      c++;
  return c;
}
__attribute__((noinline)) long outer(long n) {
  long a[16];
  for (long i = 0; i < 16; i++)
    a[i] = (i * 7) & 7;
  return count(a, n) + sink;
}
void _start(void) { sink = outer(16); *(volatile long *)0 = sink; for (;;) ; }
