/* A millicode routine that saves its return link (r31, the MRP) in the
   frame marker at sp-20 and then clobbers r31 before it faults: HP's
   assembler marks such routines Save_MRP_in_frame (.CALLINFO SAVE_MRP),
   which GNU as does not know, so the test sets the bit in the linked
   table. */
	.text
	.align 4
	.globl mill_crash
	.type mill_crash,@function
mill_crash:
	.PROC
	.CALLINFO FRAME=64,MILLICODE
	.ENTRY
	stw %r31,-20(%sp)
	ldo 64(%sp),%sp
	ldi 0,%r31
	ldw 0(%r0),%r1
	ldo -64(%sp),%sp
	ldw -20(%sp),%r31
	bv %r0(%r31)
	nop
	.EXIT
	.PROCEND
	.size mill_crash, .-mill_crash
