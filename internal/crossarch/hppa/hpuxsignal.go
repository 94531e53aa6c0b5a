package hppa

import (
	"github.com/coreunwind/coreunwind/internal/crossarch/hpux"
)

// Interruption records a signal the test delivered the HP-UX way: where
// the thread was (the pc the save state holds) and how deep its call
// stack was then, so a test can say which frames a walk must show.
type Interruption struct {
	PC, NPC   uint64 // the interrupted instruction address queue
	Nullified bool   // the front of the queue was to be nullified
	SaveState uint64 // where the save_state_t was written
	SP        uint64 // the sp the trampoline (the interrupt-marker frame) runs with
	Depth     int    // len(CallStack) when the signal struck
	GR        [32]uint64
}

// HP-UX puts the interrupted context's save_state_t this far below the
// sp of the frame whose unwind entry carries HP_UX_interrupt_marker: gdb's
// hppa-hpux-tdep.c (hppa_hpux_sigtramp_frame_unwind_cache) reads it at
// sp - 1520 for 64-bit and sp - 1352 for 32-bit processes.
const (
	HPUXSaveStateBelowSP64 = 1520
	HPUXSaveStateBelowSP32 = 1352
)

// DeliverHPUXSignal does what the HP-UX kernel does to deliver signal sig
// to handler: it saves the thread's state as a save_state_t on the user
// stack above the interrupted sp (stacks grow up), and starts the
// trampoline tramp with sp set so that the save state sits where gdb
// looks for it (HPUXSaveStateBelowSP64/32 below it), r22 = handler and
// r26 = sig (the trampoline calls the handler with bve,l (%r22),%rp,
// which the interpreter records as a call). wide selects the PA 2.0W
// layout (SS_WIDEREGS, 1520) or the 32-bit one (narrow image, 1352).
func (m *Machine) DeliverHPUXSignal(tramp, handler uint64, sig int, wide bool) Interruption {
	below := uint64(HPUXSaveStateBelowSP32)
	regs := hpux.PARegs{}
	if wide {
		below = HPUXSaveStateBelowSP64
		regs.Flags = hpux.SSWideRegs
	}
	for i := 1; i < 32; i++ {
		regs.Slots[i] = m.GR[i]
	}
	regs.Slots[hpux.SlotPCOQHead] = m.PC | 3
	regs.Slots[hpux.SlotPCOQTail] = m.NPC | 3
	if m.nullifyNext {
		regs.Slots[hpux.SlotIPSW] = PSWNullify
	}
	ss := (m.GR[30] + 63) &^ 63
	sp := ss + below
	m.mapRange(ss, below+0x400)
	m.Write(ss, regs.SaveState())
	in := Interruption{PC: m.PC, NPC: m.NPC, Nullified: m.nullifyNext, SaveState: ss, SP: sp, Depth: len(m.CallStack), GR: m.GR}
	m.Interruptions = append(m.Interruptions, in)
	m.GR[30] = sp
	m.GR[22] = handler
	m.GR[26] = uint64(sig)
	m.GR[25], m.GR[24] = 0, ss
	m.PC, m.NPC = tramp, tramp+4
	m.nullifyNext = false
	m.Fault, m.FaultAddr = nil, 0
	return in
}

// PSWNullify is the PSW's N bit: the front-of-queue instruction is to be
// nullified.
const PSWNullify = 0x00200000

// ExpectedPCs lists the frames a walk of the machine's thread must show,
// innermost first: the pc it stopped at, then the return address of each
// active call, and, where a signal interrupted the thread, the
// interrupted pc itself (the frame below the trampoline's).
func (m *Machine) ExpectedPCs() []uint64 {
	want := []uint64{m.PC}
	ints := m.Interruptions
	for i := len(m.CallStack) - 1; i >= 0; i-- {
		want = append(want, m.CallStack[i])
		// CallStack[Depth] is the trampoline's call of the handler: the
		// interrupted frame is the trampoline's caller.
		if k := len(ints); k > 0 && ints[k-1].Depth == i {
			pc := ints[k-1].PC
			if ints[k-1].Nullified {
				pc -= 4 // as gdb and coreunwind read a nullified front of queue
			}
			want = append(want, pc)
			ints = ints[:k-1]
		}
	}
	return want
}
