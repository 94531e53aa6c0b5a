/* Calls the millicode routine in savemrp.S as millicode is called: b,l
   with r31 as the link register. */
__attribute__((noinline)) void call_mill(void) {
  asm volatile("bl mill_crash,%%r31\n\tnop" ::: "r31", "r1", "memory");
}
int main(void) {
  call_mill();
  return 0;
}
