package unwind

import (
	"debug/elf"
	"encoding/binary"
	"testing"
)

// lrArch is a three-register test arch with a link register (pc=0,
// sp=1, lr=2), shaped like Go's LR arches: a frame's caller is its lr
// (a leaf, sp unchanged) unless the table says otherwise; a signal
// handler's step ends (its unwind info hides the return) with its CFA
// 32 bytes up, where the signal frame holds the interrupted pc, sp and
// lr; a fake call to an injected function takes a 16-byte slot.
type lrArch struct {
	frames map[uint64]uint64 // pc -> frame size (lr saved at the CFA-size)
}

func (*lrArch) Name() string       { return "lr" }
func (*lrArch) NumRegs() int       { return 3 }
func (*lrArch) RegName(int) string { return "r" }
func (*lrArch) PCReg() int         { return 0 }
func (*lrArch) SPReg() int         { return 1 }
func (a *lrArch) Step(as AddrSpace, c *Cache, callee, caller *Frame) (StepResult, error) {
	pc, _ := callee.Get(0)
	sp, _ := callee.Get(1)
	size, ok := a.frames[pc]
	cfa := sp + size
	caller.CFA, caller.HasCFA = cfa, true
	caller.Set(1, cfa, SaveLoc{Kind: LocValue})
	if pc == lrHandlerPC {
		return StepEnd, nil // DW_CFA_undefined lr
	}
	if !ok { // a leaf: the return address is in lr
		lr, ok := callee.Get(2)
		if !ok {
			return StepEnd, nil
		}
		caller.Set(0, lr, SaveLoc{Kind: LocSame})
		caller.Trust = TrustCFI
		return StepCaller, nil
	}
	var b [8]byte
	if err := as.ReadMem(cfa-size, b[:]); err != nil {
		return StepEnd, err
	}
	ra := binary.LittleEndian.Uint64(b[:])
	caller.Set(0, ra, SaveLoc{Kind: LocMem, Addr: cfa - size})
	caller.Set(2, ra, SaveLoc{Kind: LocMem, Addr: cfa - size})
	caller.Trust = TrustCFI
	return StepCaller, nil
}
func (*lrArch) FrameFromThread(*ThreadState) (*Frame, error) { return nil, ErrNoInfo }
func (*lrArch) IsSignalFrame(AddrSpace, *Cache, *Frame) bool { return false }
func (*lrArch) DynListAddr(AddrSpace, *elf.File, uint64, uint64) (uint64, error) {
	return 0, ErrNoInfo
}
func (*lrArch) InjectedCallSlot() (uint64, int) { return 16, 2 }
func (*lrArch) StepSignalHandler(as AddrSpace, cfa uint64, caller *Frame) error {
	var b [24]byte
	if err := as.ReadMem(cfa, b[:]); err != nil {
		return err
	}
	for r := 0; r < 3; r++ {
		caller.Set(r, binary.LittleEndian.Uint64(b[8*r:]), SaveLoc{Kind: LocMem, Addr: cfa + uint64(8*r)})
	}
	caller.ExactPC, caller.Trust = true, TrustContext
	return nil
}

// The test program's functions, by pc: a signal handler, an injected
// function (sigpanic), a leaf that faulted, its caller, the outermost.
const (
	lrHandlerPC  = 0x100
	lrInjectedPC = 0x200
	lrLeafPC     = 0x300
	lrCallerPC   = 0x400
	lrOuterPC    = 0x500
)

func lrClassify(pc uint64, exact bool) FrameKind {
	switch pc &^ 0xff {
	case lrHandlerPC:
		return FrameSignalHandler
	case lrInjectedPC:
		return FrameInjectedCall
	case lrOuterPC:
		return FrameOutermost
	}
	return FrameNormal
}

// lrStack lays out a thread in lrArch's handler for a fault that a fake
// call to the injected function interrupted: the handler's frame at
// 0x1000 (32 bytes), the signal frame above it at 0x1020 saying the
// injected function runs with sp 0x1100 and lr the faulting pc 0x310;
// the injected function's frame (16 bytes) at 0x1100 holds that lr;
// the handler's slot at 0x1110 holds the leaf's own lr, 0x410 (the
// leaf has no frame); the caller's frame at 0x1120 (16 bytes) returns
// to 0x510.
func lrStack() *memSpace {
	m := newMemSpace(binary.LittleEndian, 8)
	stack := make([]byte, 0x200)
	put := func(addr, v uint64) { binary.LittleEndian.PutUint64(stack[addr-0x1000:], v) }
	put(0x1020, lrInjectedPC+0x10) // pc
	put(0x1028, 0x1100)            // sp
	put(0x1030, lrLeafPC+0x10)     // lr: the faulting pc
	put(0x1100, lrLeafPC+0x10)     // the injected function's saved lr
	put(0x1110, lrCallerPC+0x10)   // the slot: the leaf's lr
	put(0x1120, lrOuterPC+0x10)    // the caller's saved lr
	m.segs[0x1000] = stack
	return m
}

// TestGoFrameKindsOnLRArch: through a FrameSignalHandler frame to the
// signal frame at its CFA, and through a FrameInjectedCall frame to the
// faulting leaf with its own sp and lr back from the slot, then on to
// its caller: the walk Go's runtime traceback makes on arm64.
func TestGoFrameKindsOnLRArch(t *testing.T) {
	a := &lrArch{frames: map[uint64]uint64{lrHandlerPC + 0x10: 32, lrInjectedPC + 0x10: 16, lrCallerPC + 0x10: 16}}
	initial := NewFrame(3)
	initial.Set(0, lrHandlerPC+0x10, SaveLoc{Kind: LocValue})
	initial.Set(1, 0x1000, SaveLoc{Kind: LocValue})
	c, err := NewCursor(lrStack(), a, initial, Options{Classify: lrClassify})
	if err != nil {
		t.Fatal(err)
	}
	type frame struct{ pc, sp uint64 }
	var got []frame
	for {
		got = append(got, frame{c.PC(), c.SP()})
		more, err := c.Step()
		if err != nil {
			t.Fatalf("step from frame %d: %v", len(got)-1, err)
		}
		if !more {
			break
		}
	}
	want := []frame{
		{lrHandlerPC + 0x10, 0x1000},
		{lrInjectedPC + 0x10, 0x1100}, // from the signal frame
		{lrLeafPC + 0x10, 0x1120},     // the slot given back
		{lrCallerPC + 0x10, 0x1120},   // the leaf's lr from the slot
		{lrOuterPC + 0x10, 0x1130},
	}
	if len(got) != len(want) {
		t.Fatalf("frames %#x, want %#x", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("frame %d: pc %#x sp %#x, want pc %#x sp %#x", i, got[i].pc, got[i].sp, want[i].pc, want[i].sp)
		}
	}
}

// FuzzGoFrameKindsOnLRArch: any stack under the handler and the
// injected call gives a walk that ends, never a panic.
func FuzzGoFrameKindsOnLRArch(f *testing.F) {
	f.Add(lrStack().segs[0x1000], uint64(0x1000))
	f.Add(make([]byte, 64), uint64(0xfffffffffffffff8))
	f.Fuzz(func(t *testing.T, stack []byte, sp uint64) {
		a := &lrArch{frames: map[uint64]uint64{lrHandlerPC + 0x10: 32, lrInjectedPC + 0x10: 16, lrCallerPC + 0x10: 16}}
		m := newMemSpace(binary.LittleEndian, 8)
		m.segs[0x1000] = stack
		initial := NewFrame(3)
		initial.Set(0, lrHandlerPC+0x10, SaveLoc{Kind: LocValue})
		initial.Set(1, sp, SaveLoc{Kind: LocValue})
		c, err := NewCursor(m, a, initial, Options{Classify: lrClassify, MaxFrames: 64})
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 100; i++ {
			if more, _ := c.Step(); !more {
				return
			}
		}
		t.Fatalf("the walk did not end")
	})
}
