package unwind

// GoSched is what the Go runtime saved of a goroutine that is not
// running (its g.sched gobuf, or g.syscallpc/sp/bp for one in a system
// call): where it resumes. PC is a return address. LR and BP are 0
// where the arch's gobuf has none or the runtime left them unset.
type GoSched struct {
	PC, SP, LR, BP uint64
}

// GoArch is implemented by the arches Go targets: it knows which of
// its registers a gobuf's fields are.
type GoArch interface {
	// GoFrame sets f's registers (a Reset frame of NumRegs) from s:
	// pc and sp, and the link register and frame pointer where s has
	// them.
	GoFrame(s GoSched, f *Frame)
}

// SetNonZero sets register r of f to v unless v is 0 (a gobuf's
// unset field), as a computed value.
func (f *Frame) SetNonZero(r int, v uint64) {
	if v != 0 {
		f.Set(r, v, SaveLoc{Kind: LocValue})
	}
}

// GoCgoArch is implemented by the arches whose runtime.asmcgocall the
// project knows: where it keeps the calling goroutine's g on the system
// stack while C runs.
type GoCgoArch interface {
	// GoCgoGSlot is the offset of that g from the stack pointer of
	// asmcgocall's frame (the CFA of the C function it called).
	GoCgoGSlot() uint64
}

// GoCrossCall2Arch is implemented by the arches whose crosscall2 (the
// function C calls Go through, runtime/cgo) saves its caller's return
// address where pclntab's frame description does not say: arm64's is
// NOFRAME and keeps the link register in a slot of its own.
type GoCrossCall2Arch interface {
	// GoCrossCall2Caller is where crosscall2's C caller resumes, from
	// crosscall2's stack pointer while it calls runtime.cgocallback.
	GoCrossCall2Caller(mem AddrSpace, sp uint64) (GoSched, error)
}
