package unwind

import (
	"fmt"
	"sort"
)

// Dynamic unwind info, after libunwind-dynamic(3): a JIT compiler describes
// the code it generates with procedures (unw_dyn_info_t) that it registers
// in a list the unwinder can find (_U_dyn_info_list). A procedure's info
// comes in one of three formats:
//
//   - DYNAMIC: a name, a personality handler, flags and a chain of regions,
//     each a run of instructions with operations (save a register, spill it
//     relative to the stack or frame pointer, adjust a register, pop the
//     frame, label or copy a state, alias another procedure).
//   - TABLE and REMOTE_TABLE: the architecture's ordinary unwind table for
//     the generated code, in target memory, relative to a segment base.
//
// dynamic_replay.go replays a DYNAMIC procedure's regions and operations
// up to an instruction, the same way for every architecture.
//
// What the architecture-neutral words mean — what an instruction index
// counts, which registers operations name, how ADD and POP_FRAMES apply,
// what a TABLE holds — is each architecture's, documented where it is
// applied: x86_64/dynamic.go (byte offsets, DWARF registers),
// ia64/dynamic.go (slot indexes, libunwind's UNW_IA64_* registers, the
// operations as unwind descriptors) and pa64/dynamic_doc.go (4-byte
// instructions, gr0..gr31).

// DynOpTag is an operation's kind (unw_dyn_operation_t).
type DynOpTag int8

const (
	DynStop       DynOpTag = iota // end of the region's operations
	DynSaveReg                    // register saved in another register
	DynSpillFPRel                 // register spilled relative to the frame pointer
	DynSpillSPRel                 // register spilled relative to the stack pointer
	DynAdd                        // constant added to a register
	DynPopFrames                  // the frame (or n nested ones) is popped
	DynLabelState                 // name the current state
	DynCopyState                  // make a named state current
	DynAlias                      // unwind as the code at another address
)

var dynOpNames = [...]string{"stop", "save_reg", "spill_fp_rel", "spill_sp_rel", "add", "pop_frames", "label_state", "copy_state", "alias"}

func (t DynOpTag) String() string {
	if t >= 0 && int(t) < len(dynOpNames) {
		return dynOpNames[t]
	}
	return fmt.Sprintf("DynOpTag(%d)", int8(t))
}

// QPTrue is the qualifying predicate that is always true (_U_QP_TRUE: p0
// on IA-64; ignored elsewhere).
const QPTrue = 0

// DynOp is one operation (unw_dyn_op_t). When is the instruction index in
// the region after which it takes effect; -1 means from the region's
// start (label and copy state, stop).
type DynOp struct {
	Tag  DynOpTag
	QP   int8
	Reg  int16
	When int32
	Val  uint64
}

func (op DynOp) String() string {
	return fmt.Sprintf("%v(qp=%d when=%d reg=%d val=%#x)", op.Tag, op.QP, op.When, op.Reg, op.Val)
}

// Operation builders, as libunwind's _U_dyn_op_* macros.

func OpSaveReg(qp int8, when int32, reg, dst int16) DynOp {
	return DynOp{Tag: DynSaveReg, QP: qp, When: when, Reg: reg, Val: uint64(dst)}
}
func OpSpillFPRel(qp int8, when int32, reg int16, off int64) DynOp {
	return DynOp{Tag: DynSpillFPRel, QP: qp, When: when, Reg: reg, Val: uint64(off)}
}
func OpSpillSPRel(qp int8, when int32, reg int16, off int64) DynOp {
	return DynOp{Tag: DynSpillSPRel, QP: qp, When: when, Reg: reg, Val: uint64(off)}
}
func OpAdd(qp int8, when int32, reg int16, val int64) DynOp {
	return DynOp{Tag: DynAdd, QP: qp, When: when, Reg: reg, Val: uint64(val)}
}
func OpPopFrames(qp int8, when int32, n uint64) DynOp {
	return DynOp{Tag: DynPopFrames, QP: qp, When: when, Val: n}
}
func OpLabelState(label uint64) DynOp {
	return DynOp{Tag: DynLabelState, QP: QPTrue, When: -1, Val: label}
}
func OpCopyState(label uint64) DynOp {
	return DynOp{Tag: DynCopyState, QP: QPTrue, When: -1, Val: label}
}
func OpAlias(qp int8, when int32, addr uint64) DynOp {
	return DynOp{Tag: DynAlias, QP: qp, When: when, Val: addr}
}
func OpStop() DynOp { return DynOp{Tag: DynStop, QP: QPTrue, When: -1} }

// DynRegion is a run of instructions and its operations
// (unw_dyn_region_info_t). InsnCount ≥ 0 is the region's length; a
// negative count -N means the procedure's last N instructions. A region
// chain may be shared by several procedures.
type DynRegion struct {
	InsnCount int32
	Ops       []DynOp
}

// RegionInfoSize is the size in bytes of an unw_dyn_region_info_t holding
// opCount operations for a target with the given pointer size
// (_U_dyn_region_info_size): next, insn_count, op_count, then the ops.
func RegionInfoSize(opCount, ptrSize int) int {
	return regionHeaderSize(ptrSize) + opCount*dynOpSize(ptrSize)
}

// regionHeaderSize is offsetof(unw_dyn_region_info_t, op).
func regionHeaderSize(ptrSize int) int { return ptrSize + 8 }

// dynOpSize is sizeof(unw_dyn_op_t): tag, qp, reg, when, then a word.
func dynOpSize(ptrSize int) int { return 8 + ptrSize }

// OpsSorted reports whether the operations are in order of When.
func (r *DynRegion) OpsSorted() bool {
	for i := 1; i < len(r.Ops); i++ {
		if r.Ops[i].When < r.Ops[i-1].When {
			return false
		}
	}
	return true
}

// SortOps puts the operations in order of When, keeping the given order
// among operations of one instruction (a push's ADD before its spill).
// Generators need not sort: the check is O(n), the sort runs only for an
// unsorted region. It reports whether a sort was needed.
func (r *DynRegion) SortOps() bool {
	if r.OpsSorted() {
		return false
	}
	sort.SliceStable(r.Ops, func(i, j int) bool { return r.Ops[i].When < r.Ops[j].When })
	return true
}

// RegionSpan is where a region lies in its procedure, in instructions.
type RegionSpan struct {
	Start, Len int64
	Region     *DynRegion
}

// maxDynRegions bounds a procedure's region chain: hostile memory must not
// make a lookup walk forever.
const maxDynRegions = 1 << 12

// Spans lays the regions out over a procedure of procLen instructions:
// each non-negative region follows the previous one; a region of -N
// instructions covers the procedure's last N. Regions are clipped to the
// procedure.
func (p *DynProcInfo) Spans(procLen int64) []RegionSpan {
	out := make([]RegionSpan, 0, min(len(p.Regions), maxDynRegions))
	var at int64
	for i, r := range p.Regions {
		if i >= maxDynRegions {
			break
		}
		s := RegionSpan{Start: at, Len: int64(r.InsnCount), Region: r}
		if r.InsnCount < 0 {
			s.Len = -int64(r.InsnCount)
			s.Start = max(procLen-s.Len, 0)
		}
		if s.Start+s.Len > procLen {
			s.Len = max(procLen-s.Start, 0)
		}
		at = s.Start + s.Len
		out = append(out, s)
	}
	return out
}

// DynFormat is a procedure's info format (unw_dyn_info_format_t).
type DynFormat int32

const (
	DynFormatDynamic     DynFormat = 0
	DynFormatTable       DynFormat = 1
	DynFormatRemoteTable DynFormat = 2
)

func (f DynFormat) String() string {
	switch f {
	case DynFormatDynamic:
		return "dynamic"
	case DynFormatTable:
		return "table"
	case DynFormatRemoteTable:
		return "remote_table"
	}
	return fmt.Sprintf("DynFormat(%d)", int32(f))
}

// ProcFormat is the ProcInfo format of this dynamic format.
func (f DynFormat) ProcFormat() ProcFormat {
	switch f {
	case DynFormatDynamic:
		return FormatDynamic
	case DynFormatTable:
		return FormatTable
	case DynFormatRemoteTable:
		return FormatRemoteTable
	}
	return FormatNone
}

// DynProcInfo is the DYNAMIC format's description (unw_dyn_proc_info_t).
type DynProcInfo struct {
	Name     string // read from NameAddr
	NameAddr uint64
	Handler  uint64 // personality routine
	Flags    uint32
	Regions  []*DynRegion
}

// DynTableInfo is the TABLE and REMOTE_TABLE formats' description
// (unw_dyn_table_info_t, unw_dyn_remote_table_info_t): an unwind table in
// the target's memory. TableLen counts target words.
type DynTableInfo struct {
	Name      string // the table's name (e.g. the generated module's)
	NameAddr  uint64
	Segbase   uint64
	TableLen  uint64
	TableData uint64 // target address of the table
}

// DynInfo is one registered procedure or table (unw_dyn_info_t), covering
// [StartIP, EndIP).
type DynInfo struct {
	StartIP, EndIP uint64
	GP             uint64
	Format         DynFormat
	LoadOffset     uint64
	Proc           *DynProcInfo  // DynFormatDynamic
	Table          *DynTableInfo // DynFormatTable, DynFormatRemoteTable
	// Addr is where the entry was read from in the target (0 when it was
	// registered in-process).
	Addr uint64
	// Err says why the entry's unwind information is unusable (a corrupt
	// region chain read from a target); its range and name still hold.
	Err error

	// in-process registration links
	list       *DynList
	next, prev *DynInfo
}

// Name is the registered name: the procedure's, or the table's.
func (d *DynInfo) Name() string {
	switch {
	case d.Proc != nil:
		return d.Proc.Name
	case d.Table != nil:
		return d.Table.Name
	}
	return ""
}

// Covers reports whether ip lies in [StartIP, EndIP).
func (d *DynInfo) Covers(ip uint64) bool { return ip >= d.StartIP && ip < d.EndIP }

// ProcInfo is the entry as the engine's ProcInfo; Info is d.
func (d *DynInfo) ProcInfo() *ProcInfo {
	pi := &ProcInfo{StartIP: d.StartIP, EndIP: d.EndIP, GP: d.GP, Format: d.Format.ProcFormat(), Info: d}
	if d.Proc != nil {
		pi.Handler = d.Proc.Handler
	}
	return pi
}
