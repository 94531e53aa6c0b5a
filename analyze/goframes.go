package analyze

import (
	"cmp"
	"slices"
	"sync"

	"github.com/coreunwind/coreunwind/elfx"
	"github.com/coreunwind/coreunwind/unwind"
)

// goFrame is how a walk treats one Go runtime function (unwind.FrameKind),
// as the runtime's own traceback and gdb do.
type goFrame struct {
	kind unwind.FrameKind
	// exactKind, when set, is the kind of a frame executing the
	// function (exact PC) rather than reached as a return address.
	exactKind unwind.FrameKind
	// cgoCall: the function that switches a goroutine calling C to
	// the system stack (gocgo.go continues the thread there).
	cgoCall bool
	// cgoCallback: the function a call from C enters Go through; its
	// frame on the goroutine's stack has its twin on the system stack
	// (gocallback.go). cCallsGo: the C-callable function that calls it.
	cgoCallback, cCallsGo bool
}

var goFrames = map[string]goFrame{
	// The signal handler makes the faulting code "call" sigpanic: the
	// caller's PC is the faulting instruction.
	"runtime.sigpanic": {kind: unwind.FrameInjectedCall},
	// The runtime's signal handler: on arches with a link register
	// its unwind info ends the walk (TOPFRAME) or misplaces its return
	// (ppc64); the interrupted code is in the kernel's signal frame.
	"runtime.sigtramp": {kind: unwind.FrameSignalHandler},
	// The runtime's TOPFRAME functions: a goroutine's stack starts in
	// goexit (its entry function returns there), the first thread's in
	// rt0_go.
	"runtime.goexit": {kind: unwind.FrameOutermost},
	"runtime.rt0_go": {kind: unwind.FrameOutermost},
	// A new thread starts in clone, which calls mstart; a thread
	// executing clone is the parent in the system call, with callers,
	// or the child just born, on an empty stack.
	"runtime.clone":   {kind: unwind.FrameOutermost, exactKind: unwind.FrameThreadEntry},
	"runtime.mstart":  {kind: unwind.FrameThreadEntry},
	"runtime.mstart0": {kind: unwind.FrameThreadEntry},
	// A goroutine's call into C runs on the system stack from here:
	// its unwind info does not know the switch, what lies above it is
	// the goroutine's stack, whose frames the goroutine's saved
	// registers give (gocgo.go).
	"runtime.asmcgocall": {kind: unwind.FrameOutermost, cgoCall: true},
	// C calls Go through crosscall2 (runtime/cgo), which calls
	// cgocallback on the C stack; cgocallback switches to the
	// goroutine's stack (gocallback.go).
	"runtime.cgocallback": {cgoCallback: true},
	"crosscall2":          {cCallsGo: true},
	// A goroutine short of stack calls morestack, which switches to
	// the system stack and calls newstack there: nothing is above it
	// on that stack, and its unwind info describes the goroutine's
	// stack it left, so a walk through it does not move. The runtime's
	// own traceback jumps from there to the goroutine's saved context
	// while the thread still runs it; a goroutine preempted there
	// (gopreempt_m) is descheduled, and its frames are the goroutine's
	// own (goroutines.go) either way.
	"runtime.morestack": {kind: unwind.FrameOutermost},
}

// goFuncRange is one of goFrames' functions in a module, in link-time
// addresses.
type goFuncRange struct {
	lo, hi uint64
	goFrame
}

// goFuncs are the goFrames functions a module holds: none unless it is a
// Go program or library (it has a .gopclntab).
type goFuncs struct {
	once   sync.Once
	ranges []goFuncRange
}

// find looks the functions up in obj's symbol table, once per object:
// the ranges are the object's (link-time addresses), kept with it
// (elfx.Object.Keyed), so the cores of a batch that share a Go
// executable look its dozen runtime functions up once, not once a core
// (each lookup by name: a twentieth of a warm batch's CPU).
func (g *goFuncs) find(obj *elfx.Object) []goFuncRange {
	g.once.Do(func() {
		g.ranges = obj.Keyed(goFuncsKey{}, func() any { return goFuncRanges(obj) }).([]goFuncRange)
	})
	return g.ranges
}

// goFuncsKey is goFuncRanges' elfx.Object.Keyed key.
type goFuncsKey struct{}

// goFuncRanges looks goFrames' functions up in obj's symbol table, in
// address order.
func goFuncRanges(obj *elfx.Object) (ranges []goFuncRange) {
	if obj.ELF().Section(".gopclntab") == nil {
		return nil
	}
	// In one pass over the raw symbol tables, without building the
	// sorted one.
	names := make([]string, 0, 2*len(goFrames))
	for name := range goFrames {
		names = append(names, name, name+".abi0")
	}
	syms := obj.LookupRawSymbols(names)
	for name, f := range goFrames {
		// Assembly functions are named with their ABI in the
		// symbol table: runtime.goexit.abi0. The bare name may
		// then be a wrapper of its own (runtime.asmcgocall), or
		// the same function found in the function table, whose
		// addresses are off in a cgo binary: that one overlaps
		// the .abi0 symbol and is left out.
		// Go names, looked up as the table spells them.
		abi0, hasABI0 := syms[name+".abi0"]
		if hasABI0 && abi0.Size > 0 {
			ranges = append(ranges, goFuncRange{abi0.Addr, abi0.Addr + abi0.Size, f})
		}
		if s, ok := syms[name]; ok && s.Size > 0 {
			if hasABI0 && s.Addr < abi0.Addr+abi0.Size && abi0.Addr < s.Addr+s.Size {
				continue
			}
			ranges = append(ranges, goFuncRange{s.Addr, s.Addr + s.Size, f})
		}
	}
	// In address order: a lookup finds the same range whatever the
	// map's order.
	slices.SortFunc(ranges, func(a, b goFuncRange) int { return cmp.Compare(a.lo, b.lo) })
	return ranges
}

// classifyFrame is the walk's unwind.Classifier: the kind of the Go
// runtime function at pc, FrameNormal for any other code.
func (t *target) classifyFrame(pc uint64, exact bool) unwind.FrameKind {
	f, ok := t.goFrameAt(pc)
	if !ok {
		return unwind.FrameNormal
	}
	if exact && f.exactKind != unwind.FrameNormal {
		return f.exactKind
	}
	return f.kind
}

// goFrameAt is the goFrames entry of the Go runtime function at pc
// (a lookup address), ok false for any other code.
func (t *target) goFrameAt(pc uint64) (goFrame, bool) {
	m := t.module(pc)
	obj := m.obj()
	if obj == nil {
		return goFrame{}, false
	}
	addr := pc - m.bias
	for _, r := range m.goFuncs.find(obj) {
		if addr >= r.lo && addr < r.hi {
			return r.goFrame, true
		}
	}
	return goFrame{}, false
}
