// A freestanding IA-64 call chain for the interpreter: _start -> level1
// -> level2 -> level3 -> rec (recursive, 8 deep, memory frame, rp and
// ar.pfs saved on the memory stack, r5/r6 in stacked GRs, b1 via br_gr)
// -> crash (a leaf with no unwind entry, NULL load). The stacked frames
// together cross NaT-collection slots of the backing store.
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
	mov r4 = 44
	mov r5 = 55
	mov r6 = 66
	mov r7 = 77
	mov r3 = 1111
	;;
	mov b1 = r3
	mov r34 = 7
	br.call.sptk.many b0 = level1
	;;
	break.i 0x100000
	;;
	.endp _start

	// level1: fixed-size memory frame, r4 spilled sp-relative, ar.lc in a GR
	.global level1
	.proc level1
level1:
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
	.save ar.lc, r35
	mov r35 = ar.lc
	.body
	;;
	adds r4 = 1, r32
	mov r3 = 12
	;;
	mov ar.lc = r3
	mov r36 = r4
	br.call.sptk.many b0 = level2
	;;
	adds r2 = 16, sp
	;;
	ld8.fill r4 = [r2]
	mov ar.lc = r35
	mov ar.pfs = r33
	mov b0 = r34
	.restore sp
	adds sp = 32, sp
	br.ret.sptk.many b0
	;;
	.endp level1

	// level2: variable frame, frame pointer in r35, ar.unat in a GR
	.global level2
	.proc level2
level2:
	.prologue
	.save ar.pfs, r33
	alloc r33 = ar.pfs, 1, 4, 1, 0
	.save rp, r34
	mov r34 = b0
	.vframe r35
	mov r35 = sp
	;;
	.save ar.unat, r36
	mov r36 = ar.unat
	shladd r2 = r32, 4, r0
	;;
	sub sp = sp, r2
	;;
	adds sp = -16, sp
	.body
	;;
	mov r3 = 0x5a5a
	;;
	mov ar.unat = r3
	mov r37 = r32
	br.call.sptk.many b0 = level3
	;;
	mov ar.unat = r36
	mov ar.pfs = r33
	mov b0 = r34
	.restore sp
	mov sp = r35
	br.ret.sptk.many b0
	;;
	.endp level2

	// level3: R2 prologue (rp, ar.pfs in r33, r34); b1 saved in r35
	// (br_gr); r5 and r6 in r36, r37 (gr_gr)
	.global level3
	.proc level3
level3:
	.prologue 12, r33
	alloc r34 = ar.pfs, 1, 6, 2, 0
	mov r33 = b0
	.save.b 0x1, r35
	mov r35 = b1
	.save.g 0x6, r36
	mov r36 = r5
	mov r37 = r6
	.body
	;;
	mov r3 = 3333
	mov r5 = 5000
	mov r6 = 6000
	;;
	mov b1 = r3
	mov r39 = r32
	mov r40 = 8
	br.call.sptk.many b0 = rec
	;;
	mov b1 = r35
	mov r5 = r36
	mov r6 = r37
	mov ar.pfs = r34
	mov b0 = r33
	br.ret.sptk.many b0
	;;
	.endp level3

	// rec(x, n): recursive with a 16-byte memory frame; rp and ar.pfs
	// saved on the memory stack, pr in a stacked GR, r7 changed.
	.global rec
	.proc rec
rec:
	.prologue
	.save ar.pfs, r34
	alloc r34 = ar.pfs, 2, 8, 2, 0
	.fframe 16
	adds sp = -16, sp
	;;
	.savesp rp, 0
	mov r3 = b0
	;;
	st8 [sp] = r3
	.save pr, r35
	mov r35 = pr
	.spillreg r7, r36
	mov r36 = r7
	.body
	;;
	adds r7 = 1, r33
	cmp.eq p6, p7 = 1, r33
	adds r42 = 1, r32
	adds r43 = -1, r33
	;;
	(p6) br.call.sptk.many b0 = crash
	;;
	(p7) br.call.sptk.many b0 = rec
	;;
	mov pr = r35, -1
	mov r7 = r36
	ld8 r3 = [sp]
	;;
	mov b0 = r3
	mov ar.pfs = r34
	.restore sp
	adds sp = 16, sp
	br.ret.sptk.many b0
	;;
	.endp rec

	// crash: a leaf whose empty prologue gets no table entry; it faults
	// on the load.
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
