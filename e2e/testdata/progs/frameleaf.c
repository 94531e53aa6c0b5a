/* frameleaf.c: a leaf function with a stack frame of its own (a volatile
 * array) that stores through NULL. At -O2 on s390x gcc keeps the caller's
 * r15 in a floating-point register in such a leaf instead of saving it
 * ("DW_CFA_register: r15 in r16 (f0)"), and qemu-user cores hold no
 * floating-point registers. main tail-calls mid. */
int *volatile target; /* NULL: stores through it crash */

__attribute__((noinline)) int leaf(int n) {
	volatile int buf[40];
	buf[n] = n;
	*target = buf[n / 2];
	return buf[3];
}

__attribute__((noinline)) int mid(int n) {
	return leaf(n + 1) + 1;
}

int main(int argc, char **argv) {
	(void)argv;
	return mid(argc);
}
