package x86_64

import (
	"github.com/coreunwind/coreunwind/internal/x86frame"
	"github.com/coreunwind/coreunwind/unwind"
)

// frameRegs are the registers the x86 fallbacks (internal/x86frame,
// shared with i386) use: 8-byte words, rbp as the frame pointer, rbx and
// r12-r15 kept across calls.
var frameRegs = x86frame.Regs{PC: RIP, SP: RSP, FP: RBP, Word: 8, Saved: []int{RBX, R12, R13, R14, R15}, NumRegs: NumRegs}

// cloneChildCode is what glibc's clone and clone3 run after their
// system call: "syscall; test %rax,%rax; jl error; je thread_start"
// (the two jumps' displacements are not part of the pattern).
var cloneChildCode = [...]byte{0x0f, 0x05, 0x48, 0x85, 0xc0, 0x7c, 0, 0x74, 0}

// isCloneChild reports whether callee is a thread that clone or clone3
// has just created, stopped before its first instruction: glibc ends
// those functions' FDE before the system call (in the child "the unwind
// info will be wrong") and marks the child's entry, thread_start,
// outermost (cfi_undefined rip). No CFI covers the pc, which follows the
// system call; the thread is the child when the call returned 0 to it,
// so its next jump is je to thread_start, and the CFI there must say
// that the frame has no caller. Anything else (the parent, other code)
// is left to the fallbacks.
func isCloneChild(as unwind.AddrSpace, cache *unwind.Cache, callee, caller *unwind.Frame) bool {
	pc, ok1 := callee.Get(RIP)
	ax, ok2 := callee.Get(RAX)
	if !ok1 || !ok2 || ax != 0 || !callee.ExactPC || pc < 2 {
		return false
	}
	var code [len(cloneChildCode)]byte
	if as.ReadMem(pc-2, code[:]) != nil {
		return false
	}
	for i, b := range cloneChildCode {
		if b != 0 && code[i] != b {
			return false
		}
	}
	je := pc + 7 // the je's address, after test (3 bytes) and jl (2)
	target := je + 2 + uint64(int64(int8(code[8])))
	r := ruleFor(as, cache, target, target)
	if r.kind != ruleCFI {
		return false
	}
	res, err := stepCFI(as, &r, callee, caller)
	caller.Reset()
	return err == nil && res == unwind.StepEnd
}
