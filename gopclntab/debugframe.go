package gopclntab

import (
	"debug/elf"
	"encoding/binary"
	"fmt"
)

// frameArch is what the Go linker's .debug_frame says of one machine:
// the DWARF numbers of its stack pointer and return address column, and
// whether calls leave the return address in a link register.
type frameArch struct {
	sp, ra uint64
	lr     bool
}

// frameArches are cmd/link's Dwarfregsp and Dwarfreglr by ELF machine.
var frameArches = map[elf.Machine]frameArch{
	elf.EM_X86_64:  {sp: 7, ra: 16},
	elf.EM_386:     {sp: 4, ra: 8},
	elf.EM_AARCH64: {sp: 31, ra: 30, lr: true},
	elf.EM_ARM:     {sp: 13, ra: 14, lr: true},
	elf.EM_PPC64:   {sp: 1, ra: 65, lr: true},
	elf.EM_S390:    {sp: 15, ra: 14, lr: true},
	elf.EM_RISCV:   {sp: 2, ra: 1, lr: true},
}

// frameRowBudget is the least number of rows DebugFrame may write.
const frameRowBudget = 1 << 20

// DWARF call frame instructions the table is written with.
const (
	cfaAdvanceLoc       = 0x40
	cfaAdvanceLoc1      = 0x02
	cfaAdvanceLoc2      = 0x03
	cfaAdvanceLoc4      = 0x04
	cfaOffsetExtended   = 0x05
	cfaUndefined        = 0x07
	cfaSameValue        = 0x08
	cfaDefCFA           = 0x0c
	cfaOffsetExtendedSF = 0x11
	cfaDefCFAOffsetSF   = 0x13
	cfaValOffset        = 0x14
	dataAlign           = -4
)

// DebugFrame writes the .debug_frame the Go linker would have written
// for the table's functions (cmd/link's writeframes: the frame address is
// the stack pointer plus its pcsp delta, plus the pushed return address
// on machines without a link register; with one, the return address is
// saved at the frame's bottom once it is allocated, and undefined in a
// top frame, where unwinding ends), which `-ldflags=-w` leaves out:
// with it, the CFI unwinder walks a stripped Go program as it walks one
// with DWARF. machine is the executable's; it errors for one the Go
// linker does not target.
func (t *Table) DebugFrame(machine elf.Machine) ([]byte, error) {
	a, ok := frameArches[machine]
	if !ok {
		return nil, fmt.Errorf("gopclntab: no frame layout for machine %v", machine)
	}
	ptr := t.ptrSize
	var b []byte
	u32 := func(v uint32) { b = t.order.AppendUint32(b, v) }
	word := func(v uint64) {
		if ptr == 4 {
			u32(uint32(v))
		} else {
			b = t.order.AppendUint64(b, v)
		}
	}
	// The CIE, padded to a multiple of the pointer size.
	// Version 3, no augmentation, code alignment 1, data alignment.
	cie := appendSleb([]byte{3, 0, 1}, dataAlign)
	cie = binary.AppendUvarint(cie, a.ra)
	cie = append(cie, cfaDefCFA)
	cie = binary.AppendUvarint(cie, a.sp)
	if a.lr {
		cie = append(cie, 0, cfaSameValue)
		cie = binary.AppendUvarint(cie, a.ra)
		cie = append(cie, cfaValOffset)
		cie = binary.AppendUvarint(cie, a.sp)
		cie = append(cie, 0)
	} else {
		cie = binary.AppendUvarint(cie, uint64(ptr))
		cie = append(cie, cfaOffsetExtended)
		cie = binary.AppendUvarint(cie, a.ra)
		cie = binary.AppendUvarint(cie, uint64(ptr/-dataAlign))
	}
	for (len(cie)+8)%ptr != 0 {
		cie = append(cie, 0) // DW_CFA_nop
	}
	u32(uint32(4 + len(cie)))
	u32(0xffffffff) // a CIE
	b = append(b, cie...)

	var prog []byte
	// Functions may share a pcsp table (the linker writes identical
	// ones once): the rows written are bounded by a budget, not by the
	// table's bytes alone, so that a hostile table sharing one long
	// pcsp among many functions is refused instead of written out.
	budget := frameRowBudget + 16*len(t.data)
	for i := 0; i < t.nfunc; i++ {
		f, err := t.funcAt(i)
		if err != nil {
			return nil, err
		}
		var end uint64
		prog, end = f.frameProgram(prog[:0], a, &budget)
		if budget < 0 {
			return nil, &FormatError{f.off, "pcsp tables with more rows than the table has bytes for"}
		}
		if len(prog) == 0 {
			continue
		}
		for (len(prog)+4+2*ptr)%ptr != 0 {
			prog = append(prog, 0)
		}
		u32(uint32(4 + 2*ptr + len(prog)))
		u32(0) // the CIE at offset 0
		word(f.Entry)
		word(end - f.Entry)
		b = append(b, prog...)
	}
	return b, nil
}

// frameProgram appends the call frame instructions of f, a row for each
// run of pcsp (none when f has no pcsp table), and returns the end of
// the last run: the end of f's code, without the padding after it.
// Each row spends one of budget; it stops when the budget is spent.
func (f *Func) frameProgram(b []byte, a frameArch, budget *int) ([]byte, uint64) {
	end := f.Entry
	topFrame := f.Flag&FlagTopFrame != 0
	if a.lr && topFrame {
		// Nothing called a top frame: its link register is undefined,
		// which ends an unwind there.
		b = append(b, cfaUndefined)
		b = binary.AppendUvarint(b, a.ra)
	}
	f.t.pcvalueRuns(f.t.order.Uint32(f.rec[funcPCSP:]), f.Entry, f.End, func(val int64, pc, next uint64) bool {
		if *budget--; *budget < 0 {
			return false
		}
		cfa := val
		switch {
		case !a.lr:
			cfa += int64(f.t.ptrSize)
		case topFrame:
		case val > 0:
			// The return address is saved at the bottom of the
			// frame once it is allocated.
			b = append(b, cfaOffsetExtendedSF)
			b = binary.AppendUvarint(b, a.ra)
			b = appendSleb(b, -val/dataAlign)
		default:
			b = append(b, cfaSameValue)
			b = binary.AppendUvarint(b, a.ra)
		}
		b = append(b, cfaDefCFAOffsetSF)
		b = appendSleb(b, cfa/dataAlign)
		switch delta := next - pc; {
		case delta < 0x40:
			b = append(b, cfaAdvanceLoc|byte(delta))
		case delta < 0x100:
			b = append(b, cfaAdvanceLoc1, byte(delta))
		case delta < 0x10000:
			b = append(b, cfaAdvanceLoc2)
			b = f.t.order.AppendUint16(b, uint16(delta))
		default:
			b = append(b, cfaAdvanceLoc4)
			b = f.t.order.AppendUint32(b, uint32(delta))
		}
		end = next
		return true
	})
	return b, end
}

// appendSleb appends v as a signed LEB128 number.
func appendSleb(b []byte, v int64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}
