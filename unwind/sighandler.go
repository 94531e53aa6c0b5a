package unwind

import "fmt"

// SignalFrameArch is implemented by arches that can read the signal
// frame the kernel builds for a handler from the handler's own frame,
// not the trampoline it returns to: what a FrameSignalHandler frame's
// step needs.
type SignalFrameArch interface {
	// StepSignalHandler fills caller, a Reset frame, with the registers
	// of the code a signal interrupted, from the kernel's signal frame
	// (SA_SIGINFO's rt_sigframe) of the FrameSignalHandler frame whose
	// CFA (as its unwind info computes it) is cfa. The frame sits at the
	// handler's entry stack pointer: the CFA, where the unwind info
	// counts every push (arm says where it does not).
	StepSignalHandler(as AddrSpace, cfa uint64, caller *Frame) error
}

// stepSignalHandler replaces the step from a FrameSignalHandler frame
// (held in next, res and stepErr) by the code the signal interrupted,
// when the arch can read the signal frame and the step found the
// handler's CFA (its entry stack pointer). Otherwise the step stands.
func (c *Cursor) stepSignalHandler() {
	sa, ok := c.arch.(SignalFrameArch)
	if !ok || c.stepErr != nil || !c.next.HasCFA {
		return
	}
	cfa := c.next.CFA
	c.next.Reset()
	var err error
	if gerr := c.guard(func() { err = sa.StepSignalHandler(c.as, cfa, c.next) }); gerr != nil {
		err = gerr
	}
	if err != nil {
		c.res, c.stepErr = StepEnd, fmt.Errorf("frame %d: signal handler (CFA %#x): %w", c.depth, cfa, err)
		return
	}
	c.res, c.stepErr = StepCaller, nil
}

// TrampolineFrame is a signal trampoline's frame as far as a
// SignalFrameArch knows it: n registers, all unknown but the stack
// pointer spReg, sp (the signal frame's address), which is what an
// arch's reader of the signal frame takes from the trampoline's frame.
func TrampolineFrame(n, spReg int, sp uint64) *Frame {
	f := NewFrame(n)
	f.Set(spReg, sp, SaveLoc{Kind: LocValue})
	return f
}
