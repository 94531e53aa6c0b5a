package unwind

import (
	"errors"
	"fmt"
)

// The replay of a DYNAMIC procedure up to a target instruction: which
// operations have taken effect, labelled states, where an ALIAS leads.
// It is the same on every architecture; what an operation does to the
// registers, what an instruction index counts and whether a qualifying
// predicate holds are the architecture's (DynArch).

// ErrDynOp: a registered operation that cannot apply (an invalid
// register, an unknown label, an alias of address 0, an unknown tag).
var ErrDynOp = errors.New("invalid dynamic unwind operation")

// Bounds on what one procedure's operations may make a replay keep or
// follow: hostile memory must not make a lookup grow or loop.
const (
	MaxDynLabels  = 64 // labelled states of one procedure
	MaxAliasDepth = 4  // chained ALIAS operations (which may loop)
)

// DynArch is an architecture's side of ReplayDynamic, for its unwind
// state S and its labelled-state snapshot L.
type DynArch[S, L any] interface {
	// Region is called as the replay reaches each region, in order,
	// before the region's operations: every region up to the one that
	// holds the target, or up to the first one that starts after the
	// target (IA-64 closes the previous region and pushes a prologue
	// state, as a region header does).
	Region(s *S, span RegionSpan)
	// Predicate reports whether an operation qualified by predicate qp
	// (not QPTrue) applies.
	Predicate(s *S, qp int8) (bool, error)
	// Apply applies a SAVE_REG, SPILL_FP_REL, SPILL_SP_REL, ADD or
	// POP_FRAMES operation (or rejects an unknown tag) that has taken
	// effect; when is the procedure's instruction it took effect after,
	// clipped to its region.
	Apply(s *S, op DynOp, when int64) error
	// Label is a snapshot of s for LABEL_STATE that later changes to s
	// leave alone; CopyLabel makes it current again (COPY_STATE).
	Label(s *S) L
	CopyLabel(s *S, l L)
	// InsnBytes is the byte offset of instruction index n from the start
	// of a run of code.
	InsnBytes(n int64) uint64
}

// PlainDynState supplies the DynArch methods of an architecture whose
// state is a plain value without predicates or region structure: regions
// change nothing, qualifying predicates are ignored, a label is a copy of
// the state. Embed it and add Apply and InsnBytes.
type PlainDynState[S any] struct{}

func (PlainDynState[S]) Region(*S, RegionSpan)            {}
func (PlainDynState[S]) Predicate(*S, int8) (bool, error) { return true, nil }
func (PlainDynState[S]) Label(s *S) S                     { return *s }
func (PlainDynState[S]) CopyLabel(s *S, l S)              { *s = l }

// ReplayDynamic applies to s the operations of d's DYNAMIC procedure, a
// procedure procLen instructions long, that have taken effect at its
// instruction target. The regions are laid out by Spans and walked in
// order; in the region holding the target, an operation at When = w has
// taken effect for targets after the region's instruction w (w beyond the
// region: its last instruction; w ≤ -1: from its first), and a region
// the target has passed has applied all its operations. STOP ends a
// region's operations; an operation whose qualifying predicate is false
// is skipped, as libunwind's desc_is_active does.
//
// Errors are the architecture's or wrap ErrDynOp; the caller says which
// procedure and address they concern.
//
// A non-zero alias says that the target unwinds as the code at that
// address instead (and s is partial): the ALIAS operation's address plus
// the target's position in the ALIAS's region, clipped to the region's
// length, in bytes. That is libunwind's rule as its desc_alias states it
// (src/ia64/Gparser.c: "the region behaves exactly like the first RLEN
// instructions at the aliased IP"). Its code takes MIN(when_target, rlen)
// with when_target counted from the procedure's start, which is the same
// for the first region only; the position in the region is what the
// stated rule means for the others.
func ReplayDynamic[S, L any, A DynArch[S, L]](arch A, d *DynInfo, s *S, target, procLen int64) (alias uint64, err error) {
	if d.Proc == nil {
		return 0, fmt.Errorf("no procedure info: %w", ErrNoInfo)
	}
	var labels map[uint64]L
	for _, span := range d.Proc.Spans(procLen) {
		arch.Region(s, span)
		if target < span.Start {
			break
		}
		for _, op := range span.Region.Ops {
			if op.Tag == DynStop {
				break
			}
			when := span.Start + min(max(int64(op.When), -1), span.Len-1)
			if target <= when {
				continue // sorted operations stop here; unsorted ones are skipped alike
			}
			if op.QP != QPTrue {
				ok, err := arch.Predicate(s, op.QP)
				if err != nil {
					return 0, err
				}
				if !ok {
					continue
				}
			}
			switch op.Tag {
			case DynAlias:
				if op.Val == 0 {
					return 0, fmt.Errorf("%w: %v: alias of address 0", ErrDynOp, op)
				}
				a := op.Val + arch.InsnBytes(min(max(target-span.Start, 0), span.Len))
				if a < op.Val {
					// Wrapped around: no address, and 0 would read as none.
					return 0, fmt.Errorf("%w: %v: alias beyond the address space", ErrDynOp, op)
				}
				return a, nil
			case DynLabelState:
				if labels == nil {
					labels = map[uint64]L{}
				}
				if _, ok := labels[op.Val]; !ok && len(labels) >= MaxDynLabels {
					return 0, fmt.Errorf("%w: more than %d labelled states", ErrDynOp, MaxDynLabels)
				}
				labels[op.Val] = arch.Label(s)
			case DynCopyState:
				l, ok := labels[op.Val]
				if !ok {
					return 0, fmt.Errorf("%w: copy_state of unknown label %d", ErrDynOp, op.Val)
				}
				arch.CopyLabel(s, l)
			default:
				if err := arch.Apply(s, op, when); err != nil {
					return 0, err
				}
			}
		}
		if target < span.Start+span.Len {
			break // the target is in this region
		}
	}
	return 0, nil
}

// FollowAlias finds the unwind info of an ALIAS's target address, found
// at address from by a lookup that has followed depth aliases already.
func FollowAlias(as AddrSpace, cache *Cache, from, alias uint64, depth int) (*ProcInfo, error) {
	if depth >= MaxAliasDepth {
		return nil, fmt.Errorf("%w: alias chain longer than %d at %#x", ErrDynOp, MaxAliasDepth, from)
	}
	pi, err := cache.FindProcInfo(as, alias)
	if err != nil {
		return nil, fmt.Errorf("alias %#x of %#x: %w", alias, from, err)
	}
	return pi, nil
}
