package i386

import "github.com/coreunwind/coreunwind/internal/x86frame"

// frameRegs are the registers the x86 fallbacks (frame-pointer chain,
// call through a wild pointer, stack scan) use: 4-byte words, ebp as the
// frame pointer, ebx, esi and edi kept across calls.
var frameRegs = x86frame.Regs{PC: EIP, SP: ESP, FP: EBP, Word: 4, Saved: []int{EBX, ESI, EDI}, NumRegs: NumRegs}
