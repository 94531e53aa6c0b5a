// A thread that stops in a system call: _start -> outer -> waiter, whose
// frame has an input, locals and two outputs (the syscall's arguments)
// when it executes the syscall break. On HP-UX the kernel takes the
// outputs as its inputs, so the saved ar.bsp is sol registers past the
// frame's beginning.
	.text
	.align 32
	.global _start
	.proc _start
_start:
	.prologue
	.save ar.pfs, r32
	alloc r32 = ar.pfs, 0, 2, 1, 0
	.save rp, r33
	mov r33 = b0
	.body
	mov r4 = 404
	mov r34 = 3
	br.call.sptk.many b0 = outer
	;;
	break.i 0x100001
	;;
	.endp _start

	.global outer
	.proc outer
outer:
	.prologue
	.save ar.pfs, r33
	alloc r33 = ar.pfs, 1, 2, 1, 0
	.fframe 48
	adds sp = -48, sp
	.save rp, r34
	mov r34 = b0
	.body
	;;
	adds r35 = 1, r32
	br.call.sptk.many b0 = waiter
	;;
	mov ar.pfs = r33
	mov b0 = r34
	.restore sp
	adds sp = 48, sp
	br.ret.sptk.many b0
	;;
	.endp outer

	.global waiter
	.proc waiter
waiter:
	.prologue
	.save ar.pfs, r33
	alloc r33 = ar.pfs, 1, 3, 2, 0
	.save rp, r34
	mov r34 = b0
	.body
	;;
	mov r35 = 35
	mov r36 = r32
	mov r37 = 37
	mov r15 = 1204
	;;
	break.i 0x100000
	;;
	mov ar.pfs = r33
	mov b0 = r34
	br.ret.sptk.many b0
	;;
	.endp waiter
