package unwind

import (
	"debug/elf"
	"fmt"
	"sort"
	"sync"
)

// StepResult says what a step found.
type StepResult int

const (
	// StepCaller: the caller's frame was found.
	StepCaller StepResult = iota
	// StepEnd: the frame is the outermost one (the unwind info says so:
	// e.g. an undefined return address in _start or clone).
	StepEnd
)

// Arch is one architecture's unwinder: the one contract every arch
// package implements (optional extensions: TableArch, FrameIdentifier).
// Implementations are stateless (all state is in the Frame and the
// Cache) and safe for concurrent use.
type Arch interface {
	// Name is the report's arch name: "x86_64", "ia64", "hppa", "hppa64".
	Name() string
	// NumRegs is the size of a Frame's register file.
	NumRegs() int
	// RegName names register r ("rip", "r3", ...).
	RegName(r int) string
	// PCReg and SPReg are the register numbers of the program counter and
	// the stack pointer.
	PCReg() int
	SPReg() int
	// FrameFromThread builds frame 0 of a thread from what a core saved
	// for it: the general registers of NT_PRSTATUS (or the format's
	// equivalent) in the target's byte order, the other register notes,
	// and memory for state kept there (IA-64's register stack).
	FrameFromThread(th *ThreadState) (*Frame, error)
	// Step computes caller from callee. callee's registers are the
	// current frame's; caller is a Reset frame of NumRegs registers.
	// callee.ExactPC says whether callee's PC is the interrupted
	// instruction (frame 0, a frame a signal interrupted) or a return
	// address. Step never panics and never writes to the address space.
	Step(as AddrSpace, cache *Cache, callee, caller *Frame) (StepResult, error)
	// IsSignalFrame reports whether f is a signal trampoline's frame,
	// before stepping it.
	IsSignalFrame(as AddrSpace, cache *Cache, f *Frame) bool
	// DynListAddr finds libunwind's dynamic unwind info list where the
	// variable _U_dyn_info_list is hidden (a stripped libunwind), by
	// evaluating the few instructions of the exported
	// _U_dyn_info_list_addr: fn is that symbol's run-time value in object
	// f, loaded at bias. An arch that cannot decode them returns an error
	// wrapping ErrNoInfo.
	DynListAddr(as AddrSpace, f *elf.File, bias, fn uint64) (uint64, error)
}

// SignalMarker is implemented by arches whose Step sets callee.Signal
// whenever callee is a signal frame, from the rule lookup Step makes
// anyway. A Cursor asked whether its frame is a signal frame then steps
// it at once and keeps the result for the next Step, instead of a second
// lookup through IsSignalFrame (a few hundred instructions a frame).
type SignalMarker interface {
	StepMarksSignal()
}

var (
	archMu sync.RWMutex
	arches = map[string]Arch{}
)

// Register makes an Arch available by name. Arch packages call it from
// init, as image/png registers its format with image.
func Register(a Arch) {
	archMu.Lock()
	defer archMu.Unlock()
	arches[a.Name()] = a
}

// LookupArch returns the registered Arch called name.
func LookupArch(name string) (Arch, error) {
	archMu.RLock()
	defer archMu.RUnlock()
	if a, ok := arches[name]; ok {
		return a, nil
	}
	return nil, fmt.Errorf("%w: %q", ErrNoArch, name)
}

// Arches lists the registered architecture names, sorted.
func Arches() []string {
	archMu.RLock()
	defer archMu.RUnlock()
	names := make([]string, 0, len(arches))
	for n := range arches {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// TableArch is implemented by arches whose objects carry their own unwind
// tables (IA-64 .IA_64.unwind, PA-RISC .PARISC.unwind). An address space
// asks it before DWARF CFI. addr is a link-time address in f; the
// returned ProcInfo has link-time StartIP/EndIP (the address space adds
// the load bias and sets Bias). Implementations cache parsed tables per
// *elf.File and must be safe for concurrent use.
type TableArch interface {
	FindTableEntry(f *elf.File, addr uint64) (*ProcInfo, error)
}

// TablesAfterCFI is implemented by a TableArch whose tables are asked
// only where an object's DWARF CFI has no FDE for the address (ARM's
// .ARM.exidx: gdb also tries DWARF CFI first, and an object's
// .debug_frame describes what its index only summarizes).
type TablesAfterCFI interface {
	TablesAfterCFI()
}
