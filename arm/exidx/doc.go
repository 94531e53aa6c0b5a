// Package exidx decodes the ARM EHABI unwind tables ("Exception Handling
// ABI for the ARM Architecture", IHI 0038): the .ARM.exidx index, one
// two-word entry per function start, and the .ARM.extab entries it points
// to, down to the unwind opcodes of the personality routines' compact
// model. It only decodes; package arm executes the opcodes.
//
// Everything is bounded by the sizes of the sections read: no count read
// from the table drives an allocation beyond them.
package exidx
