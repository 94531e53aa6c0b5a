package ppc64

import (
	"encoding/binary"

	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/cfirow"
)

// layout is what the 64-bit ABIs (ELFv1, ELFv2) and the 32-bit SysV ABI
// lay out differently. Everything else is one idea with a word size: the
// back chain at 0(r1) and the frame allocated with one store-with-update,
// lr as the return-address column of every CIE, the DWARF numbering, the
// order of pt_regs' slots (in words of the target's size: 48 of them in
// both cores' NT_PRSTATUS, as elf_gregset_t), the same preserved
// registers, the signal contexts' regs pointer at their own gregs.
type layout struct {
	name string // the arch name, for messages
	// word is the size of a general register, of a pt_regs slot and of
	// a stack word.
	word uint64
	// lrSaveOff is where a function saves its return address in its
	// caller's frame: the lr save doubleword at 16 (ELFv1 and ELFv2), the
	// lr save word at 4 (SysV: back chain, then lr).
	lrSaveOff uint64
	// toc: r2 is the TOC pointer, reloaded after calls between modules
	// (toc.go). In the 32-bit ABI r2 is the thread pointer, which no call
	// changes.
	toc bool
	// ppc32: the 32-bit signal frames and trampolines (sigframe.go).
	ppc32 bool
}

var (
	layout64 = &layout{name: "ppc64", word: 8, lrSaveOff: 16, toc: true}
	layout32 = &layout{name: "ppc", word: 4, lrSaveOff: 4, ppc32: true}
)

// layout is the variant's.
func (a Arch) layout() *layout {
	if a.ppc32 {
		return layout32
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

// gregsSize is the size of a pt_regs image through its result slot.
func (l *layout) gregsSize() int { return ptWords * int(l.word) }

// cfiRegs is what applying a CFI row needs of the Power register file.
func (l *layout) cfiRegs() cfirow.Regs {
	return cfirow.Regs{N: NumRegs, SP: SP, Preserved: preserved, Name: RegName, Word: int(l.word)}
}
