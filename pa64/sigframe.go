package pa64

import (
	"fmt"

	"github.com/coreunwind/coreunwind/unwind"
)

// Linux parisc signal return trampoline (all kernel generations):
// ldi 0,%r25 (ldi 1 when the signal interrupted a system call);
// ldi __NR_rt_sigreturn,%r20; be,l 0x100(%sr2,%r0),%sr0,%r31; nop.
var sigTramp = [4]uint32{0x34190000, 0x3414015a, 0xe4008200, 0x08000240}

const sigTrampInSyscall = 0x34190002

// isSigTramp reports whether the four words at addr are the trampoline.
func isSigTramp(as unwind.AddrSpace, addr uint64) bool {
	for i, want := range sigTramp {
		w, ok := readInsn(as, addr+uint64(4*i))
		if !ok || (w != want && !(i == 0 && w == sigTrampInSyscall)) {
			return false
		}
	}
	return true
}

// linuxSigcontext recognises a frame stopped at (returning into) the
// signal trampoline and returns the address of the interrupted context's
// struct sigcontext. Two layouts:
//   - the vDSO (Linux 5.18+, and qemu-user): the 64-byte aligned block
//     starts with a 32-bit offset from the trampoline-time sp to the
//     sigcontext, then a nop, then the trampoline at +8 (+24 for the
//     in-syscall copy);
//   - the trampoline on the stack in the rt_sigframe (Linux 2.6-5.17):
//     the frame is pc & ~63 and the sigcontext at frame+192 (32-bit).
func (a Arch) linuxSigcontext(as unwind.AddrSpace, f *unwind.Frame) (uint64, bool) {
	pc, _ := f.Get(PC)
	sp, _ := f.Get(SP)
	if pc == 0 || !isSigTramp(as, pc) {
		return 0, false
	}
	block := pc &^ 63
	if off := pc - block; off == 8 || off == 24 {
		if w, ok := readInsn(as, block); ok {
			return sp + uint64(int64(int32(w))), true
		}
	}
	if !a.wide && pc-block == 20 {
		return block + 192, true
	}
	return 0, false
}

// struct sigcontext offsets (32-bit / 64-bit): sc_gr at 4 / 8, sc_iaoq at
// 400 / 536.
func (a Arch) sigcontextLayout() (gr, iaoq uint64) {
	if a.wide {
		return 8, 536
	}
	return 4, 400
}

// stepSigcontext restores the interrupted context: every general
// register from sc_gr, the pc from sc_iaoq[0]. The caller's pc is exact:
// it is where the signal struck, not a return address.
func (a Arch) stepSigcontext(as unwind.AddrSpace, sc uint64, callee, caller *unwind.Frame) error {
	grOff, iaoqOff := a.sigcontextLayout()
	w := uint64(a.word())
	for r := 1; r < 32; r++ {
		addr := sc + grOff + w*uint64(r)
		v, err := a.readWord(as, addr)
		if err != nil {
			return fmt.Errorf("signal context at %#x: %w", sc, err)
		}
		caller.Set(r, v, unwind.SaveLoc{Kind: unwind.LocMem, Addr: addr})
	}
	pc, err := a.readWord(as, sc+iaoqOff)
	if err != nil {
		return fmt.Errorf("signal context at %#x: %w", sc, err)
	}
	// sc_gr[0] holds the interrupted PSW (the kernel and qemu both store
	// it there): a nullified front-of-queue instruction means pc - 4.
	psw, err := a.readWord(as, sc+grOff)
	if err != nil {
		return fmt.Errorf("signal context at %#x: %w", sc, err)
	}
	caller.Set(PSW, psw, unwind.SaveLoc{Kind: unwind.LocMem, Addr: sc + grOff})
	caller.Set(PC, interruptedPC(pc, psw), unwind.SaveLoc{Kind: unwind.LocMem, Addr: sc + iaoqOff})
	caller.Trust, caller.ExactPC = unwind.TrustContext, true
	callee.Signal = true
	return nil
}

// HP-UX: the save_state_t of the interrupted context sits below the
// interrupt frame's sp (gdb's hppa-hpux-tdep).
func (a Arch) hpuxSaveStateAddr(sp uint64) uint64 {
	if a.wide {
		return sp - 1520
	}
	return sp - 1352
}

// stepHPUXInterrupt restores the context an HP-UX interrupt (signal)
// frame saved.
func (a Arch) stepHPUXInterrupt(as unwind.AddrSpace, sp uint64, caller *unwind.Frame) error {
	addr := a.hpuxSaveStateAddr(sp)
	ss := make([]byte, ssSize)
	if err := as.ReadMem(addr, ss); err != nil {
		// The PA 1.1 save state is shorter.
		ss = ss[:ssPA89Size]
		if err := as.ReadMem(addr, ss); err != nil {
			return fmt.Errorf("HP-UX save state at %#x: %w", addr, err)
		}
	}
	f, err := saveStateFrame(ss, as.ByteOrder(), a.wide)
	if err != nil {
		return err
	}
	caller.CopyFrom(f)
	caller.Trust, caller.ExactPC = unwind.TrustContext, true
	return nil
}
