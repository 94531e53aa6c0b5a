@ Every EHABI unwind opcode class, through the assembler's unwind
@ directives and raw opcodes: the readelf -u comparison's widest input.
	.syntax unified
	.arch armv7-a
	.fpu vfpv3-d16
	.text
	.macro fn name
	.globl \name
	.type \name, %function
\name:
	.endm
fn a1
	.fnstart
	.save {r4-r11, lr}
	.vsave {d8-d15}
	.pad #0x300
	bx lr
	.fnend
fn a2
	.fnstart
	.save {r0-r3}
	.vsave {d0-d3}
	.pad #4
	bx lr
	.fnend
fn a3
	.fnstart
	.unwind_raw 0, 0x80, 0x00
	bx lr
	.fnend
fn a4
	.fnstart
	.unwind_raw 0, 0x9d
	.unwind_raw 0, 0x9f
	.unwind_raw 0, 0xb1, 0x00
	.unwind_raw 0, 0xb1, 0x13
	.unwind_raw 0, 0xb4
	.unwind_raw 0, 0xc8, 0x23
	.unwind_raw 0, 0xb3, 0x12
	.unwind_raw 0, 0xbb
	.unwind_raw 0, 0xb8
	.unwind_raw 0, 0xc0
	.unwind_raw 0, 0xc6, 0x12
	.unwind_raw 0, 0xc7, 0x03
	.unwind_raw 0, 0xc7, 0x00
	.unwind_raw 0, 0xcb
	.unwind_raw 0, 0xd7
	.unwind_raw 0, 0xd0
	.unwind_raw 0, 0xe0
	.unwind_raw 0, 0x97
	.unwind_raw 0, 0x45
	.unwind_raw 0, 0xb2, 0x00
	.unwind_raw 0, 0xb2, 0x81, 0x02
	.unwind_raw 0, 0xc9, 0x0f
	.unwind_raw 0, 0xd8
	.unwind_raw 0, 0xc7, 0x13
	bx lr
	.fnend
fn a5
	.fnstart
	.save {r4, r7, lr}
	.setfp r7, sp, #4
	.pad #16
	bx lr
	.fnend
fn a6
	.fnstart
	.cantunwind
	bx lr
	.fnend
fn a7
	.fnstart
	.personality __gxx_personality_v0
	.handlerdata
	.word 0x12345678
	.text
	bx lr
	.fnend
fn a8
	.fnstart
	.personalityindex 2
	.save {r4-r11, lr}
	.vsave {d8-d15}
	.pad #0x300
	.unwind_raw 0, 0xb1, 0x01, 0xb1,2,0xb1,3
	bx lr
	.fnend
