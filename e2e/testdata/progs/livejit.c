/* livejit.c: code liveproc.c loads and registers with the GDB JIT
 * interface (built -nostdlib -static at a fixed address, with CFI and
 * DWARF): jit_entry -> jit_middle -> the host's blocking function. */
__attribute__((noinline)) static void jit_middle(void (*block)(void)) {
	block();
	__asm__ volatile("");
}

void jit_entry(void (*block)(void)) {
	jit_middle(block);
	__asm__ volatile("");
}
