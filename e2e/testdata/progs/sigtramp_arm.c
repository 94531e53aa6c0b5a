/* sigtramp_arm.c (32-bit ARM only): signal handlers installed with the
 * raw rt_sigaction system call, returning through trampolines without
 * unwind info, so that an unwinder must recognize them by their code and
 * read the interrupted registers from the frame the kernel built:
 *   arm-old:  this file's ARM-code "mov r7, #119; svc 0", without
 *             SA_SIGINFO (struct sigframe);
 *   thumb-rt: this file's Thumb "movs r7, #173; svc 0", with SA_SIGINFO
 *             (struct rt_sigframe);
 *   none-rt:  no SA_RESTORER: the kernel's (here qemu's) own trampoline.
 * The handler stores through NULL while SIGSEGV is blocked, so the
 * process dies inside it. */
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

asm(".text\n"
    "	.arm\n"
    "	nop\n"
    "	.type restore_arm, %function\n"
    "restore_arm:\n"
    "	mov r7, #119\n" /* __NR_sigreturn */
    "	svc #0\n"
    "	.size restore_arm, .-restore_arm\n"
    "	.thumb\n"
    "	.syntax unified\n"
    "	nop\n"
    "	.type restore_thumb, %function\n"
    "	.thumb_func\n"
    "restore_thumb:\n"
    "	movs r7, #173\n" /* __NR_rt_sigreturn */
    "	svc #0\n"
    "	.size restore_thumb, .-restore_thumb\n"
    "	.arm\n");
void restore_arm(void);
void restore_thumb(void);

/* The kernel's struct sigaction for rt_sigaction. */
struct ksigaction {
	void (*handler)(int);
	unsigned long flags;
	void (*restorer)(void);
	unsigned long mask[2];
};
#define KSA_RESTORER 0x04000000

int *volatile target;

__attribute__((noinline)) void handler_crash(int sig) { *target = sig; }

static void on_usr1(int sig) {
	handler_crash(sig);
	__asm__ volatile("");
}

__attribute__((noinline)) void interrupted(void) {
	raise(SIGUSR1);
	__asm__ volatile("");
}

int main(int argc, char **argv) {
	struct ksigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.handler = on_usr1;
	sa.mask[0] = 1UL << (SIGSEGV - 1);
	const char *mode = argc > 1 ? argv[1] : "arm-old";
	if (strcmp(mode, "arm-old") == 0) {
		sa.flags = KSA_RESTORER;
		sa.restorer = restore_arm;
	} else if (strcmp(mode, "thumb-rt") == 0) {
		sa.flags = KSA_RESTORER | SA_SIGINFO;
		sa.restorer = (void (*)(void))((unsigned long)restore_thumb | 1);
	} else {
		sa.flags = SA_SIGINFO;
	}
	syscall(SYS_rt_sigaction, SIGUSR1, &sa, 0, 8);
	interrupted();
	return 0;
}
