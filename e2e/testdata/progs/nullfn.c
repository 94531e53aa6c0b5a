/* nullfn.c: a call through a null function pointer (pc 0, no code), two
 * calls deep; at -O2 handler_table tail-calls dispatch. */
typedef void (*fn)(void);
__attribute__((noinline)) void dispatch(fn f) { f(); __asm__ volatile(""); }
__attribute__((noinline)) void handler_table(int i) { fn t[2] = {0, 0}; dispatch(t[i]); }
int main(int argc, char **argv) { handler_table(argc - 1); return 0; }
