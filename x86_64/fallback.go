package x86_64

import (
	"github.com/coreunwind/coreunwind/internal/x86frame"
	"github.com/coreunwind/coreunwind/unwind"
)

// frameRegs are the registers the x86 fallbacks (internal/x86frame,
// shared with i386) use: 8-byte words, rbp as the frame pointer, rbx and
// r12-r15 kept across calls.
var frameRegs = x86frame.Regs{PC: RIP, SP: RSP, FP: RBP, Word: 8, Saved: []int{RBX, R12, R13, R14, R15}, NumRegs: NumRegs}

// stepFramePointer follows the rbp chain: the caller's rip at rbp+8, its
// rbp at rbp, every link checked.
func stepFramePointer(as unwind.AddrSpace, callee, caller *unwind.Frame) bool {
	return x86frame.StepFramePointer(as, &frameRegs, callee, caller)
}

// stepBadCall recovers the caller of a call through a null or wild
// function pointer: its return address is at rsp.
func stepBadCall(as unwind.AddrSpace, callee, caller *unwind.Frame) bool {
	return x86frame.StepBadCall(as, &frameRegs, callee, caller)
}

// stepScan looks above rsp for a return address that follows a call.
func stepScan(as unwind.AddrSpace, callee, caller *unwind.Frame) bool {
	return x86frame.StepScan(as, &frameRegs, callee, caller)
}

// isCode reports whether addr is in executable memory.
func isCode(as unwind.AddrSpace, addr uint64) bool { return x86frame.IsCode(as, addr) }
