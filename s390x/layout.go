package s390x

import (
	"encoding/binary"

	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/cfirow"
)

// layout is what the 64-bit (z/Architecture) and the 31-bit (ESA/390)
// ELF ABIs lay out differently: the size of a general register and of a
// stack word, the register save area at the bottom of every frame
// (where a callee's "stm(g) %r6,%r15" stores rN at N words above its
// caller's r15, the back chain at 0), and the address mode bit 31-bit
// code keeps in the top of every address it branches with (PSW address,
// return addresses in r14). Everything else is one idea with a word size:
// the DWARF numbering, r14 as the return-address column, the CFA at the
// caller's r15 plus the save area, the back chain, the trampolines "svc
// 119" and "svc 173", the order of the registers in NT_PRSTATUS and in
// the signal contexts (_sigregs), the access and floating-point
// registers (32 and 64 bits in both).
type layout struct {
	name string // the arch name, for messages
	word uint64 // a general register, a save-area slot, a stack word: 8 or 4
	// frameOffset is how far above the caller's stack pointer the CFA
	// lies: the register save area (160 bytes; 96 in 31-bit code), as
	// gcc's CIEs say (INCOMING_FRAME_SP_OFFSET).
	frameOffset uint64
	// addrMask clears the address-mode bit (0x80000000) 31-bit code
	// carries in its PSW address and in the return addresses bas(r) and
	// bras(l) leave in r14.
	addrMask uint64
	// rtSigregsOff is where struct rt_sigframe's ucontext holds the
	// _sigregs: after the save area, the svc, siginfo (128 bytes) and
	// uc_flags, uc_link, uc_stack (sigframe.go).
	rtSigregsOff uint64
}

var (
	layout64 = &layout{name: "s390x", word: 8, frameOffset: 160, addrMask: ^uint64(0), rtSigregsOff: 160 + 8 + 128 + 40}
	// 31-bit: siginfo is 4-aligned (at 100), the ucontext 8-aligned
	// (at 232, its doubles), and its uc_mcontext 24 bytes into it, as
	// s390x-linux-gnu-gcc -m31 lays out <ucontext.h>.
	layout31 = &layout{name: "s390", word: 4, frameOffset: 96, addrMask: 0x7fffffff, rtSigregsOff: 232 + 24}
)

// layout is the variant's.
func (a Arch) layout() *layout {
	if a.esa {
		return layout31
	}
	return layout64
}

// readWord reads a word of target memory.
func (l *layout) readWord(as unwind.AddrSpace, addr uint64) (uint64, error) {
	return cfirow.ReadSized(as, addr, int(l.word))
}

// wordAt reads the word at the start of b in byte order o (b holds at
// least one word).
func (l *layout) wordAt(o binary.ByteOrder, b []byte) uint64 {
	return cfirow.DecodeSized(o, b[:l.word])
}

// saveSlot is where a callee saves register r (6–15) in its caller's
// register save area, relative to the caller's r15.
func (l *layout) saveSlot(r int) uint64 { return uint64(r) * l.word }

// The register images of NT_PRSTATUS (s390_regs) and of the signal
// context (_sigregs): psw {mask, addr}, gprs[16] (words), acrs[16]
// (32-bit), then orig_gpr2 (a word) in the note, the floating-point
// registers in the context (sigframe.go).
func (l *layout) gprsOff() int { return 2 * int(l.word) }
func (l *layout) acrsOff() int { return 18 * int(l.word) }

// cfiRegs is what applying a CFI row needs of the s390 register file.
// SP is -1: cfirow's default for a stack pointer the row says nothing
// about is the CFA, which is not the caller's r15 here (see stepCFI).
func (l *layout) cfiRegs() cfirow.Regs {
	return cfirow.Regs{N: NumRegs, SP: -1, Preserved: preserved, Name: RegName, Word: int(l.word)}
}
