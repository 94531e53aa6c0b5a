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
// What the architecture-neutral words mean on each architecture:
//
// x86_64 (package x86_64): an instruction index ("when", a region's
// instruction count) is a byte offset. Operations name DWARF registers
// (rax=0 ... r15=15, rip=16; libunwind's UNW_X86_64_* numbers are the
// same). An operation at when=w takes effect once the instruction at byte
// w has executed, i.e. for instruction addresses after it. The initial
// state is the call's: CFA = rsp+8, return address at CFA-8. ADD on rsp
// moves the stack pointer (push: ADD rsp -8); SAVE_REG rsp→reg makes reg
// the frame's base (mov %rsp,%rbp); SAVE_REG r→d otherwise says the
// caller's r is in d; SPILL_SP_REL addresses are relative to rsp as it is
// after the operation's instruction, SPILL_FP_REL to the frame's rbp;
// POP_FRAMES (n ≥ 1) returns to the entry state (the epilogue has undone
// the frame). Qualifying predicates do not exist and are ignored. TABLE
// and REMOTE_TABLE data is an .eh_frame_hdr binary-search table (pairs of
// int32 start-IP and FDE offsets from the segment base, table_len in
// 8-byte words) whose FDEs and CIEs live in target memory.
//
// ia64: an instruction index is a slot index, three slots per 16-byte
// bundle (slot = 3*(bundle offset/16) + slot number). Operations name
// libunwind's UNW_IA64_* registers (gr, fr, br, ar.*, pr, psp); qualifying
// predicates are predicate registers (p0 always true). ADD on sp is the
// memory-stack frame size (mem_stack_f/v); SPILL_SP_REL is sp-relative,
// SPILL_FP_REL psp-relative (psprel: psp+16-offset per the IA-64 unwind
// conventions); POP_FRAMES is an epilogue with ecount = n-1. TABLE data is
// the .IA_64.unwind table: triples of words (start, end, info offset)
// relative to the segment base, table_len in words.
//
// hppa / hppa64: an instruction index counts 4-byte instructions. Operations
// name the general registers gr0..gr31 (sp is gr30, rp gr2); qualifying
// predicates are ignored. ADD on sp is the frame allocation (the stack
// grows upward on PA-RISC, so the value is positive for a prologue);
// POP_FRAMES returns to the entry state. TABLE data is the .PARISC.unwind
// table: 16-byte descriptors (region start, region end, two flag words).
//
// Those two arches apply the operations in their own packages.

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
// the region at which it takes effect; -1 means the region's start (label
// and copy state, stop).
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
