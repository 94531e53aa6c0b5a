package goruntime

import (
	"golang.org/x/arch/x86/x86asm"
)

// FuncAllgadd is the runtime function whose code names runtime.allgs
// when the symbol table does not: it appends to the slice.
const FuncAllgadd = "runtime.allgadd"

// AllgsFromCode finds runtime.allgs in the code of runtime.allgadd
// (code, at link-time address pc) for a stripped x86 executable (bits 64
// or 32): `allgs = append(allgs, gp)` reads and writes the slice's three
// words, so allgs is the data address A that the code references along
// with A+word and A+2*word. ok is false when no address, or more than
// one, is referenced so.
func AllgsFromCode(code []byte, pc uint64, bits int) (addr uint64, ok bool) {
	refs := map[uint64]bool{}
	for len(code) > 0 {
		inst, err := x86asm.Decode(code, bits)
		if err != nil || inst.Len <= 0 || inst.Len > len(code) {
			// Data or padding past the function's end; skip a byte.
			code, pc = code[1:], pc+1
			continue
		}
		next := pc + uint64(inst.Len)
		for _, a := range inst.Args {
			m, isMem := a.(x86asm.Mem)
			switch {
			case !isMem || m.Index != 0:
			case bits == 64 && m.Base == x86asm.RIP:
				refs[next+uint64(int64(int32(m.Disp)))] = true
			case bits == 32 && m.Base == 0:
				refs[uint64(uint32(m.Disp))] = true
			}
		}
		code, pc = code[inst.Len:], next
	}
	return sliceAt(refs, uint64(bits/8))
}

// sliceAt is the one address A among refs, the data addresses code
// references, that is referenced with A+word and A+2*word: a slice
// header read and written whole. ok is false for none or several.
func sliceAt(refs map[uint64]bool, word uint64) (addr uint64, ok bool) {
	found := 0
	for a := range refs {
		if refs[a+word] && refs[a+2*word] {
			addr, found = a, found+1
		}
	}
	return addr, found == 1
}
