package unwind

import (
	"debug/elf"
	"encoding/binary"
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

// Arch is one architecture's unwinder. Implementations are stateless
// (all state is in the Frame and the Cache) and safe for concurrent use.
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
	// Step computes caller from callee. callee's registers are the
	// current frame's; caller is a Reset frame of NumRegs registers.
	// depth is the index of callee (0 for the innermost frame). Step
	// never panics and never writes to the address space.
	Step(as AddrSpace, cache *Cache, callee, caller *Frame, depth int) (StepResult, error)
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

// CoreRegsArch is implemented by arches that can build a thread's initial
// frame from the register set a core stores for it (the raw elf_gregset_t
// of NT_PRSTATUS, in the target's byte order).
type CoreRegsArch interface {
	FrameFromCoreRegs(gregs []byte, order binary.ByteOrder) (*Frame, error)
}

// SignalFrameDetector is implemented by arches that can tell whether a
// frame is a signal trampoline before stepping it.
type SignalFrameDetector interface {
	IsSignalFrame(as AddrSpace, cache *Cache, f *Frame) bool
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

// DynListArch is implemented by arches that find libunwind's dynamic
// unwind info list where the variable _U_dyn_info_list is hidden (a
// stripped libunwind), by evaluating the few instructions of the
// exported _U_dyn_info_list_addr: fn is that symbol's run-time value in
// object f, loaded at bias.
type DynListArch interface {
	DynListAddr(as AddrSpace, f *elf.File, bias, fn uint64) (uint64, error)
}
