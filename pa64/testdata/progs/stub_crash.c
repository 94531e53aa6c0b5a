/* Single-threaded: SIGSEGV inside the linker's import stub for strlen.
   measure clears dp (r27), through which the non-PIC stub loads strlen's
   PLT entry (addil L%0,dp,r1; ldo N(r1),r22; ldw 0(r22),r21; bv r0(r21)),
   so the thread stops in the stub: no unwind entry, rp still the return
   into measure, sp unchanged. */
#include <string.h>
volatile int sink;
__attribute__((noinline)) size_t measure(const char *s) {
  __asm__ volatile("copy %%r0,%%r27" ::: "memory");
  size_t n = strlen(s);
  sink += n;
  return n;
}
__attribute__((noinline)) int middle(const char *s, int depth) {
  if (depth) return middle(s, depth - 1) + 1;
  return (int)measure(s);
}
int main(int argc, char **argv) { return middle(argv[0], 2); }
