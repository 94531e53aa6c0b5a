package pa64

import (
	"encoding/binary"
	"fmt"

	"github.com/coreunwind/coreunwind/unwind"
)

// Linux parisc elf_gregset_t: 80 slots of the word size; slot 0 holds the
// PSW, slots 1..31 gr1..gr31, 40 iaoq[0], 41 iaoq[1], 44 sar.
const (
	linuxGRegSlots = 80
	linuxSlotIAOQ  = 40
	linuxSlotSAR   = 44
	linuxSlotIPSW  = 48
)

// pswN is the PSW's nullify bit. When it is set in the interruption PSW
// the instruction at the front of the queue was to be nullified: the
// thread is in effect still at the instruction before it (the nullifying
// branch or compare), so frame 0's pc is pcoq_head - 4, as gdb's
// hppa_read_pc has it. Otherwise the pc may fall past a function's end or
// on the wrong line.
const pswN = 0x00200000

// interruptedPC applies the nullify rule to an interrupted pc.
func interruptedPC(pcoqHead, ipsw uint64) uint64 {
	pc := pcoqHead & privMask
	if ipsw&pswN != 0 {
		pc -= 4
	}
	return pc
}

// HP-UX save_state_t (hpux-cores.md §2.5): flags, the narrow image (4-byte
// slots, grN at 4·N), the FP block, the wide image (8-byte slots after 8
// reserved bytes, grN at 0x280+8·N). The slots after gr31 are sar,
// pcoq_head, ...
const (
	ssFlagsInSyscall = 0x02
	ssFlagsWideRegs  = 0x40
	ssNarrowOff      = 0
	ssFPBlockOff     = 0x100
	ssWideOff        = 0x280
	ssSlotPCOQHead   = 33
	ssSlotIPSW       = 41
	ssPA89Size       = 512 // PA 1.1 save state: narrow image only
	ssSize           = 1152
)

// privMask clears the privilege level PA-RISC keeps in the low two bits of
// instruction addresses.
const privMask = ^uint64(3)

// frameFromCoreRegs builds frame 0 from a thread's register bytes: a Linux
// NT_PRSTATUS pr_reg (80 slots; 320 bytes on 32-bit, 640 on 64-bit) or an
// HP-UX save_state_t (corefile puts it in GRegs for HP-UX cores).
func (a Arch) frameFromCoreRegs(gregs []byte, order binary.ByteOrder) (*unwind.Frame, error) {
	switch len(gregs) {
	case linuxGRegSlots * 4:
		return linuxFrame(gregs, order, 4), nil
	case linuxGRegSlots * 8:
		return linuxFrame(gregs, order, 8), nil
	}
	if len(gregs) >= ssPA89Size {
		return saveStateFrame(gregs, order, a.wide)
	}
	return nil, fmt.Errorf("%s register set: %d bytes, want %d or %d (Linux pr_reg) or an HP-UX save_state of %d",
		a.Name(), len(gregs), linuxGRegSlots*4, linuxGRegSlots*8, ssSize)
}

func linuxFrame(b []byte, order binary.ByteOrder, word int) *unwind.Frame {
	get := func(slot int) uint64 {
		if word == 4 {
			return uint64(order.Uint32(b[slot*4:]))
		}
		return order.Uint64(b[slot*8:])
	}
	f := unwind.NewFrame(NumRegs)
	same := unwind.SaveLoc{Kind: unwind.LocSame}
	f.Set(0, 0, same)
	for r := 1; r < 32; r++ {
		f.Set(r, get(r), same)
	}
	f.Set(PSW, get(0), same)
	f.Set(PC, interruptedPC(get(linuxSlotIAOQ), get(linuxSlotIPSW)), same)
	f.Trust, f.ExactPC = unwind.TrustContext, true
	return f
}

// saveStateFrame decodes an HP-UX save_state_t: the wide image when
// SS_WIDEREGS says it is live, else the narrow one; a thread saved in a
// system call resumes at r31.
func saveStateFrame(ss []byte, order binary.ByteOrder, wide bool) (*unwind.Frame, error) {
	flags := order.Uint32(ss)
	useWide := flags&ssFlagsWideRegs != 0
	if useWide && len(ss) < ssWideOff+8+8*ssSlotIPSW+8 {
		return nil, fmt.Errorf("HP-UX save state: SS_WIDEREGS set but only %d bytes", len(ss))
	}
	get := func(slot int) uint64 {
		if useWide {
			v := order.Uint64(ss[ssWideOff+8*slot:])
			if !wide {
				v &= 0xffffffff
			}
			return v
		}
		return uint64(order.Uint32(ss[ssNarrowOff+4*slot:]))
	}
	f := unwind.NewFrame(NumRegs)
	same := unwind.SaveLoc{Kind: unwind.LocSame}
	f.Set(0, 0, same)
	for r := 1; r < 32; r++ {
		f.Set(r, get(r), same)
	}
	for i := 0; i < 32 && ssFPBlockOff+8*i+8 <= len(ss); i++ {
		f.Set(FR0+i, order.Uint64(ss[ssFPBlockOff+8*i:]), same)
	}
	f.Set(PSW, get(ssSlotIPSW), same)
	pc := interruptedPC(get(ssSlotPCOQHead), get(ssSlotIPSW))
	if flags&ssFlagsInSyscall != 0 {
		pc = get(R31) & privMask
	}
	f.Set(PC, pc, same)
	f.Trust, f.ExactPC = unwind.TrustContext, true
	return f, nil
}

// linuxFPRegsSize is the Linux parisc elf_fpregset_t: fr0..fr31, 8 bytes
// each, in both word sizes (fr0..fr3 hold the status and exception
// registers).
const linuxFPRegsSize = 32 * 8

// ntPRFPReg is the note type of a Linux core's floating-point registers.
const ntPRFPReg = 2

// SetFPRegs fills f's floating-point registers from a Linux core's
// NT_PRFPREG (elf_fpregset_t). Frame 0 needs them for the callee-saved
// fr12..fr21 to be known in callers that did not save them.
func SetFPRegs(f *unwind.Frame, fpregs []byte, order binary.ByteOrder) error {
	if len(fpregs) < linuxFPRegsSize {
		return fmt.Errorf("parisc floating-point registers: %d bytes, want %d", len(fpregs), linuxFPRegsSize)
	}
	for i := 0; i < 32; i++ {
		f.Set(FR0+i, order.Uint64(fpregs[8*i:]), unwind.SaveLoc{Kind: unwind.LocSame})
	}
	return nil
}

// FrameFromThread is unwind.Arch's: frame 0 from the general
// registers, with the floating-point registers of a Linux core when the
// thread's notes carry NT_PRFPREG (an HP-UX save_state has its own FP
// block, which frameFromCoreRegs reads).
func (a Arch) FrameFromThread(th *unwind.ThreadState) (*unwind.Frame, error) {
	f, err := a.frameFromCoreRegs(th.GRegs, th.Order)
	if err != nil {
		return nil, err
	}
	fp, ok := th.Notes[ntPRFPReg]
	if !ok && th.FPRegs != nil {
		fp, ok = th.FPRegs, true // corefile keeps NT_FPREGSET apart from the other notes
	}
	if ok && (len(th.GRegs) == linuxGRegSlots*4 || len(th.GRegs) == linuxGRegSlots*8) {
		// A short note leaves the registers unknown rather than failing
		// the thread: the general registers are what the walk needs.
		_ = SetFPRegs(f, fp, th.Order)
	}
	return f, nil
}
