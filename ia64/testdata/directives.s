	.text
	.global ext#
	.type ext#, @function

	.align 32
	.global gsave
	.proc gsave
gsave:
	.prologue 14, r34
	.save ar.pfs, r35
	alloc r35 = ar.pfs, 1, 6, 1, 0
	.save rp, r34
	mov r34 = b0
	.vframe r36
	mov r36 = sp
	.save pr, r37
	mov r37 = pr
	.save ar.unat, r38
	mov r38 = ar.unat
	.save ar.lc, r39
	mov r39 = ar.lc
	.save ar.fpsr, r40
	mov r40 = ar.fpsr
	.body
	br.call.sptk.many b0 = ext#
	;;
	.restore sp
	mov sp = r36
	br.ret.sptk.many b0
	.endp gsave

	.align 32
	.global memsave
	.proc memsave
memsave:
	.prologue
	.save ar.pfs, r33
	alloc r33 = ar.pfs, 0, 3, 0, 0
	.fframe 64
	adds sp = -64, sp
	.savesp rp, 0
	st8 [sp] = r0
	.savesp pr, 8
	st8 [sp] = r0
	.savesp ar.unat, 16
	st8 [sp] = r0
	.savesp ar.lc, 24
	st8 [sp] = r0
	.savesp ar.fpsr, 32
	st8 [sp] = r0
	.savepsp ar.bsp, 16
	st8 [sp] = r0
	.savepsp ar.bspstore, 24
	st8 [sp] = r0
	.savepsp ar.rnat, 32
	st8 [sp] = r0
	.savesp ar.pfs, 40
	st8 [sp] = r0
	.savepsp @priunat, 40
	st8 [sp] = r0
	.body
	.label_state 1
	.restore sp
	adds sp = 64, sp
	br.ret.sptk.many b0
	.copy_state 1
	adds r8 = 1, r0
	.restore sp
	adds sp = 64, sp
	br.ret.sptk.many b0
	.endp memsave

	.align 32
	.global rsesave
	.proc rsesave
rsesave:
	.prologue
	.save ar.pfs, r33
	alloc r33 = ar.pfs, 0, 6, 0, 0
	.save ar.bsp, r34
	mov r34 = ar.bsp
	.save ar.bspstore, r35
	mov r35 = ar.bspstore
	.save ar.rnat, r36
	mov r36 = ar.rnat
	.save @priunat, r37
	mov r37 = r0
	.altrp b6
	.body
	br.ret.sptk.many b6
	.endp rsesave

	.align 32
	.global spills
	.proc spills
spills:
	.prologue
	.save.g 0xf
	.save.f 0xf
	.save.b 0x1f
	.save.gf 0x3, 0x30
	.vframesp 16
	mov r2 = sp
	.spill 0
	mov r3 = r4
	.spillsp r4, 16
	st8.spill [r2] = r4
	.spillpsp r5, 32
	st8.spill [r2] = r5
	.spillreg r6, r40
	mov r40 = r6
	.spillreg f2, f40
	mov f40 = f2
	.spillreg b1, r41
	mov r41 = b1
	.spillreg b2, b6
	mov r3 = r4
	.spillsp f16, 64
	stf.spill [r2] = f16
	.spillpsp b3, 48
	mov r3 = b3
	.spillreg.p p6, r7, r42
	(p6) mov r42 = r7
	.spillsp.p p7, f17, 80
	(p7) stf.spill [r2] = f17
	.spillpsp.p p8, b4, 96
	(p8) mov r3 = b4
	.spillreg.p p9, b5, f33
	(p9) mov r3 = b5
	.restorereg r6
	mov r6 = r40
	.restorereg.p p6, r7
	(p6) mov r7 = r42
	.body
	br.ret.sptk.many b0
	.endp spills

	.align 32
	.global vpsp
	.proc vpsp
vpsp:
	.prologue
	.vframepsp 32
	mov r2 = sp
	.save ar.pfs, r35
	alloc r35 = ar.pfs, 1, 6, 1, 0
	.body
	.label_state 2
	br.ret.sptk.many b0
	.body
	.copy_state 2
	.restore sp, 0
	br.ret.sptk.many b0
	.endp vpsp

	.align 32
	.global sigt
	.proc sigt
sigt:
	.prologue
	.unwabi 3, 's'
	.unwabi @svr4, 's'
	.unwabi @hpux, 1
	.savesp ar.pfs, 0x30
	.body
	br.ret.sptk.many b0
	.endp sigt

	.align 32
	.global pers
	.proc pers
pers:
	.prologue
	.personality ext#
	.save ar.pfs, r33
	alloc r33 = ar.pfs, 0, 3, 0, 0
	.body
	br.ret.sptk.many b0
	.handlerdata
	data4 0x12345678
	.endp pers

	.align 32
	.global memspill
	.proc memspill
memspill:
	.prologue
	.save ar.pfs, r33
	alloc r33 = ar.pfs, 0, 12, 0, 0
	.fframe 256
	adds sp = -256, sp
	.spill 0
	adds r2 = 128, sp
	.save.f 0x1
	stf.spill [r2] = f2, -16
	.save.b 0x1
	st8 [r2] = r3, -8
	.save.g 0x3
	st8.spill [r2] = r4, -8
	st8.spill [r2] = r5, -8
	.save.gf 0x4, 0x10
	st8.spill [r2] = r6, -8
	stf.spill [r2] = f16, -16
	.save.b 0x6, r40
	mov r40 = b2
	mov r41 = b3
	.save.g 0x8, r42
	mov r42 = r7
	.body
	nop.m 0
	nop.m 0
	nop.m 0
	nop.m 0
	nop.m 0
	nop.m 0
	nop.m 0
	nop.m 0
	nop.m 0
	nop.m 0
	nop.m 0
	nop.m 0
	nop.m 0
	nop.m 0
	nop.m 0
	nop.m 0
	nop.m 0
	nop.m 0
	nop.m 0
	nop.m 0
	nop.m 0
	nop.m 0
	nop.m 0
	nop.m 0
	nop.m 0
	nop.m 0
	nop.m 0
	nop.m 0
	nop.m 0
	nop.m 0
	nop.m 0
	nop.m 0
	nop.m 0
	.label_state 40
	.restore sp
	adds sp = 256, sp
	br.ret.sptk.many b0
	.body
	.copy_state 40
	.restore sp
	adds sp = 256, sp
	br.ret.sptk.many b0
	.endp memspill

	.align 32
	.global nested
	.proc nested
nested:
	.prologue
	.save ar.pfs, r33
	alloc r33 = ar.pfs, 0, 3, 0, 0
	.body
	.prologue
	.save rp, r34
	mov r34 = b0
	.body
	.restore sp, 1
	br.ret.sptk.many b0
	.endp nested

	.align 32
	.global pspsave
	.proc pspsave
pspsave:
	.prologue
	.save ar.pfs, r33
	alloc r33 = ar.pfs, 0, 3, 0, 0
	.fframe 128
	adds sp = -128, sp
	.savepsp rp, 16
	st8 [sp] = r0
	.savepsp pr, 24
	st8 [sp] = r0
	.savepsp ar.unat, 32
	st8 [sp] = r0
	.savepsp ar.lc, 40
	st8 [sp] = r0
	.savepsp ar.fpsr, 48
	st8 [sp] = r0
	.savesp ar.bsp, 16
	st8 [sp] = r0
	.savesp ar.bspstore, 24
	st8 [sp] = r0
	.savesp ar.rnat, 32
	st8 [sp] = r0
	.savesp @priunat, 40
	st8 [sp] = r0
	.save.f 0x3
	stf.spill [sp] = f2
	stf.spill [sp] = f3
	.save.g 0x1
	st8.spill [sp] = r4
	nop.m 0
	nop.m 0
	nop.m 0
	nop.m 0
	nop.m 0
	nop.m 0
	nop.m 0
	nop.m 0
	nop.m 0
	nop.m 0
	nop.m 0
	nop.m 0
	nop.m 0
	nop.m 0
	nop.m 0
	nop.m 0
	nop.m 0
	nop.m 0
	nop.m 0
	nop.m 0
	nop.m 0
	nop.m 0
	nop.m 0
	nop.m 0
	nop.m 0
	nop.m 0
	nop.m 0
	nop.m 0
	nop.m 0
	nop.m 0
	nop.m 0
	nop.m 0
	nop.m 0
	nop.m 0
	nop.m 0
	nop.m 0
	nop.m 0
	nop.m 0
	nop.m 0
	nop.m 0
	.body
	.restore sp
	adds sp = 128, sp
	br.ret.sptk.many b0
	.endp pspsave

	.align 32
	.global deepnest
	.proc deepnest
deepnest:
	.prologue
	.save rp, r33
	mov r33 = b0
	.body
	.prologue
	.save rp, r34
	mov r34 = b0
	.body
	.prologue
	.save rp, r35
	mov r35 = b0
	.body
	.prologue
	.save rp, r36
	mov r36 = b0
	.body
	.prologue
	.save rp, r37
	mov r37 = b0
	.body
	.prologue
	.save rp, r38
	mov r38 = b0
	.body
	.prologue
	.save rp, r39
	mov r39 = b0
	.body
	.prologue
	.save rp, r40
	mov r40 = b0
	.body
	.prologue
	.save rp, r41
	mov r41 = b0
	.body
	.prologue
	.save rp, r42
	mov r42 = b0
	.body
	.prologue
	.save rp, r43
	mov r43 = b0
	.body
	.prologue
	.save rp, r44
	mov r44 = b0
	.body
	.prologue
	.save rp, r45
	mov r45 = b0
	.body
	.prologue
	.save rp, r46
	mov r46 = b0
	.body
	.prologue
	.save rp, r47
	mov r47 = b0
	.body
	.prologue
	.save rp, r48
	mov r48 = b0
	.body
	.prologue
	.save rp, r49
	mov r49 = b0
	.body
	.prologue
	.save rp, r50
	mov r50 = b0
	.body
	.prologue
	.save rp, r51
	mov r51 = b0
	.body
	.prologue
	.save rp, r52
	mov r52 = b0
	.body
	.prologue
	.save rp, r53
	mov r53 = b0
	.body
	.prologue
	.save rp, r54
	mov r54 = b0
	.body
	.prologue
	.save rp, r55
	mov r55 = b0
	.body
	.prologue
	.save rp, r56
	mov r56 = b0
	.body
	.prologue
	.save rp, r57
	mov r57 = b0
	.body
	.prologue
	.save rp, r58
	mov r58 = b0
	.body
	.prologue
	.save rp, r59
	mov r59 = b0
	.body
	.prologue
	.save rp, r60
	mov r60 = b0
	.body
	.prologue
	.save rp, r61
	mov r61 = b0
	.body
	.prologue
	.save rp, r62
	mov r62 = b0
	.body
	.prologue
	.save rp, r63
	mov r63 = b0
	.body
	.prologue
	.save rp, r64
	mov r64 = b0
	.body
	.prologue
	.save rp, r65
	mov r65 = b0
	.body
	.restore sp, 32
	br.ret.sptk.many b0
	.endp deepnest

	.align 32
	.global ext#
	.proc ext#
ext:
	.prologue
	.body
	br.ret.sptk.many b0
	.endp ext#
