package unwind

import (
	"debug/elf"
	"encoding/binary"
	"errors"
	"testing"
)

// chainArch is a two-register test arch (pc=0, sp=1) whose callers are
// read from a table: the engine's mechanics, independent of any real
// architecture's rules.
type chainArch struct {
	next  map[[2]uint64][2]uint64 // (pc, sp) -> caller (pc, sp)
	calls int
}

func (*chainArch) Name() string       { return "chain" }
func (*chainArch) NumRegs() int       { return 2 }
func (*chainArch) RegName(int) string { return "r" }
func (*chainArch) PCReg() int         { return 0 }
func (*chainArch) SPReg() int         { return 1 }
func (a *chainArch) Step(as AddrSpace, c *Cache, callee, caller *Frame) (StepResult, error) {
	a.calls++
	pc, _ := callee.Get(0)
	sp, _ := callee.Get(1)
	n, ok := a.next[[2]uint64{pc, sp}]
	if !ok {
		return StepEnd, nil
	}
	caller.Set(0, n[0], SaveLoc{Kind: LocMem, Addr: sp})
	caller.Set(1, n[1], SaveLoc{Kind: LocValue})
	caller.Trust = TrustCFI
	return StepCaller, nil
}

func (*chainArch) FrameFromThread(*ThreadState) (*Frame, error) { return nil, ErrNoInfo }
func (*chainArch) IsSignalFrame(AddrSpace, *Cache, *Frame) bool { return false }
func (*chainArch) DynListAddr(AddrSpace, *elf.File, uint64, uint64) (uint64, error) {
	return 0, ErrNoInfo
}

type nullSpace struct{}

func (nullSpace) ByteOrder() binary.ByteOrder             { return binary.LittleEndian }
func (nullSpace) PtrSize() int                            { return 8 }
func (nullSpace) ReadMem(uint64, []byte) error            { return ErrUnavailable }
func (nullSpace) FindProcInfo(uint64) (*ProcInfo, error)  { return nil, ErrNoInfo }
func (nullSpace) ProcName(uint64) (string, uint64, error) { return "", 0, ErrNoInfo }
func (nullSpace) DynInfoListAddr() (uint64, error)        { return 0, ErrNoInfo }

func start(pc, sp uint64) *Frame {
	f := NewFrame(2)
	f.Set(0, pc, SaveLoc{Kind: LocSame})
	f.Set(1, sp, SaveLoc{Kind: LocSame})
	return f
}

func walk(t *testing.T, a *chainArch, max int) (pcs []uint64, err error) {
	t.Helper()
	c, err := NewCursor(nullSpace{}, a, start(0x100, 0x1000), Options{MaxFrames: max})
	if err != nil {
		t.Fatal(err)
	}
	for {
		pcs = append(pcs, c.PC())
		more, err := c.Step()
		if !more {
			return pcs, err
		}
	}
}

func TestCursorWalksToTheEnd(t *testing.T) {
	a := &chainArch{next: map[[2]uint64][2]uint64{
		{0x100, 0x1000}: {0x200, 0x1010},
		{0x200, 0x1010}: {0x300, 0x1020},
	}}
	pcs, err := walk(t, a, 0)
	if err != nil || len(pcs) != 3 || pcs[2] != 0x300 {
		t.Fatalf("pcs %#x err %v; want 3 frames ending at 0x300 and no error", pcs, err)
	}
}

func TestCursorStopsOnCycle(t *testing.T) {
	a := &chainArch{next: map[[2]uint64][2]uint64{
		{0x100, 0x1000}: {0x200, 0x1010},
		{0x200, 0x1010}: {0x100, 0x1000},
	}}
	pcs, err := walk(t, a, 0)
	if !errors.Is(err, ErrCycle) || len(pcs) != 2 {
		t.Fatalf("pcs %#x err %v; want 2 frames and ErrCycle", pcs, err)
	}
}

func TestCursorStopsWhenFrameDoesNotMove(t *testing.T) {
	a := &chainArch{next: map[[2]uint64][2]uint64{{0x100, 0x1000}: {0x100, 0x1000}}}
	_, err := walk(t, a, 0)
	if !errors.Is(err, ErrNoProgress) {
		t.Fatalf("err %v; want ErrNoProgress", err)
	}
}

func TestCursorMaxFrames(t *testing.T) {
	a := &chainArch{next: map[[2]uint64][2]uint64{}}
	for i := uint64(0); i < 100; i++ {
		a.next[[2]uint64{0x100 + i, 0x1000 + 16*i}] = [2]uint64{0x101 + i, 0x1010 + 16*i}
	}
	pcs, err := walk(t, a, 10)
	if !errors.Is(err, ErrMaxFrames) || len(pcs) != 10 {
		t.Fatalf("%d frames err %v; want 10 and ErrMaxFrames", len(pcs), err)
	}
}

func TestCursorReadOnlyAndSaveLoc(t *testing.T) {
	a := &chainArch{next: map[[2]uint64][2]uint64{{0x100, 0x1000}: {0x200, 0x1010}}}
	c, err := NewCursor(nullSpace{}, a, start(0x100, 0x1000), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.SetReg(0, 1); !errors.Is(err, ErrReadOnly) {
		t.Errorf("SetReg: %v, want ErrReadOnly", err)
	}
	if err := c.Resume(); !errors.Is(err, ErrReadOnly) {
		t.Errorf("Resume: %v, want ErrReadOnly", err)
	}
	if more, _ := c.Step(); !more {
		t.Fatal("no caller")
	}
	loc, err := c.SaveLoc(0)
	if err != nil || loc.Kind != LocMem || loc.Addr != 0x1000 {
		t.Errorf("SaveLoc(pc) = %+v, %v; want memory at 0x1000", loc, err)
	}
	if c.LookupPC() != 0x1ff {
		t.Errorf("LookupPC %#x; a caller frame looks up its return address - 1", c.LookupPC())
	}
}

// chainArchWithExtra tells frames apart by a third value, as IA-64 does
// with bsp.
type chainArchWithExtra struct{ chainArch }

func (chainArchWithExtra) NumRegs() int               { return 3 }
func (chainArchWithExtra) FrameExtra(f *Frame) uint64 { v, _ := f.Get(2); return v }
func (a *chainArchWithExtra) Step(as AddrSpace, c *Cache, callee, caller *Frame) (StepResult, error) {
	pc, _ := callee.Get(0)
	bsp, _ := callee.Get(2)
	if bsp >= 0x40 {
		return StepEnd, nil
	}
	// Recursion that never moves sp: the same (pc, sp), a new bsp.
	caller.Set(0, pc, SaveLoc{Kind: LocMem})
	caller.Set(1, 0x1000, SaveLoc{Kind: LocValue})
	caller.Set(2, bsp+0x10, SaveLoc{Kind: LocValue})
	return StepCaller, nil
}

func TestCursorFrameIdentifier(t *testing.T) {
	a := &chainArchWithExtra{}
	f := NewFrame(3)
	f.Set(0, 0x100, SaveLoc{})
	f.Set(1, 0x1000, SaveLoc{})
	f.Set(2, 0, SaveLoc{})
	c, err := NewCursor(nullSpace{}, a, f, Options{})
	if err != nil {
		t.Fatal(err)
	}
	n := 1
	for {
		more, err := c.Step()
		if !more {
			if err != nil {
				t.Fatalf("after %d frames: %v (frames that differ only in the arch's extra identity are not a cycle)", n, err)
			}
			break
		}
		n++
	}
	if n != 5 {
		t.Errorf("%d frames, want 5", n)
	}
}
