package unwind

// Trust says how a frame's state was found, strongest first. The names are
// the report schema's.
type Trust uint8

const (
	TrustNone         Trust = iota
	TrustContext            // registers from the core: frame 0, signal contexts
	TrustCFI                // DWARF call-frame information
	TrustUnwindTable        // IA-64 or PA-RISC unwind tables
	TrustDynamic            // dynamic unwind info registered at run time
	TrustFramePointer       // frame-pointer chain
	TrustScan               // stack scanning heuristics
)

var trustNames = [...]string{"none", "context", "cfi", "unwind_table", "dynamic", "frame_pointer", "scan"}

func (t Trust) String() string {
	if int(t) < len(trustNames) {
		return trustNames[t]
	}
	return "Trust(?)"
}

// LocKind says where a register's value in a frame is kept.
type LocKind uint8

const (
	LocUndefined LocKind = iota // not recoverable
	LocSame                     // unchanged from the callee (still in the register)
	LocMem                      // saved in target memory at Addr
	LocReg                      // saved in another register, Reg
	LocValue                    // computed (e.g. the CFA); no save slot
)

var locNames = [...]string{"undefined", "same", "memory", "register", "value"}

func (k LocKind) String() string {
	if int(k) < len(locNames) {
		return locNames[k]
	}
	return "LocKind(?)"
}

// SaveLoc is where a frame's register value lives, as libunwind's
// unw_save_loc_t.
type SaveLoc struct {
	Kind LocKind
	Addr uint64 // LocMem
	Reg  int    // LocReg
}

// Frame is the register state of one frame. Register numbers are the
// architecture's (DWARF numbering where the ABI has one).
type Frame struct {
	Regs  []uint64
	Valid []bool
	Locs  []SaveLoc

	// CFA is the canonical frame address, when the method that found the
	// frame has one.
	CFA    uint64
	HasCFA bool

	// Trust says how this frame's registers were recovered.
	Trust Trust
	// Signal reports that this frame is a signal (interrupt) frame: the
	// trampoline the kernel built. Its caller's PC is exact.
	Signal bool
	// ExactPC reports that the PC is the address of the instruction that
	// was executing (frame 0 and frames interrupted by a signal), not a
	// return address. Lookups use PC-1 for return addresses.
	ExactPC bool

	// scratch is Scratch's buffer.
	scratch [ScratchSize]byte
}

// ScratchSize is the size of a frame's scratch buffer.
const ScratchSize = 64

// Scratch is a buffer for the arch stepper that fills this frame, for
// reads of target memory during Step: a buffer local to the stepper
// escapes to the heap through AddrSpace.ReadMem (an interface call), one
// allocation per read. Its content is undefined between steps; Reset and
// CopyFrom leave it alone.
func (f *Frame) Scratch() []byte { return f.scratch[:] }

// NewFrame returns a frame with room for n registers, none valid.
func NewFrame(n int) *Frame {
	return &Frame{Regs: make([]uint64, n), Valid: make([]bool, n), Locs: make([]SaveLoc, n)}
}

// Reset marks every register unknown and clears the frame facts.
func (f *Frame) Reset() {
	clear(f.Regs)
	clear(f.Valid)
	clear(f.Locs)
	f.CFA, f.HasCFA, f.Trust, f.Signal, f.ExactPC = 0, false, TrustNone, false, false
}

// Set records a register's value and where it came from.
func (f *Frame) Set(r int, v uint64, loc SaveLoc) {
	if r < 0 || r >= len(f.Regs) {
		return
	}
	f.Regs[r], f.Valid[r], f.Locs[r] = v, true, loc
}

// Get returns a register's value, ok false when it is unknown.
func (f *Frame) Get(r int) (uint64, bool) {
	if r < 0 || r >= len(f.Regs) || !f.Valid[r] {
		return 0, false
	}
	return f.Regs[r], true
}

// CopyFrom makes f a copy of g (same register count).
func (f *Frame) CopyFrom(g *Frame) {
	copy(f.Regs, g.Regs)
	copy(f.Valid, g.Valid)
	copy(f.Locs, g.Locs)
	f.CFA, f.HasCFA, f.Trust, f.Signal, f.ExactPC = g.CFA, g.HasCFA, g.Trust, g.Signal, g.ExactPC
}

// LookupPC is the address to look up unwind info and symbols with: the PC
// itself for exact PCs, PC-1 for return addresses (the call instruction,
// not what follows it).
func (f *Frame) LookupPC(pcReg int) uint64 {
	pc, _ := f.Get(pcReg)
	if f.ExactPC || pc == 0 {
		return pc
	}
	return pc - 1
}
