package pa64

import (
	"debug/elf"
	"errors"

	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/stackscan"
)

func init() {
	unwind.Register(Arch{})
	unwind.Register(Arch{wide: true})
}

// Arch is the PA-RISC unwinder: "hppa" (32-bit, PA 1.1 conventions) or,
// when wide, "hppa64" (PA 2.0W). It is stateless; the rule for each
// lookup address is kept in the caller's unwind.Cache.
type Arch struct{ wide bool }

// New returns the arch for 32-bit (wide false) or 64-bit code.
func New(wide bool) Arch { return Arch{wide: wide} }

func (a Arch) Name() string {
	if a.wide {
		return "hppa64"
	}
	return "hppa"
}
func (Arch) NumRegs() int         { return NumRegs }
func (Arch) RegName(r int) string { return RegName(r) }
func (Arch) PCReg() int           { return PC }
func (Arch) SPReg() int           { return SP }

// StackGrowsUp is unwind.StackDirection: PA-RISC stacks grow toward
// higher addresses, so a caller's sp is at or below its callee's.
func (Arch) StackGrowsUp() bool { return true }

// word is the size of a register save slot.
func (a Arch) word() int64 {
	if a.wide {
		return 8
	}
	return 4
}

// FindTableEntry is unwind.TableArch: the .PARISC.unwind entry for a
// link-time address.
func (Arch) FindTableEntry(f *elf.File, addr uint64) (*unwind.ProcInfo, error) {
	return findTableEntry(f, addr)
}

// readWord reads a register-sized word of target memory.
func (a Arch) readWord(as unwind.AddrSpace, addr uint64) (uint64, error) {
	if a.wide {
		var b [8]byte
		if err := as.ReadMem(addr, b[:]); err != nil {
			return 0, err
		}
		return as.ByteOrder().Uint64(b[:]), nil
	}
	var b [4]byte
	if err := as.ReadMem(addr, b[:]); err != nil {
		return 0, err
	}
	return uint64(as.ByteOrder().Uint32(b[:])), nil
}

// readInsn reads one instruction word.
func readInsn(as unwind.AddrSpace, addr uint64) (uint32, bool) {
	var b [4]byte
	if as.ReadMem(addr, b[:]) != nil {
		return 0, false
	}
	return as.ByteOrder().Uint32(b[:]), true
}

// IsSignalFrame reports whether f is a Linux signal trampoline or a
// routine with the HP-UX interrupt marker.
func (a Arch) IsSignalFrame(as unwind.AddrSpace, cache *unwind.Cache, f *unwind.Frame) bool {
	if _, ok := a.linuxSigcontext(as, f); ok {
		return true
	}
	pc, _ := f.Get(PC)
	r := a.ruleFor(as, cache, f.LookupPC(PC), pc)
	return r.entry != nil && r.entry.Desc.HPUXInterruptMarker()
}

var errNoEntry = errors.New("no .PARISC.unwind entry")

// isEntryPoint reports whether addr is in the program's entry routine,
// the outermost frame of the main thread.
func isEntryPoint(as unwind.AddrSpace, addr uint64) bool {
	return stackscan.InFunction(as, addr, "_start", "__start", "$START$")
}
