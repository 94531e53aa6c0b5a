package pa64

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/coreunwind/coreunwind/pa64/unwtab"
	"github.com/coreunwind/coreunwind/unwind"
)

// The HP unwind library interface of the PA64 runtime architecture
// specification, in Go form over any unwind.AddrSpace. HP's C library
// walks a stack with two records: the current frame's state and the
// previous (calling) frame's, filled by U_get_previous_frame and moved
// back by U_copy_frame_info. Here the stepping is the same Step the
// unwind.Cursor uses, so the library and the reports agree frame for
// frame.

// CurrentFrame is HP's current_frame_def (the state vector of one frame).
type CurrentFrame struct {
	FrameSize uint64 // cur_frsize: the frame's size in bytes
	SP        uint64 // cur_sp
	RLS       uint64 // cur_rls: space of the return link (0 on Linux)
	RLO       uint64 // cur_rlo: offset of the pc (return link) of this frame
	DP        uint64 // cur_dp: global data pointer (r27)
	TopRP     uint64 // toprp: rp of the innermost frame
	TopMRP    uint64 // topmrp: r31 of the innermost frame
	TopSR0    uint64
	TopSR4    uint64
	R3        uint64
	R19       uint64 // cur_r19: linkage-table pointer of PIC code
	R4        uint64

	frame *unwind.Frame // every register the unwinder knows
}

// PreviousFrame is HP's previous_frame_def: the caller of a CurrentFrame,
// with the unwind descriptor of the caller's procedure.
type PreviousFrame struct {
	FrameSize        uint64
	SP               uint64
	RLS, RLO         uint64
	DP               uint64
	UDescr1, UDescr2 uint32 // the caller's descriptor words
	UStart, UEnd     uint64 // its region (run-time addresses, end inclusive)
	UWIndex          int    // its index in the module's table, -1 if none
	R19, R3, R4      uint64

	frame *unwind.Frame
}

// Unwinder is the library's context: the address space and the arch.
type Unwinder struct {
	AS    unwind.AddrSpace
	Arch  Arch
	Cache *unwind.Cache
}

// ErrStackUnwound is returned by NextFrame at the outermost frame.
var ErrStackUnwound = errors.New("stack unwound")

// InitFrame is how a walk starts: the state vector of frame 0 from a
// frame built from a core (FrameFromThread) or a signal context.
func (u *Unwinder) InitFrame(f *unwind.Frame) *CurrentFrame {
	c := &CurrentFrame{frame: unwind.NewFrame(NumRegs)}
	c.frame.CopyFrom(f)
	c.frame.ExactPC = true // frame 0 is where the thread stopped
	c.fill()
	c.TopRP, _ = f.Get(RP)
	c.TopMRP, _ = f.Get(R31)
	return c
}

func (c *CurrentFrame) fill() {
	f := c.frame
	c.SP, _ = f.Get(SP)
	c.RLO, _ = f.Get(PC)
	c.DP, _ = f.Get(DP)
	c.R3, _ = f.Get(R3)
	c.R4, _ = f.Get(4)
	c.R19, _ = f.Get(R19)
}

// UnwindTable is U_get_unwind_table / U_get_shLib_unw_tbl: the table of
// the module holding pc, through the address space's lookup.
func (u *Unwinder) UnwindEntry(pc uint64) (*unwtab.Entry, *unwind.ProcInfo, error) {
	pi, err := u.Cache.FindProcInfo(u.AS, pc)
	if err != nil {
		return nil, nil, err
	}
	e, ok := pi.Info.(*unwtab.Entry)
	if !ok {
		return nil, pi, fmt.Errorf("pc %#x: %w", pc, errNoEntry)
	}
	return e, pi, nil
}

// ShLibTextAddr is U_get_shLib_text_addr: the load bias of the module
// holding pc (what its link-time addresses are offset by).
func (u *Unwinder) ShLibTextAddr(pc uint64) (uint64, error) {
	_, pi, err := u.UnwindEntry(pc)
	if pi == nil {
		return 0, err
	}
	return pi.Bias, nil
}

// IsMillicode is U_is_millicode: whether pc is in a millicode routine.
func (u *Unwinder) IsMillicode(pc uint64) bool {
	e, _, err := u.UnwindEntry(pc)
	return err == nil && e.Desc.Millicode()
}

// PreviousFrame is U_get_previous_frame: the caller of cur.
func (u *Unwinder) PreviousFrame(cur *CurrentFrame, prev *PreviousFrame) error {
	next := unwind.NewFrame(NumRegs)
	res, err := u.Arch.Step(u.AS, u.Cache, cur.frame, next)
	if err != nil {
		return err
	}
	if res == unwind.StepEnd {
		return ErrStackUnwound
	}
	*prev = PreviousFrame{frame: next, UWIndex: -1}
	prev.SP, _ = next.Get(SP)
	prev.RLO, _ = next.Get(PC)
	prev.DP, _ = next.Get(DP)
	prev.R3, _ = next.Get(R3)
	prev.R4, _ = next.Get(4)
	prev.R19, _ = next.Get(R19)
	if cur.SP >= prev.SP {
		cur.FrameSize = cur.SP - prev.SP
	}
	if e, pi, err := u.UnwindEntry(next.LookupPC(PC)); err == nil {
		prev.UDescr1, prev.UDescr2 = e.Desc.W1, e.Desc.W2
		prev.UStart, prev.UEnd = pi.StartIP, pi.EndIP-4
		prev.FrameSize = e.Desc.FrameBytes()
		if t, err := TableOfEntry(e); err == nil {
			prev.UWIndex = t
		}
	}
	return nil
}

// TableOfEntry returns e's index in its table (HP's uw_index).
func TableOfEntry(e *unwtab.Entry) (int, error) {
	var found int = -1
	tables.Range(func(_, v any) bool {
		t, _ := v.(*unwtab.Table)
		if t == nil {
			return true
		}
		for i := range t.Entries {
			if &t.Entries[i] == e {
				found = i
				return false
			}
		}
		return true
	})
	if found < 0 {
		return -1, errNoEntry
	}
	return found, nil
}

// CopyFrameInfo is U_copy_frame_info: the previous frame becomes the
// current one (U_update_state_vector is the same step for the state
// vector).
func CopyFrameInfo(cur *CurrentFrame, prev *PreviousFrame) {
	cur.frame = prev.frame
	cur.FrameSize = prev.FrameSize
	cur.fill()
}

// UpdateStateVector is U_update_state_vector.
func UpdateStateVector(cur *CurrentFrame, prev *PreviousFrame) { CopyFrameInfo(cur, prev) }

// IsStackUnwound reports whether cur is the outermost frame: no return
// link, or no caller.
func (u *Unwinder) IsStackUnwound(cur *CurrentFrame) bool {
	if cur.RLO == 0 {
		return true
	}
	var p PreviousFrame
	return u.PreviousFrame(cur, &p) != nil
}

// NextFrame steps cur to its caller (get previous frame, then copy).
func (u *Unwinder) NextFrame(cur *CurrentFrame) error {
	var p PreviousFrame
	if err := u.PreviousFrame(cur, &p); err != nil {
		return err
	}
	CopyFrameInfo(cur, &p)
	return nil
}

// Resume would continue execution in the current frame: on a core there
// is nothing to resume.
func (u *Unwinder) Resume(*CurrentFrame) error { return unwind.ErrReadOnly }

// StackTrace is U_STACK_TRACE: one line per frame,
// "( 0) 0x000031f4 foo + 0x14 [./a.out]", from cur to the outermost frame
// (at most max frames).
func (u *Unwinder) StackTrace(w io.Writer, cur *CurrentFrame, max int) error {
	digits := 8
	if u.Arch.wide {
		digits = 16
	}
	for i := 0; i < max; i++ {
		fmt.Fprintf(w, "(%2d) 0x%0*x", i, digits, cur.RLO)
		lookup := cur.frame.LookupPC(PC)
		if name, off, err := u.AS.ProcName(lookup); err == nil {
			if !cur.frame.ExactPC {
				off++
			}
			fmt.Fprintf(w, " %s + 0x%x", name, off)
		}
		if _, pi, _ := u.UnwindEntry(lookup); pi != nil && pi.Module != "" {
			fmt.Fprintf(w, " [%s]", moduleName(pi.Module))
		}
		fmt.Fprintln(w)
		if err := u.NextFrame(cur); err != nil {
			if errors.Is(err, ErrStackUnwound) {
				return nil
			}
			return err
		}
	}
	return nil
}

// TrapStackTrace is U_TRAP_STACK_TRACE: the trace of a trapped context,
// headed by the trap's pc.
func (u *Unwinder) TrapStackTrace(w io.Writer, cur *CurrentFrame, max int) error {
	fmt.Fprintf(w, "---- trap at 0x%x ----\n", cur.RLO)
	return u.StackTrace(w, cur, max)
}

func moduleName(p string) string {
	if filepath.IsAbs(p) || len(p) > 1 && p[0] == '.' {
		return p
	}
	return "./" + p
}
