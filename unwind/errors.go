package unwind

import "errors"

// Errors returned by accessors, cursors and arch steppers. Wrap them with
// context (fmt.Errorf("...: %w", err)); test with errors.Is.
var (
	// ErrNoInfo: no unwind information covers the address.
	ErrNoInfo = errors.New("no unwind info")
	// ErrReadOnly: the address space cannot be written or resumed (a core).
	ErrReadOnly = errors.New("address space is read-only")
	// ErrBadFrame: the unwind information led to an impossible frame.
	ErrBadFrame = errors.New("bad frame")
	// ErrUnavailable: memory that the target did not preserve (a core's
	// segment with p_filesz < p_memsz and no file to fill it from).
	ErrUnavailable = errors.New("memory unavailable")
	// ErrNoReg: a register whose value is not known in this frame.
	ErrNoReg = errors.New("register value unknown")
	// ErrCycle: the unwind returned to a frame already seen.
	ErrCycle = errors.New("frame cycle")
	// ErrNoProgress: the caller frame is identical to the current one.
	ErrNoProgress = errors.New("frame did not move")
	// ErrInnerFrame: the caller's stack pointer is on the younger side of
	// its callee's (the stack went the wrong way), outside a signal frame.
	ErrInnerFrame = errors.New("previous frame inner to this frame (corrupt stack?)")
	// ErrMaxFrames: stopped by the frame limit.
	ErrMaxFrames = errors.New("frame limit reached")
	// ErrNoArch: no Arch is registered for the target machine.
	ErrNoArch = errors.New("unsupported architecture")
)
