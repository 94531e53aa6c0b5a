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

// TestCursorFindsCyclesQuickly: a chain that enters a cycle of k frames
// after mu distinct ones stops with ErrCycle within 2·max(mu, k) + k
// steps (Brent's bound with checkpoints at depths 0, 2, 4, 8, ...), and
// not before the cycle has closed once. The frames of the cycle share one
// sp, so only the cycle check, not the stack direction, can stop it.
func TestCursorFindsCyclesQuickly(t *testing.T) {
	for mu := 0; mu <= 40; mu++ {
		for k := 2; k <= 40; k++ {
			a := &chainArch{next: map[[2]uint64][2]uint64{}}
			frame := func(i int) [2]uint64 {
				if i < mu {
					return [2]uint64{0x100 + uint64(i), 0x1000 + 16*uint64(i)}
				}
				return [2]uint64{0x800 + uint64((i-mu)%k), 0x1000 + 16*uint64(mu)}
			}
			for i := 0; i < mu+k; i++ {
				a.next[frame(i)] = frame(i + 1)
			}
			c, err := NewCursor(nullSpace{}, a, start(frame(0)[0], frame(0)[1]), Options{})
			if err != nil {
				t.Fatal(err)
			}
			for {
				if more, _ := c.Step(); !more {
					break
				}
			}
			bound := 2*max(mu, k) + k
			if !errors.Is(c.Err(), ErrCycle) || a.calls < mu+k || a.calls > bound {
				t.Errorf("mu %d, k %d: %d steps, err %v; want ErrCycle after %d to %d steps", mu, k, a.calls, c.Err(), mu+k, bound)
			}
		}
	}
}

// growsUpChain is a chainArch whose stack grows toward higher addresses,
// as PA-RISC's does.
type growsUpChain struct{ chainArch }

func (growsUpChain) StackGrowsUp() bool { return true }

// contextChain is a chainArch whose every caller comes from a saved
// context (a signal frame's), the way a step through a sigreturn
// trampoline finds the interrupted code.
type contextChain struct{ chainArch }

func (a *contextChain) Step(as AddrSpace, c *Cache, callee, caller *Frame) (StepResult, error) {
	res, err := a.chainArch.Step(as, c, callee, caller)
	caller.Trust = TrustContext
	return res, err
}

// TestCursorStackDirection: a caller whose sp lies on the younger side of
// its callee's stops the walk with ErrInnerFrame, where "younger" depends
// on the arch's stack direction, except across a signal frame (a handler
// on a sigaltstack returns to code on the thread's own stack).
func TestCursorStackDirection(t *testing.T) {
	down := map[[2]uint64][2]uint64{
		{0x100, 0x1000}: {0x200, 0x1010},
		{0x200, 0x1010}: {0x300, 0x1010}, // same sp: a frameless function
		{0x300, 0x1010}: {0x400, 0x0ff0}, // backwards
		{0x400, 0x0ff0}: {0x500, 0x2000},
	}
	up := map[[2]uint64][2]uint64{
		{0x100, 0x1000}: {0x200, 0x0ff0},
		{0x200, 0x0ff0}: {0x300, 0x0ff0},
		{0x300, 0x0ff0}: {0x400, 0x1010}, // backwards for a stack that grows up
		{0x400, 0x1010}: {0x500, 0x0800},
	}
	for _, tc := range []struct {
		name    string
		arch    Arch
		frames  int
		wantErr error
	}{
		{"grows-down", &chainArch{next: down}, 3, ErrInnerFrame},
		{"grows-up", &growsUpChain{chainArch{next: up}}, 3, ErrInnerFrame},
		{"grows-up-arch-walks-down-stack", &growsUpChain{chainArch{next: down}}, 1, ErrInnerFrame},
		{"signal-frames", &contextChain{chainArch{next: down}}, 5, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := NewCursor(nullSpace{}, tc.arch, start(0x100, 0x1000), Options{})
			if err != nil {
				t.Fatal(err)
			}
			n := 1
			for {
				more, _ := c.Step()
				if !more {
					break
				}
				n++
			}
			if n != tc.frames || !errors.Is(c.Err(), tc.wantErr) || (tc.wantErr == nil) != (c.Err() == nil) {
				t.Errorf("%d frames, err %v; want %d frames and %v", n, c.Err(), tc.frames, tc.wantErr)
			}
		})
	}
}

// endlessArch makes up an endless, well-formed stack: each caller one
// return address further, 16 bytes older. Only the frame limit ends it.
type endlessArch struct{ chainArch }

func (*endlessArch) Step(as AddrSpace, c *Cache, callee, caller *Frame) (StepResult, error) {
	pc, _ := callee.Get(0)
	sp, _ := callee.Get(1)
	caller.Set(0, pc+1, SaveLoc{Kind: LocMem, Addr: sp})
	caller.Set(1, sp+16, SaveLoc{Kind: LocValue})
	caller.Trust = TrustCFI
	return StepCaller, nil
}

// walkEndless walks an endless stack to the frame limit and returns the
// number of frames.
func walkEndless(t testing.TB, max int) int {
	c, err := NewCursor(nullSpace{}, &endlessArch{}, start(0x100, 0x1000), Options{MaxFrames: max})
	if err != nil {
		t.Fatal(err)
	}
	n := 1
	for {
		more, err := c.Step()
		if !more {
			if !errors.Is(err, ErrMaxFrames) || !c.Truncated() {
				t.Fatalf("after %d frames: %v, want ErrMaxFrames", n, err)
			}
			return n
		}
		n++
	}
}

// TestCursorHardBound: with no limit given, a stack that never ends stops
// at DefaultMaxFrames with ErrMaxFrames, and a walk of a million frames
// allocates no more than one of a thousand (the cursor keeps no state per
// frame).
func TestCursorHardBound(t *testing.T) {
	if n := walkEndless(t, 0); n != DefaultMaxFrames {
		t.Fatalf("%d frames, want DefaultMaxFrames (%d)", n, DefaultMaxFrames)
	}
	short := testing.AllocsPerRun(1, func() { walkEndless(t, 1000) })
	long := testing.AllocsPerRun(1, func() { walkEndless(t, DefaultMaxFrames) })
	if long != short {
		t.Errorf("%v allocations walking %d frames, %v walking 1000; want the same", long, DefaultMaxFrames, short)
	}
}

// BenchmarkCursorStep is the engine's own cost per frame, without any
// arch rules: the loop checks.
func BenchmarkCursorStep(b *testing.B) {
	frames := 0
	for b.Loop() {
		frames += walkEndless(b, 100_000)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(frames), "ns/frame")
}

// markingChain marks the frames at the pcs in signal as signal frames in
// Step, as a SignalMarker arch does; its IsSignalFrame must not be asked.
type markingChain struct {
	chainArch
	signal map[uint64]bool
}

func (*markingChain) StepMarksSignal() {}

func (a *markingChain) Step(as AddrSpace, c *Cache, callee, caller *Frame) (StepResult, error) {
	pc, _ := callee.Get(0)
	if a.signal[pc] {
		callee.Signal = true
	}
	return a.chainArch.Step(as, c, callee, caller)
}

func (*markingChain) IsSignalFrame(AddrSpace, *Cache, *Frame) bool {
	panic("IsSignalFrame asked of a SignalMarker arch")
}

// A walk that asks IsSignalFrame before each Step (as analyze does) steps
// each frame once, gets the same frames as one that does not ask, and
// sees the frames Step marks, the last one (no caller) included.
func TestCursorSignalFromStep(t *testing.T) {
	a := &markingChain{signal: map[uint64]bool{0x200: true, 0x400: true}}
	a.next = map[[2]uint64][2]uint64{
		{0x100, 0x1000}: {0x200, 0x1010},
		{0x200, 0x1010}: {0x300, 0x1020},
		{0x300, 0x1020}: {0x400, 0x1030},
	}
	c, err := NewCursor(nullSpace{}, a, start(0x100, 0x1000), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var pcs, signals []uint64
	for {
		pcs = append(pcs, c.PC())
		if c.IsSignalFrame() {
			signals = append(signals, c.PC())
		}
		if !c.IsSignalFrame() != !a.signal[c.PC()] {
			t.Errorf("second IsSignalFrame at %#x disagrees", c.PC())
		}
		more, err := c.Step()
		if err != nil {
			t.Fatal(err)
		}
		if !more {
			break
		}
	}
	if a.calls != len(pcs) {
		t.Errorf("%d arch steps for %d frames; want one a frame", a.calls, len(pcs))
	}
	if len(signals) != 2 || signals[0] != 0x200 || signals[1] != 0x400 {
		t.Errorf("signal frames %#x; want 0x200 and 0x400", signals)
	}
	plain, err := walk(t, &a.chainArch, 0)
	if err != nil || len(plain) != len(pcs) {
		t.Fatalf("walk without IsSignalFrame: %#x, %v; with: %#x", plain, err, pcs)
	}
	for i := range pcs {
		if plain[i] != pcs[i] {
			t.Fatalf("frames %#x with IsSignalFrame, %#x without", pcs, plain)
		}
	}
}
