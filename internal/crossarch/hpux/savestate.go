package hpux

// SaveStateSize is sizeof(save_state_t) (PA-RISC, HP-UX 10.20+).
const SaveStateSize = 1152

// save_state_t flag bits.
const (
	SSInSyscall = 0x02
	SSWideRegs  = 0x40
)

// Register slots after gr1..gr31 in both register images, in their order
// (hpux-cores.md §2.5.2, 2.5.3).
const (
	SlotSAR = 32 + iota
	SlotPCOQHead
	SlotPCSQHead
	SlotPCOQTail
	SlotPCSQTail
	SlotEIEM
	SlotIIR
	SlotISR
	SlotIOR
	SlotIPSW
	SlotCPUState
)

// PARegs is a PA-RISC thread state to write as save_state_t: Slots[n]
// for n = 1..31 is grN, the others as named by the Slot constants.
type PARegs struct {
	Flags uint32
	Slots [63]uint64
	FR    [32]uint64
}

// SaveState encodes r: the narrow (32-bit) image always, the wide image
// when SSWideRegs is set.
func (r *PARegs) SaveState() []byte {
	b := make([]byte, SaveStateSize)
	be.PutUint32(b, r.Flags)
	for n := 1; n < len(r.Slots) && 4*n < 0xFC; n++ {
		be.PutUint32(b[4*n:], uint32(r.Slots[n]))
	}
	for i, v := range r.FR {
		be.PutUint64(b[0x100+8*i:], v)
	}
	if r.Flags&SSWideRegs != 0 {
		for n := 1; n < len(r.Slots) && 8*n < 0x1E8; n++ {
			be.PutUint64(b[0x280+8*n:], r.Slots[n])
		}
	}
	return b
}

// ProcInfo builds a PA-RISC proc_info record: sig, trap_type, the save
// state, lwpid.
func ProcInfo(sig int32, trap uint32, ss []byte, lwpid uint32) []byte {
	b := make([]byte, 8+SaveStateSize+8)
	be.PutUint32(b, uint32(sig))
	be.PutUint32(b[4:], trap)
	copy(b[8:], ss)
	be.PutUint32(b[8+SaveStateSize:], lwpid)
	return b
}
