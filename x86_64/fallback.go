package x86_64

import "github.com/coreunwind/coreunwind/internal/x86frame"

// frameRegs are the registers the x86 fallbacks (internal/x86frame,
// shared with i386) use: 8-byte words, rbp as the frame pointer, rbx and
// r12-r15 kept across calls.
var frameRegs = x86frame.Regs{PC: RIP, SP: RSP, FP: RBP, Word: 8, Saved: []int{RBX, R12, R13, R14, R15}, NumRegs: NumRegs}
