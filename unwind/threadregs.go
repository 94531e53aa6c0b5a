package unwind

import "encoding/binary"

// ThreadState is what a core holds for one thread: Arch.FrameFromThread
// builds frame 0 from it. Most arches need only GRegs; some need more
// (IA-64: the register stack in memory; HP-UX: the save state; aarch64:
// the pointer-authentication masks of NT_ARM_PAC_MASK).
type ThreadState struct {
	GRegs  []byte            // pr_reg (or the format's equivalent), target byte order
	FPRegs []byte            // the floating-point register note (NT_FPREGSET), nil if none
	Notes  map[uint32][]byte // every note the core has for this thread, by type
	Order  binary.ByteOrder
	Mem    AddrSpace // the target, for state saved in memory
}
