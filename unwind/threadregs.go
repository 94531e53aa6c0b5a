package unwind

import "encoding/binary"

// ThreadState is what a core holds for one thread, for arches that need
// more than the general registers of NT_PRSTATUS to build frame 0 (IA-64:
// the register stack in memory; HP-UX: the save state).
type ThreadState struct {
	GRegs  []byte            // pr_reg (or the format's equivalent), target byte order
	FPRegs []byte            // the floating-point register note (NT_FPREGSET), nil if none
	Notes  map[uint32][]byte // every note the core has for this thread, by type
	Order  binary.ByteOrder
	Mem    AddrSpace // the target, for state saved in memory
}

// ThreadRegsArch is implemented by arches that build frame 0 from a whole
// ThreadState. Arches that need only the general registers implement
// CoreRegsArch instead.
type ThreadRegsArch interface {
	FrameFromThread(th *ThreadState) (*Frame, error)
}
