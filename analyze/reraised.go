package analyze

import (
	"fmt"

	"github.com/coreunwind/coreunwind/corefile"
	"github.com/coreunwind/coreunwind/report"
	"github.com/coreunwind/coreunwind/unwind"
)

// maxReraiseFrames bounds the walk for a handler's signal frame: a
// handler re-raises a few frames above it (faulthandler, a JVM's and
// Breakpad's handlers call raise or tgkill directly).
const maxReraiseFrames = 64

// savedFault is a fault a signal handler caught: what the kernel saved
// of it in the signal frame, and the frame the fault interrupted.
type savedFault struct {
	signal *corefile.Signal
	// frame holds the interrupted registers (the signal context).
	frame *unwind.Frame
	// signalFrame is the report index of the signal frame ("<signal
	// handler called>"); faultFrame of the first frame below it.
	signalFrame, faultFrame int
}

// reraisedFault finds, when the signal that killed the process was
// raised by the process itself or sent (not a fault of frame 0's
// instruction), the innermost signal frame of the crashed thread that
// holds a fault (savedSignal): the handler caught that fault and raised
// the signal that killed the process. nil when there is none.
func (s *Session) reraisedFault(th *corefile.Thread, rt *report.Thread, f0 *unwind.Frame, maps []report.Mapping) *savedFault {
	sig := s.Core.Signal
	if sig.Detailed && sig.Code > 0 {
		return nil
	}
	if !sig.Detailed && frame0MayFault(s.arch, s.target, f0) {
		// pr_cursig only (qemu-user's cores): a thread stopped at a
		// memory access may have faulted there itself, in a handler.
		return nil
	}
	initial, err := initialFrame(s.target, s.arch, th)
	if err != nil {
		return nil
	}
	// The Go classifier, as the report's walk has it: a fault in C code
	// called from Go is caught by the runtime's handler, whose frames
	// (runtime.sigtramp, sigpanic's injected call) only it steps past
	// on arches whose unwind info ends the walk there.
	cur, err := unwind.NewCursor(s.target, s.arch, initial, unwind.Options{Cache: s.cache, MaxFrames: maxReraiseFrames, Classify: s.target.classifyFrame})
	if err != nil {
		return nil
	}
	for signals := 0; ; {
		// A signal frame, or a signal handler whose step reads the
		// signal frame at its CFA (Go's runtime.sigtramp, where the
		// walk shows no trampoline).
		handler := s.steppedHandler(cur.LookupPC(), cur.Frame().ExactPC)
		if handler || cur.IsSignalFrame() {
			signals++
			stepped := false
			var saved *corefile.Signal
			var how savedFrom
			if handler {
				if more, _ := cur.Step(); !more {
					return nil
				}
				stepped = true
				// The interrupted frame's CFA is the signal frame's
				// address, the trampoline's stack pointer.
				if f := cur.Frame(); f.HasCFA {
					saved, how = s.savedSignal(unwind.TrampolineFrame(s.arch.NumRegs(), s.arch.SPReg(), f.CFA))
				}
			} else {
				saved, how = s.savedSignal(cur.Frame())
			}
			// A context's trap number and address are the thread's
			// last exception, stale for a signal that was none: one
			// is believed for the same signal as the core's only, and
			// where the interrupted instruction agrees. A siginfo of
			// another signal than the one a core without siginfo
			// names (qemu-user's: a Go program's SIGSEGV in C code,
			// re-raised as SIGABRT) is believed when the interrupted
			// instruction's operand is its address.
			vouched := sig.Detailed || saved != nil && saved.Number == sig.Number
			if saved != nil && (how == fromSiginfo || saved.Number == sig.Number) && (vouched || how == fromSiginfo && saved.Number == sigSEGV) {
				if !stepped {
					if more, _ := cur.Step(); !more {
						return nil
					}
				}
				if (how != fromSiginfo || !vouched) && saved.Number == sigSEGV && !faultAddrAgrees(s.arch, s.target, cur.Frame(), saved.Addr, how == fromAddr || !vouched) {
					continue // not this frame's fault: a stale address
				}
				if how == fromAddr {
					saved = s.Core.FaultSignal(saved.Number, segvCode(maps, saved.Addr), saved.Addr)
				}
				sf := s.reportSignalFrame(rt.Frames, signals)
				if sf < 0 || sf+1 >= len(rt.Frames) {
					return nil
				}
				fr := unwind.NewFrame(s.arch.NumRegs())
				fr.CopyFrom(cur.Frame())
				return &savedFault{signal: saved, frame: fr, signalFrame: sf, faultFrame: sf + 1}
			}
			if stepped {
				continue
			}
		}
		if more, _ := cur.Step(); !more {
			return nil
		}
	}
}

// savedSignal is the fault signal frame f holds, nil if none. The
// siginfo is there only when the handler was installed with SA_SIGINFO
// (faulthandler's is not; the kernel leaves stale stack there), while
// x86's signal context always records the exception: a siginfo is
// believed where the context, when the arch has one, records a fault too
// (or only an address).
func (s *Session) savedSignal(f *unwind.Frame) (*corefile.Signal, savedFrom) {
	var trap *corefile.Signal
	how := fromContext
	tc, hasTrap := s.arch.(unwind.TrapContextArch)
	if hasTrap {
		t, ok := tc.SavedTrap(s.target, s.cache, f)
		if !ok {
			return nil, 0
		}
		trap = s.Core.FaultSignal(t.Signal, t.Code, t.Addr)
		if t.AddrOnly {
			how = fromAddr
		}
	}
	if sa, ok := s.arch.(unwind.SiginfoArch); ok {
		var buf [corefile.SiginfoSize]byte
		if addr, ok := sa.SiginfoAddr(s.target, s.cache, f); ok && s.target.ReadMem(addr, buf[:]) == nil {
			if si, err := s.Core.ParseSiginfo(buf[:]); err == nil && si.IsFault() && (trap == nil || how == fromAddr || si.Number == trap.Number) {
				return si, fromSiginfo
			}
		}
	}
	return trap, how
}

// savedFrom says where a signal frame's fault was read.
type savedFrom int

const (
	fromSiginfo savedFrom = iota + 1
	// fromContext: the trap the signal context records (x86).
	fromContext
	// fromAddr: only an address the context records (arm64's
	// fault_address), which the caller must find as the interrupted
	// instruction's operand before believing it; SIGSEGV, no code.
	fromAddr
)

// sigSEGV is Linux's SIGSEGV (the same number on every arch that has
// signal context traps).
const sigSEGV = 11

// faultAddrSpan bounds how far past an operand's address a fault of its
// access may be (a vector load crossing into an unmapped page faults at
// the page).
const faultAddrSpan = 64

// faultAddrAgrees reports whether the instruction at frame f's pc can
// have faulted at addr: addr is the pc (a jump there), or within its
// memory operand. An instruction without a computed operand (decoding
// failed, or none) agrees unless must, when the address is all the
// evidence there is.
func faultAddrAgrees(arch unwind.Arch, mem unwind.AddrSpace, f *unwind.Frame, addr uint64, must bool) bool {
	if pc, ok := f.Get(arch.PCReg()); ok && pc == addr {
		return true
	}
	in, err := decodeAt(arch, mem, f)
	if err != nil || in.Mem == unwind.MemNone || !in.HasMemAddr {
		return !must
	}
	return addr >= in.MemAddr && addr-in.MemAddr < faultAddrSpan
}

// segvCode is the si_code the kernel gives a SIGSEGV at addr: no mapping
// holds it (SEGV_MAPERR), or one does that forbids the access
// (SEGV_ACCERR).
func segvCode(maps []report.Mapping, addr uint64) int {
	const segvMapErr, segvAccErr = 1, 2
	for i := range maps {
		if addr >= uint64(maps[i].Start) && addr < uint64(maps[i].End) && maps[i].Perms != "" {
			return segvAccErr
		}
	}
	return segvMapErr
}

// reportSignalFrame is the index of the n-th signal frame of a thread's
// report frames, -1 if it has fewer: a trampoline's frame, or a signal
// handler's the walk stepped past to the frame it interrupted (Go's
// runtime.sigtramp).
func (s *Session) reportSignalFrame(frames []report.Frame, n int) int {
	for i := range frames {
		f := &frames[i]
		lookup := uint64(f.PC)
		if !f.ExactPC && lookup > 0 {
			lookup--
		}
		if f.Signal || !f.Inlined && s.steppedHandler(lookup, f.ExactPC) {
			n--
			if n == 0 {
				return i
			}
		}
	}
	return -1
}

// steppedHandler reports whether the walk steps from the frame at
// lookup to the frame a signal interrupted, reading the signal frame at
// its CFA (unwind.SignalFrameArch, for the Go runtime's handler whose
// unwind info ends the walk): no trampoline frame lies between them.
func (s *Session) steppedHandler(lookup uint64, exact bool) bool {
	_, ok := s.arch.(unwind.SignalFrameArch)
	return ok && s.target.classifyFrame(lookup, exact) == unwind.FrameSignalHandler
}

// frame0MayFault reports whether frame 0's instruction accesses memory
// (or cannot be decoded): it may be where the thread faulted.
func frame0MayFault(arch unwind.Arch, mem unwind.AddrSpace, f0 *unwind.Frame) bool {
	in, err := decodeAt(arch, mem, f0)
	return err != nil || in.Mem != unwind.MemNone
}

// decodeAt decodes the instruction at frame f's pc with its registers.
func decodeAt(arch unwind.Arch, mem unwind.AddrSpace, f *unwind.Frame) (unwind.Insn, error) {
	d, ok := arch.(unwind.InsnDecoder)
	if !ok {
		return unwind.Insn{}, fmt.Errorf("%s: %w", arch.Name(), unwind.ErrInsnNotCovered)
	}
	pc, ok := f.Get(arch.PCReg())
	if !ok {
		return unwind.Insn{}, fmt.Errorf("frame: %w: pc", unwind.ErrNoReg)
	}
	start := pc
	if c, ok := d.(unwind.InsnCodeAddr); ok {
		start = c.InsnCodeAddr(pc)
	}
	for n := d.MaxInsnLen(); n > 0; n-- {
		code := make([]byte, n)
		if mem.ReadMem(start, code) == nil {
			return d.DecodeInsn(code, pc, f.Get)
		}
	}
	return unwind.Insn{}, fmt.Errorf("pc %#x: %w", pc, unwind.ErrUnavailable)
}
