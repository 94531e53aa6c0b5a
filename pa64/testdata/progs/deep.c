/* Deep stacks for qemu-hppa (PA-RISC stacks grow up):
     deep N       recursion N levels deep, then a null store;
     overflow     unbounded recursion until the stack runs out. */
#include <stdlib.h>
#include <string.h>
volatile int *volatile nullp;
volatile long sink;
__attribute__((noinline)) long down(long n) {
  volatile char pad[48];
  pad[n & 31] = (char)n;
  if (n == 0) {
    *nullp = 1;
    return 0;
  }
  return down(n - 1) + pad[3];
}
__attribute__((noinline)) long forever(long n) {
  volatile char pad[200];
  pad[n & 127] = (char)n;
  return forever(n + 1) + pad[5];
}
int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "overflow") == 0)
    sink = forever(0);
  else
    sink = down(argc > 2 ? atol(argv[2]) : 3000);
  return 0;
}
