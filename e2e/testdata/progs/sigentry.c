/* sigentry.c: faults on a function's first instruction, where the function
 * before it in the text covers the byte before: a frame whose PC is looked
 * up as a return address (PC-1) gets that function's name and CFI row.
 *   handler:  entry_fault's first instruction stores through NULL; the
 *             SIGSEGV handler (SA_SIGINFO|SA_NODEFER|SA_RESETHAND, so the
 *             second fault kills) calls handler_fault, whose first
 *             instruction stores through NULL too. The frame the signal
 *             interrupted is entry_fault at its first byte.
 *   restorer: the same, with the handler installed by the raw rt_sigaction
 *             system call and a trampoline of our own without CFI, so the
 *             unwinder must recognize it by its code.
 *   overflow: a thread with a small stack recurses until the push of %rbp,
 *             overflow_entry's first instruction, hits the guard page;
 *             overflow_missed precedes it in the text. */
#include <pthread.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

void entry_fault(void);
void handler_fault(void);
void call_misaligned(void (*fn)(void));
void own_restore_rt(void);

/* Hand-written so that the layout is fixed: before_entry_fault ends in a
 * call with %rbp pushed (CFA = rsp+16 at its last byte) and entry_fault
 * starts right after it (CFA = rsp+8 at its first byte). */
__asm__(
	"	.text\n"
	"	.p2align 4\n"
	"	.type before_entry_fault, @function\n"
	"before_entry_fault:\n"
	"	.cfi_startproc\n"
	"	push %rbp\n"
	"	.cfi_def_cfa_offset 16\n"
	"	.cfi_offset %rbp, -16\n"
	"	call abort@PLT\n"
	"	.cfi_endproc\n"
	"	.size before_entry_fault, .-before_entry_fault\n"
	"	.globl entry_fault\n"
	"	.type entry_fault, @function\n"
	"entry_fault:\n"
	"	.cfi_startproc\n"
	"	movl $7, 0\n"
	"	ret\n"
	"	.cfi_endproc\n"
	"	.size entry_fault, .-entry_fault\n"
	"	.globl handler_fault\n"
	"	.type handler_fault, @function\n"
	"handler_fault:\n"
	"	.cfi_startproc\n"
	"	movl $8, 0\n"
	"	ret\n"
	"	.cfi_endproc\n"
	"	.size handler_fault, .-handler_fault\n"
	/* Calls fn with the stack 8 bytes off the ABI's 16-byte alignment, so
	 * that in overflow_entry's 16-byte frames the return address lands on
	 * a 16-byte boundary and the push of %rbp is the first write below
	 * the guard page's upper edge (an aligned call would fault on the
	 * call's own push instead). */
	"	.globl call_misaligned\n"
	"	.type call_misaligned, @function\n"
	"call_misaligned:\n"
	"	.cfi_startproc\n"
	"	push %rbp\n"
	"	.cfi_def_cfa_offset 16\n"
	"	.cfi_offset %rbp, -16\n"
	"	mov %rsp, %rbp\n"
	"	.cfi_def_cfa_register %rbp\n"
	"	sub $8, %rsp\n"
	"	call *%rdi\n"
	"	leave\n"
	"	.cfi_def_cfa %rsp, 8\n"
	"	ret\n"
	"	.cfi_endproc\n"
	"	.size call_misaligned, .-call_misaligned\n"
	/* The rt_sigreturn trampoline, without CFI. gdb recognizes a
	 * trampoline by its code when it has no name or glibc's
	 * (__restore_rt); own_restore_rt is the untyped global alias run()
	 * refers to it by. The byte before it has no CFI (else a lookup at
	 * the handler's return address minus one would find that CFI, not
	 * the trampoline) but a symbol of its own, sigreturn_pad: naming the
	 * trampoline's frame at pc-1 would say sigreturn_pad. */
	"	.p2align 4\n"
	"	.type sigreturn_pad, @function\n"
	"sigreturn_pad:\n"
	"	nop\n"
	"	.size sigreturn_pad, .-sigreturn_pad\n"
	"	.type __restore_rt, @function\n"
	"	.globl own_restore_rt\n"
	"__restore_rt:\n"
	"own_restore_rt:\n"
	"	.byte 0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00\n" /* mov $15,%rax (rt_sigreturn) */
	"	syscall\n"
	"	.size __restore_rt, .-__restore_rt\n");

volatile int sink;
void (*volatile in_handler)(void) = handler_fault;

static void on_segv(int sig, siginfo_t *si, void *uc) {
	in_handler();
	sink = sig;
}

/* The kernel's struct sigaction for rt_sigaction (not glibc's). */
struct kernel_sigaction {
	void (*handler)(int, siginfo_t *, void *);
	unsigned long flags;
	void (*restorer)(void);
	unsigned long mask;
};

#define SA_RESTORER 0x04000000

__attribute__((noinline)) static void run(const char *mode) {
	if (strcmp(mode, "restorer") == 0) {
		struct kernel_sigaction ksa = {on_segv, SA_SIGINFO | SA_NODEFER | SA_RESETHAND | SA_RESTORER,
		                               own_restore_rt, 0};
		syscall(SYS_rt_sigaction, SIGSEGV, &ksa, NULL, sizeof ksa.mask);
	} else {
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_sigaction = on_segv;
		sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_RESETHAND;
		sigaction(SIGSEGV, &sa, NULL);
	}
	entry_fault();
	sink = 3;
}

volatile unsigned long overflow_depth;

/* Right before overflow_entry in the text (gcc -O0 does not align
 * functions): it ends in a call that does not return, with %rbp pushed,
 * so the CFI row of its last byte is not the one of overflow_entry's
 * first. */
__attribute__((noinline, noreturn)) static void overflow_missed(void) {
	abort();
}

/* At -O0 with no locals and no arguments: push %rbp; mov %rsp,%rbp; ...;
 * call overflow_entry; a 16-byte frame that writes nothing else. */
__attribute__((noinline)) void overflow_entry(void) {
	overflow_depth++;
	if (overflow_depth < 100000000)
		overflow_entry();
	else
		overflow_missed();
}

static pid_t main_tid;

/* Waits until the main thread sleeps in pthread_join, so that the core
 * always shows it there (not somewhere in pthread_create). */
static void wait_for_main_to_sleep(void) {
	char path[64], stat[512];
	snprintf(path, sizeof path, "/proc/self/task/%d/stat", (int)main_tid);
	for (;;) {
		int fd = open(path, O_RDONLY);
		ssize_t n = fd < 0 ? -1 : read(fd, stat, sizeof stat - 1);
		if (fd >= 0)
			close(fd);
		if (n < 0)
			abort();
		stat[n] = 0;
		char *state = strrchr(stat, ')'); /* "pid (comm) S ..." */
		if (state && state[1] == ' ' && state[2] == 'S')
			return;
		usleep(1000);
	}
}

static void *overflow_thread(void *arg) {
	wait_for_main_to_sleep();
	call_misaligned(overflow_entry);
	return arg;
}

/* 32 KiB of stack (glibc adds a guard page below it): about 2000 frames of 16 bytes, a whole walk well
 * under --max-frames' default of 4096. */
static void overflow(void) {
	pthread_attr_t attr;
	pthread_t th;
	main_tid = getpid(); /* the main thread's tid */
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 32 * 1024);
	pthread_create(&th, &attr, overflow_thread, NULL);
	pthread_join(th, NULL);
}

int main(int argc, char **argv) {
	const char *mode = argc > 1 ? argv[1] : "handler";
	if (strcmp(mode, "overflow") == 0)
		overflow();
	else
		run(mode);
	return 0;
}
