// _start -> outer (fixed memory frame, r4 spilled sp-relative) -> vf
// (variable frame, frame pointer in r35) -> srec x 6 -> crash.
// srec keeps everything in stacked registers: ar.pfs and rp in stacked
// GRs, its counter in a local, no memory frame, so sp is the same in
// every one of its frames and only bsp tells them apart. Every save is in
// a form gdb's IA-64 prologue analyser also follows, so gdb-multiarch can
// judge the whole chain.
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
	mov r4 = 4444
	mov r34 = 6
	br.call.sptk.many b0 = outer
	;;
	break.i 0x100000
	;;
	.endp _start

	.global outer
	.proc outer
outer:
	.prologue
	.save ar.pfs, r33
	alloc r33 = ar.pfs, 1, 3, 1, 0
	.fframe 32
	adds sp = -32, sp
	.save rp, r34
	mov r34 = b0
	;;
	.save.g 0x1
	.spillsp r4, 16
	adds r2 = 16, sp
	;;
	st8.spill [r2] = r4
	.body
	;;
	adds r4 = 1, r32
	mov r36 = r32
	br.call.sptk.many b0 = vf
	;;
	adds r2 = 16, sp
	;;
	ld8.fill r4 = [r2]
	mov ar.pfs = r33
	mov b0 = r34
	.restore sp
	adds sp = 32, sp
	br.ret.sptk.many b0
	;;
	.endp outer

	.global vf
	.proc vf
vf:
	.prologue
	.save ar.pfs, r33
	alloc r33 = ar.pfs, 1, 4, 1, 0
	.save rp, r34
	mov r34 = b0
	.vframe r35
	mov r35 = sp
	;;
	shladd r2 = r32, 4, r0
	;;
	sub sp = sp, r2
	;;
	adds sp = -16, sp
	.body
	;;
	mov r37 = r32
	br.call.sptk.many b0 = srec
	;;
	mov ar.pfs = r33
	mov b0 = r34
	.restore sp
	mov sp = r35
	br.ret.sptk.many b0
	;;
	.endp vf

	// srec(n): n stacked-register frames, then crash.
	.global srec
	.proc srec
srec:
	.prologue
	.save ar.pfs, r33
	alloc r33 = ar.pfs, 1, 3, 1, 0
	.save rp, r34
	mov r34 = b0
	.body
	;;
	adds r35 = -1, r32
	cmp.eq p6, p7 = 1, r32
	;;
	mov r36 = r35
	(p6) br.call.sptk.many b0 = crash
	;;
	(p7) br.call.sptk.many b0 = srec
	;;
	mov ar.pfs = r33
	mov b0 = r34
	br.ret.sptk.many b0
	;;
	.endp srec

	.global crash
	.proc crash
crash:
	.prologue
	.body
	mov r8 = r32
	;;
	ld8 r9 = [r0]
	;;
	br.ret.sptk.many b0
	;;
	.endp crash
