/* The HP-UX signal trampoline for the interpreter test: the kernel (the
   test) starts it with r22 = the handler; its unwind entry has
   HP_UX_interrupt_marker (.callinfo hpux_int), which tells an unwinder
   that the interrupted context's save_state_t lies below its sp. */
	.text
	.align 8
	.globl sigtramp_hpux
	.type sigtramp_hpux,@function
sigtramp_hpux:
	.proc
	.callinfo frame=0,calls,hpux_int
	.entry
	bve,l (%r22),%r2
	nop
	break 0,0
	.exit
	.procend
	.size sigtramp_hpux, .-sigtramp_hpux
