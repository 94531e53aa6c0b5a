// An IA-64 program with "generated" code for the interpreter: _start ->
// level1 -> jit_a -> jit_b -> jit_c -> level3 -> rec (recursive, 8 deep)
// -> crash (a NULL load). jit_a, jit_b and jit_c live in their own
// segment (.jit, linked far from .text) that the core does not attribute
// to the executable, and have no .IA_64.unwind entry there: jit_a and
// jit_b carry no unwind directives at all (the test registers DYNAMIC
// operations for them, matched to their instructions), jit_c's
// directives only give the test an info block to register as a TABLE
// (the test removes its entry from the executable's table).
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

	// level1: a static frame calling generated code through b6; its
	// ar.lc (saved in r35) is what jit_a must restore.
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
	.save ar.lc, r35
	mov r35 = ar.lc
	.body
	;;
	mov r3 = 9
	adds r36 = 1, r32
	movl r2 = jit_a
	;;
	mov ar.lc = r3
	mov b6 = r2
	;;
	br.call.sptk.many b0 = b6
	;;
	mov ar.lc = r35
	mov ar.pfs = r33
	mov b0 = r34
	.restore sp
	adds sp = 32, sp
	br.ret.sptk.many b0
	;;
	.endp level1

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

	// crash: a leaf without an entry; it faults on the load.
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

	.section .jit,"ax",@progbits
	.align 16
	// jit_a: fixed 48-byte frame; ar.pfs in r33, rp in r34, ar.lc in
	// r35, r4 spilled at sp+16 and then changed.
	.global jit_a
jit_a:
	alloc r33 = ar.pfs, 1, 4, 1, 0
	adds sp = -48, sp
	mov r34 = b0
	;;
	adds r2 = 16, sp
	mov r35 = ar.lc
	;;
	st8 [r2] = r4
	mov r3 = 5
	;;
	mov ar.lc = r3
	adds r4 = 100, r32
	mov r37 = r32
	br.call.sptk.many b0 = jit_b
	;;
	adds r2 = 16, sp
	;;
	ld8 r4 = [r2]
	mov ar.lc = r35
	mov ar.pfs = r33
	mov b0 = r34
	adds sp = 48, sp
	br.ret.sptk.many b0
	;;

	.align 16
	// jit_b: variable frame (psp in r35), rp spilled at psp-8, ar.unat
	// in r36, b1 in r37; an early-exit epilogue (not taken) between the
	// prologue and the body that makes the call.
	.global jit_b
jit_b:
	alloc r33 = ar.pfs, 1, 6, 1, 0
	mov r35 = sp
	mov r3 = b0
	;;
	adds r2 = -8, sp
	shladd r9 = r32, 4, r0
	;;
	st8 [r2] = r3
	sub sp = sp, r9
	;;
	adds sp = -16, sp
	mov r36 = ar.unat
	mov r37 = b1
	;;
	mov r3 = 0x77
	mov r9 = 0x4444
	cmp.eq p6, p7 = 0, r32
	;;
	mov ar.unat = r3
	mov b1 = r9
	(p7) br.cond.sptk.few jit_b_body
	;;
	// early exit
	mov ar.unat = r36
	mov b1 = r37
	adds r2 = -8, r35
	;;
	ld8 r3 = [r2]
	mov ar.pfs = r33
	;;
	mov b0 = r3
	mov sp = r35
	br.ret.sptk.many b0
	;;
jit_b_body:
	mov r39 = r32
	br.call.sptk.many b0 = jit_c
	;;
	mov ar.unat = r36
	mov b1 = r37
	adds r2 = -8, r35
	;;
	ld8 r3 = [r2]
	mov ar.pfs = r33
	;;
	mov b0 = r3
	mov sp = r35
	br.ret.sptk.many b0
	;;

	.align 16
	// jit_c: a standard frame its own unwind directives describe; it
	// calls back into .text through b6.
	.global jit_c
	.proc jit_c
jit_c:
	.prologue
	.save ar.pfs, r33
	alloc r33 = ar.pfs, 1, 3, 1, 0
	.save rp, r34
	mov r34 = b0
	.fframe 16
	adds sp = -16, sp
	.body
	;;
	adds r36 = 1, r32
	movl r2 = level3
	;;
	mov b6 = r2
	;;
	br.call.sptk.many b0 = b6
	;;
	mov ar.pfs = r33
	mov b0 = r34
	.restore sp
	adds sp = 16, sp
	br.ret.sptk.many b0
	;;
	.endp jit_c

	// The libunwind registration list and room for what the test
	// registers in it.
	.data
	.align 16
	.global _U_dyn_info_list
_U_dyn_info_list:
	.skip 16
	.global dyn_area
dyn_area:
	.skip 4096
