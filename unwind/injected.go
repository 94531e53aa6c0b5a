package unwind

import "fmt"

// InjectedCallArch is implemented by arches with a link register, where
// a signal handler that fakes a call (FrameInjectedCall) cannot push a
// return address: Go's moves the interrupted stack pointer down by a
// slot, saves the interrupted link register at the slot's bottom, and
// puts the faulting pc in the link register. The caller a step finds
// from the injected function then has the slot's stack pointer and the
// faulting pc in its link register; the cursor restores both.
type InjectedCallArch interface {
	// InjectedCallSlot is the size of the slot (Go's
	// alignUp(sys.MinFrameSize, sys.StackAlign)) and the link
	// register's number.
	InjectedCallSlot() (size uint64, lr int)
}

// restoreInjectedCaller gives next, the frame an injected call
// interrupted, its own stack pointer and link register back from the
// slot the handler took (InjectedCallArch). A fault at pc 0 (a call
// through a nil function value) has no function to show: the frame is
// then the caller the link register returned to, as the Go runtime's
// traceback shows it.
func (c *Cursor) restoreInjectedCaller() error {
	ia, ok := c.arch.(InjectedCallArch)
	if !ok {
		return nil
	}
	size, lr := ia.InjectedCallSlot()
	sp, ok := c.next.Get(c.spReg)
	if !ok {
		return nil
	}
	var word [8]byte
	buf := word[:c.as.PtrSize()]
	if err := c.as.ReadMem(sp, buf); err != nil {
		return fmt.Errorf("frame %d: the link register an injected call saved at %#x: %w", c.depth, sp, err)
	}
	saved := uint64(c.as.ByteOrder().Uint32(buf))
	if len(buf) == 8 {
		saved = c.as.ByteOrder().Uint64(buf)
	}
	c.next.Set(c.spReg, sp+size, SaveLoc{Kind: LocValue})
	if pc, _ := c.next.Get(c.pcReg); pc == 0 {
		c.next.Set(c.pcReg, saved, SaveLoc{Kind: LocMem, Addr: sp})
		c.next.ExactPC = false
		return nil
	}
	c.next.Set(lr, saved, SaveLoc{Kind: LocMem, Addr: sp})
	return nil
}
