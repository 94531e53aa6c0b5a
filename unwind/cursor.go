package unwind

import (
	"errors"
	"fmt"

	"github.com/coreunwind/coreunwind/internal/mapfault"
)

// DefaultMaxFrames is the frame limit when Options.MaxFrames is zero. It
// is a safety bound, not a cut: real stacks are walked whole. A stack
// overflow of Linux's default 8 MiB stack in functions with 16-byte
// frames (return address and saved frame pointer) has 524,288 frames; the
// bound leaves twice that, and a walk that reaches it costs the same
// memory as any other (the cursor keeps no per-frame state).
const DefaultMaxFrames = 1 << 20

// Options configure a Cursor.
type Options struct {
	// Cache is the address space's rule cache; nil disables caching.
	Cache *Cache
	// MaxFrames bounds the number of frames (DefaultMaxFrames if zero).
	MaxFrames int
	// Classify, when set, names the frames a language runtime treats
	// specially (FrameKind); nil: every frame is FrameNormal.
	Classify Classifier
	// ResumePC says the initial frame's PC is a return address, not an
	// executing instruction: a parked goroutine's saved resume point,
	// after the call that parked it. It is looked up at PC-1.
	ResumePC bool
	// CatchFaults turns a fault reading a memory-mapped file truncated
	// under the walk (SIGBUS, fatal to a Go program) into an error
	// wrapping mapfault.ErrFault: Step, ProcInfo and ProcName return it
	// (IsSignalFrame leaves it for Step). For cursors a library's user
	// drives; a caller that runs the whole walk under mapfault.Catch
	// leaves it off, and the fault ends the walk there.
	CatchFaults bool
}

// Cursor walks one thread's stack from its innermost frame toward older
// ones, as libunwind's unw_cursor_t.
type Cursor struct {
	as    AddrSpace
	arch  Arch
	opts  Options
	cur   *Frame
	next  *Frame
	depth int
	proc  *ProcInfo
	done  bool
	err   error

	// stepped says that next already holds the step from cur (res,
	// stepErr), taken early by IsSignalFrame when the arch is a
	// SignalMarker (marksSignal).
	marksSignal bool
	stepped     bool

	// What the arch says once, not through an interface call (or type
	// assertion) several times a frame.
	pcReg, spReg int
	frameID      FrameIdentifier // nil unless the arch is one
	res          StepResult
	stepErr      error

	// Loop detection in O(1) memory, whatever the depth: curKey is the
	// current frame's key (no progress), checkpoint a frame key saved at
	// depths 0, 2, 4, 8, ... (Brent's cycle detection: a cycle of length
	// k entered after mu frames is found within 2·max(mu, k) + k steps),
	// growsUp the direction the stack must move in toward older frames.
	curKey         frameKey
	checkpoint     frameKey
	nextCheckpoint int
	growsUp        bool
}

// NewCursor starts a cursor at initial, the thread's registers (copied).
// initial must have arch.NumRegs() registers, a valid PC and SP.
func NewCursor(as AddrSpace, arch Arch, initial *Frame, opts Options) (*Cursor, error) {
	n := arch.NumRegs()
	if len(initial.Regs) != n || len(initial.Valid) != n || len(initial.Locs) != n {
		return nil, fmt.Errorf("initial frame has %d registers, %s has %d", len(initial.Regs), arch.Name(), n)
	}
	if _, ok := initial.Get(arch.PCReg()); !ok {
		return nil, fmt.Errorf("initial frame: %w: %s", ErrNoReg, arch.RegName(arch.PCReg()))
	}
	if opts.MaxFrames <= 0 {
		opts.MaxFrames = DefaultMaxFrames
	}
	c := &Cursor{as: as, arch: arch, opts: opts, cur: NewFrame(n), next: NewFrame(n), nextCheckpoint: 2}
	if d, ok := arch.(StackDirection); ok {
		c.growsUp = d.StackGrowsUp()
	}
	_, c.marksSignal = arch.(SignalMarker)
	c.pcReg, c.spReg = arch.PCReg(), arch.SPReg()
	c.frameID, _ = arch.(FrameIdentifier)
	c.cur.CopyFrom(initial)
	if c.cur.Trust == TrustNone {
		c.cur.Trust = TrustContext
	}
	c.cur.ExactPC = !opts.ResumePC
	c.curKey = c.key(c.cur)
	c.checkpoint = c.curKey
	return c, nil
}

// StackDirection is implemented by arches whose stack grows toward higher
// addresses (PA-RISC: StackGrowsUp returns true). Every other arch's
// stack grows down, and an arch that does not implement it is taken to
// be one of those.
type StackDirection interface {
	StackGrowsUp() bool
}

// frameKey identifies a frame for cycle detection: its PC, its CFA (or
// SP), and whatever else the arch says tells frames apart.
type frameKey [3]uint64

// FrameIdentifier is implemented by arches where PC and stack pointer do
// not identify a frame: on IA-64 a recursive function that keeps its
// locals in stacked registers repeats (pc, sp) with a different bsp.
type FrameIdentifier interface {
	FrameExtra(f *Frame) uint64
}

func (c *Cursor) key(f *Frame) frameKey {
	pc, _ := f.Get(c.pcReg)
	sp, _ := f.Get(c.spReg)
	if f.HasCFA {
		sp = f.CFA
	}
	var extra uint64
	if c.frameID != nil {
		extra = c.frameID.FrameExtra(f)
	}
	return frameKey{pc, sp, extra}
}

// Step moves the cursor to the caller's frame. It returns true when it
// moved, false at the end of the chain; err tells why the chain ended
// early (nil when the outermost frame was reached normally). After a
// false return the cursor stays on the last good frame.
func (c *Cursor) Step() (bool, error) {
	if c.done {
		return false, c.err
	}
	stop := func(err error) (bool, error) {
		c.done, c.err = true, err
		return false, err
	}
	if c.depth+1 >= c.opts.MaxFrames {
		return stop(ErrMaxFrames)
	}
	kind := c.kind()
	if kind == FrameOutermost {
		return stop(nil)
	}
	if kind == FrameThreadEntry {
		// Past a thread's entry function the walk may only fail to
		// go further: that is its normal end.
		stop = func(err error) (bool, error) {
			c.done = true
			return false, nil
		}
	}
	if !c.stepped {
		c.stepNext()
	}
	c.stepped = false
	if kind == FrameSignalHandler {
		c.stepSignalHandler()
	}
	res, err := c.res, c.stepErr
	if err != nil {
		return stop(err)
	}
	if res == StepEnd {
		return stop(nil)
	}
	if kind == FrameInjectedCall {
		// The "return address" is the faulting instruction.
		c.next.ExactPC = true
		if err := c.restoreInjectedCaller(); err != nil {
			return stop(err)
		}
	}
	pc, ok := c.next.Get(c.pcReg)
	if !ok || pc == 0 {
		// A zero return address ends the chain (the convention of _start
		// and thread entry points that clear the frame pointer).
		return stop(nil)
	}
	if _, ok := c.next.Get(c.spReg); !ok {
		return stop(fmt.Errorf("frame %d: %w: caller's %s unknown", c.depth, ErrBadFrame, c.arch.RegName(c.spReg)))
	}
	k := c.key(c.next)
	if k == c.curKey && c.next.Trust != TrustContext {
		return stop(fmt.Errorf("frame %d: %w", c.depth, ErrNoProgress))
	}
	if k == c.checkpoint {
		return stop(fmt.Errorf("frame %d: %w at pc %#x", c.depth, ErrCycle, k[0]))
	}
	if err := c.checkDirection(); err != nil {
		return stop(err)
	}
	if kind == FrameThreadEntry {
		if cc, ok := c.as.(CodeChecker); ok && !cc.IsCode(pc) {
			// What lies above a thread's entry is not code: the
			// new thread's empty stack, not a caller.
			return stop(nil)
		}
	}
	c.cur, c.next = c.next, c.cur
	c.curKey = k
	c.depth++
	if c.depth == c.nextCheckpoint {
		c.checkpoint = k
		c.nextCheckpoint *= 2
	}
	c.proc = nil
	return true, nil
}

// kind classifies the current frame (FrameNormal without a Classifier).
func (c *Cursor) kind() FrameKind {
	if c.opts.Classify == nil {
		return FrameNormal
	}
	return c.opts.Classify(c.cur.LookupPC(c.pcReg), c.cur.ExactPC)
}

// stepNext steps from cur into next, keeping the result for Step.
func (c *Cursor) stepNext() {
	c.next.Reset()
	c.res, c.stepErr = c.safeStep()
}

// checkDirection stops a caller whose stack pointer lies on the younger
// side of its callee's: older frames sit deeper in a stack that grows
// down (higher addresses) and up (lower addresses) in one that grows up.
// Equal is allowed (frameless functions, IA-64 frames that live in the
// register stack). Across a signal frame the stack may jump anywhere (a
// handler on a sigaltstack, interrupted code on the thread's stack), so
// a frame that is a signal trampoline, or a caller whose registers come
// from a saved context, is not checked: libunwind and gdb
// (UNWIND_INNER_ID only between two normal frames) do the same.
func (c *Cursor) checkDirection() error {
	if c.cur.Signal || c.next.Trust == TrustContext {
		return nil
	}
	callee, _ := c.cur.Get(c.spReg)
	caller, _ := c.next.Get(c.spReg)
	if caller == callee || (caller > callee) != c.growsUp {
		return nil
	}
	return fmt.Errorf("frame %d: %w: caller's %s %#x, this frame's %#x",
		c.depth, ErrInnerFrame, c.arch.RegName(c.spReg), caller, callee)
}

// safeStep runs the arch stepper and turns a panic (a bug, or hostile
// input that slipped past a check) into an error: one bad frame must not
// take down a whole report.
func (c *Cursor) safeStep() (res StepResult, err error) {
	defer func() {
		if r := recover(); r != nil {
			mapfault.Reraise(r) // a file changed under the reads: the whole analysis's error
			res, err = StepEnd, fmt.Errorf("frame %d: %w: unwinder panic: %v", c.depth, ErrBadFrame, r)
		}
	}()
	if !c.opts.CatchFaults {
		return c.arch.Step(c.as, c.opts.Cache, c.cur, c.next)
	}
	if fault := mapfault.Catch(func() { res, err = c.arch.Step(c.as, c.opts.Cache, c.cur, c.next) }); fault != nil {
		return StepEnd, fmt.Errorf("frame %d: %w", c.depth, fault)
	}
	return res, err
}

// guard runs f, under mapfault.Catch when the cursor catches faults (see
// Options.CatchFaults), returning the fault as an error.
func (c *Cursor) guard(f func()) error {
	if !c.opts.CatchFaults {
		f()
		return nil
	}
	if fault := mapfault.Catch(f); fault != nil {
		return fmt.Errorf("frame %d: %w", c.depth, fault)
	}
	return nil
}

// Depth is the index of the current frame (0: innermost).
func (c *Cursor) Depth() int { return c.depth }

// Frame returns the current frame. It is owned by the cursor and changes
// on Step; copy what must outlive it.
func (c *Cursor) Frame() *Frame { return c.cur }

// Err is why the last Step stopped the walk, nil if it ended normally.
func (c *Cursor) Err() error { return c.err }

// Truncated reports that the walk stopped at the frame limit.
func (c *Cursor) Truncated() bool { return errors.Is(c.err, ErrMaxFrames) }

// PC returns the current frame's program counter.
func (c *Cursor) PC() uint64 { v, _ := c.cur.Get(c.pcReg); return v }

// SP returns the current frame's stack pointer.
func (c *Cursor) SP() uint64 { v, _ := c.cur.Get(c.spReg); return v }

// Reg returns register r of the current frame.
func (c *Cursor) Reg(r int) (uint64, error) {
	if v, ok := c.cur.Get(r); ok {
		return v, nil
	}
	return 0, fmt.Errorf("%w: %s", ErrNoReg, c.arch.RegName(r))
}

// SetReg would change a register; a cursor over a read-only address space
// refuses with ErrReadOnly.
func (c *Cursor) SetReg(r int, v uint64) error {
	if _, ok := c.as.(Writer); !ok {
		return ErrReadOnly
	}
	return fmt.Errorf("set %s: %w", c.arch.RegName(r), errors.ErrUnsupported)
}

// Resume would continue execution in the current frame; on a core that is
// ErrReadOnly.
func (c *Cursor) Resume() error {
	return ErrReadOnly
}

// SaveLoc says where the current frame's register r is saved.
func (c *Cursor) SaveLoc(r int) (SaveLoc, error) {
	if r < 0 || r >= len(c.cur.Locs) {
		return SaveLoc{}, fmt.Errorf("%w: register %d", ErrNoReg, r)
	}
	return c.cur.Locs[r], nil
}

// IsSignalFrame reports whether the current frame is a signal frame (the
// trampoline through which a signal handler returns).
func (c *Cursor) IsSignalFrame() bool {
	if c.cur.Signal {
		return true
	}
	if c.marksSignal && !c.done {
		// The step marks the frame; Step uses it instead of stepping again.
		if !c.stepped {
			c.stepNext()
			c.stepped = true
		}
		return c.cur.Signal
	}
	var signal bool
	if err := c.guard(func() { signal = c.arch.IsSignalFrame(c.as, c.opts.Cache, c.cur) }); err != nil {
		c.res, c.stepErr, c.stepped = StepEnd, err, true // Step returns it
		return false
	}
	if signal {
		c.cur.Signal = true
	}
	return c.cur.Signal
}

// LookupPC is the address to symbolize the current frame with.
func (c *Cursor) LookupPC() uint64 { return c.cur.LookupPC(c.pcReg) }

// ProcInfo returns the procedure covering the current frame's PC.
func (c *Cursor) ProcInfo() (*ProcInfo, error) {
	if c.proc != nil {
		return c.proc, nil
	}
	var pi *ProcInfo
	var err error
	if fault := c.guard(func() { pi, err = c.opts.Cache.FindProcInfo(c.as, c.LookupPC()) }); fault != nil {
		return nil, fault
	}
	if err != nil {
		return nil, err
	}
	c.proc = pi
	return pi, nil
}

// ProcName returns the current frame's procedure name and the offset of
// the PC in it.
func (c *Cursor) ProcName() (string, uint64, error) {
	var name string
	var off uint64
	var err error
	if fault := c.guard(func() { name, off, err = c.as.ProcName(c.LookupPC()) }); fault != nil {
		return "", 0, fault
	}
	if err != nil {
		return "", 0, err
	}
	if !c.cur.ExactPC {
		off++
	}
	return name, off, nil
}
