/* sigtramp_i386.c (i386 only): signal handlers installed with the raw
 * rt_sigaction system call and SA_RESTORER pointing at this file's own
 * trampolines __restore and __restore_rt, written like glibc's and the
 * vDSO's but WITHOUT CFI: an unwinder must recognize them by their code
 * and read the interrupted registers from the frame the kernel built.
 *   old: without SA_SIGINFO the kernel builds the old struct sigframe;
 *   rt:  with SA_SIGINFO, struct rt_sigframe.
 * The handler stores through NULL while SIGSEGV is blocked, so the kernel
 * kills the process inside it. */
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The nops keep a return-address lookup (pc-1) of a trampoline out of
 * the function before it, as the vDSO does. */
asm(".text\n"
    "	nop\n"
    "	.type __restore, @function\n"
    "__restore:\n"
    "	popl %eax\n"
    "	movl $119, %eax\n" /* __NR_sigreturn */
    "	int $0x80\n"
    "	.size __restore, .-__restore\n"
    "	nop\n"
    "	.type __restore_rt, @function\n"
    "__restore_rt:\n"
    "	movl $173, %eax\n" /* __NR_rt_sigreturn */
    "	int $0x80\n"
    "	.size __restore_rt, .-__restore_rt\n");

void __restore(void);
void __restore_rt(void);

/* The kernel's struct sigaction for rt_sigaction on i386. */
struct kernel_sigaction {
	void (*handler)(int);
	unsigned long flags;
	void (*restorer)(void);
	unsigned long mask[2];
};

#define K_SA_SIGINFO 0x4
#define K_SA_RESTORER 0x04000000

volatile int sink;
int *volatile null_ptr;

__attribute__((noinline)) static void handler_crash(int *p) {
	*p = 42;
	sink = 1;
}

static void on_segv(int sig) {
	handler_crash(null_ptr);
	sink = sig;
}

__attribute__((noinline)) static void fault_here(void) {
	*null_ptr = 7;
	sink = 2;
}

__attribute__((noinline)) static void run(int rt) {
	struct kernel_sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.handler = on_segv;
	sa.flags = K_SA_RESTORER | (rt ? K_SA_SIGINFO : 0);
	sa.restorer = rt ? __restore_rt : __restore;
	syscall(SYS_rt_sigaction, 11, &sa, (void *)0, 8);
	fault_here();
	sink = 3;
}

int main(int argc, char **argv) {
	run(argc > 1 && strcmp(argv[1], "rt") == 0);
	return 0;
}
