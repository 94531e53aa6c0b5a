// insns.s: bundles of the forms ia64/insn.go decodes, for TestDecodeInsn
// (checked against ia64-linux-gnu-objdump). Not meant to run.
	.text
	.proc f
f:
	{ .mmi
	ld8 r9 = [r0]
	st4 [r14] = r15
	nop.i 0 ;;
	}
	{ .mmi
	(p6) ld8.acq r3 = [r12], 16
	st8 [r12] = r32, -16
	nop.i 0
	}
	{ .mmi
	ld8.fill r4 = [r2]
	st8.spill [r2] = r4
	nop.i 0
	}
	{ .mmb
	ld1 r3 = [r33], r34
	ld4.nta r3 = [r33]
	br.ret.sptk.many b0 ;;
	}
	{ .mib
	st2.rel [r33] = r3
	nop.i 0
	br.call.sptk.many b0 = b6 ;;
	}
	{ .mmi
	cmpxchg8.acq r8 = [r33], r34, ar.ccv
	xchg4 r8 = [r33], r34
	break.i 0x100000
	}
	{ .mmi
	fetchadd8.rel r8 = [r33], 1
	ld8.s r3 = [r33]
	nop.i 0
	}
	{ .mfb
	break.m 0x1
	nop.f 0
	br.sptk.few b6 ;;
	}
	.endp f
