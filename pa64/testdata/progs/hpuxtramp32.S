/* The HP-UX signal trampoline for the interpreter test: the kernel (the
   test) starts it with r22 = the handler; its unwind entry has
   HP_UX_interrupt_marker (.callinfo hpux_int), which tells an unwinder
   that the interrupted context's save_state_t lies below its sp. */
	.text
	.align 4
	.globl sigtramp_hpux32
	.type sigtramp_hpux32,@function
sigtramp_hpux32:
	.proc
	.callinfo frame=0,calls,hpux_int
	.entry
	ble 0(%sr4,%r22)
	copy %r31,%r2
	nop
	break 0,0
	.exit
	.procend
	.size sigtramp_hpux32, .-sigtramp_hpux32
