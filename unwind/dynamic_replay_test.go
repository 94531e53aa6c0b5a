package unwind

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// traceState records what the replay did, in order: the regions it
// reached ("R start+len") and the operations it applied ("reg@when"); a
// copied state's trace is the label's. regions lists every region
// reached, copies or not.
type traceState struct{ trace, regions string }

// traceArch is a fake architecture: 4-byte instructions (so a byte
// offset is never the instruction index), predicates p1..p7 true when set
// in pr, p8 and above invalid.
type traceArch struct{ pr uint8 }

func (traceArch) Region(s *traceState, span RegionSpan) {
	s.trace += fmt.Sprintf("R%d+%d ", span.Start, span.Len)
	s.regions += fmt.Sprintf("R%d+%d ", span.Start, span.Len)
}
func (a traceArch) Predicate(_ *traceState, qp int8) (bool, error) {
	if qp < 0 || qp > 7 {
		return false, fmt.Errorf("%w: p%d", ErrDynOp, qp)
	}
	return a.pr&(1<<qp) != 0, nil
}
func (traceArch) Apply(s *traceState, op DynOp, when int64) error {
	if op.Tag != DynAdd {
		return fmt.Errorf("%w: %v", ErrDynOp, op)
	}
	s.trace += fmt.Sprintf("r%d@%d ", op.Reg, when)
	return nil
}
func (traceArch) Label(s *traceState) traceState        { return *s }
func (traceArch) CopyLabel(s *traceState, l traceState) { s.trace = l.trace + "copy " }
func (traceArch) InsnBytes(n int64) uint64              { return 4 * uint64(n) }

func replayTrace(t *testing.T, a traceArch, target, procLen int64, regions ...*DynRegion) (string, uint64, error) {
	t.Helper()
	var s traceState
	alias, err := ReplayDynamic(a, procInfo("p", 0x1000, 0x1000+4*uint64(procLen), regions...), &s, target, procLen)
	return strings.TrimSpace(s.trace), alias, err
}

// An ALIAS in the second of three regions: the target's position is
// counted from the ALIAS's region's start and clipped to its length
// (libunwind's desc_alias). The wrong rules each give a different
// address for one of the targets: the offset from the procedure's start,
// the region offset unclipped, and libunwind's code taken literally
// (MIN(offset from the procedure's start, region length)).
func TestReplayAliasPosition(t *testing.T) {
	const to = 0x10000
	regions := []*DynRegion{
		{InsnCount: 4, Ops: []DynOp{OpAdd(QPTrue, 1, 1, 8)}},
		{InsnCount: 6, Ops: []DynOp{OpAdd(QPTrue, 0, 2, 8), OpAlias(QPTrue, 1, to)}},
		{InsnCount: 10, Ops: []DynOp{OpAdd(QPTrue, 0, 3, 8)}},
	}
	// The addresses other rules would give, for the targets after the
	// ALIAS: each must differ from libunwind's rule somewhere, or this
	// test could not catch it.
	wrong := map[string]func(target int64) uint64{
		"offset from the procedure's start": func(tg int64) uint64 { return to + 4*uint64(tg) },
		"offset in the region, unclipped":   func(tg int64) uint64 { return to + 4*uint64(tg-4) },
		"libunwind's code literally":        func(tg int64) uint64 { return to + 4*uint64(min(tg, 6)) },
	}
	cases := []struct {
		target int64
		trace  string
		alias  uint64
	}{
		{1, "R0+4", 0},
		{5, "R0+4 r1@1 R4+6 r2@4", 0}, // the ALIAS at the region's slot 1 is not in effect yet
		{6, "R0+4 r1@1 R4+6 r2@4", to + 4*2},
		{9, "R0+4 r1@1 R4+6 r2@4", to + 4*5},
		{12, "R0+4 r1@1 R4+6 r2@4", to + 4*6}, // a later region: the ALIAS's region is passed
		{20, "R0+4 r1@1 R4+6 r2@4", to + 4*6}, // the procedure's end
	}
	for name, rule := range wrong {
		differs := false
		for _, c := range cases {
			differs = differs || (c.alias != 0 && rule(c.target) != c.alias)
		}
		if !differs {
			t.Errorf("no target tells the rule %q apart", name)
		}
	}
	for _, c := range cases {
		trace, alias, err := replayTrace(t, traceArch{}, c.target, 20, regions...)
		if err != nil {
			t.Fatalf("target %d: %v", c.target, err)
		}
		if trace != c.trace || alias != c.alias {
			t.Errorf("target %d: trace %q alias %#x, want %q %#x", c.target, trace, alias, c.trace, c.alias)
		}
	}
}

// When an operation takes effect: after instruction When of its region,
// When clipped to the region's last instruction (and -1 and below to
// its first); a passed region applies everything; STOP ends a region's
// operations; regions after the target are not entered; gaps before a
// region counted from the procedure's end.
func TestReplayWhen(t *testing.T) {
	regions := []*DynRegion{
		{InsnCount: 4, Ops: []DynOp{OpAdd(QPTrue, -5, 1, 8), OpAdd(QPTrue, 0, 2, 8), OpAdd(QPTrue, 2, 3, 8), OpAdd(QPTrue, 40, 4, 8)}},
		{InsnCount: 3, Ops: []DynOp{OpAdd(QPTrue, 0, 5, 8), OpStop(), OpAdd(QPTrue, 0, 6, 8)}},
		{InsnCount: -2, Ops: []DynOp{OpAdd(QPTrue, -1, 7, 8)}},
	}
	for _, c := range []struct {
		target int64
		trace  string
	}{
		{0, "R0+4 r1@-1"},
		{1, "R0+4 r1@-1 r2@0"},
		{3, "R0+4 r1@-1 r2@0 r3@2"},
		{4, "R0+4 r1@-1 r2@0 r3@2 r4@3 R4+3"},
		{5, "R0+4 r1@-1 r2@0 r3@2 r4@3 R4+3 r5@4"},
		{8, "R0+4 r1@-1 r2@0 r3@2 r4@3 R4+3 r5@4 R10+2"},       // in the gap
		{10, "R0+4 r1@-1 r2@0 r3@2 r4@3 R4+3 r5@4 R10+2 r7@9"}, // the last region's first instruction
		{12, "R0+4 r1@-1 r2@0 r3@2 r4@3 R4+3 r5@4 R10+2 r7@9"}, // the procedure's end
		{-1, "R0+4"}, // before the procedure: nothing
	} {
		trace, alias, err := replayTrace(t, traceArch{}, c.target, 12, regions...)
		if err != nil || alias != 0 || trace != c.trace {
			t.Errorf("target %d: %q %#x %v, want %q", c.target, trace, alias, err, c.trace)
		}
	}
}

// Qualifying predicates are the architecture's; label and copy state keep
// and restore its snapshot, also across regions.
func TestReplayPredicatesAndLabels(t *testing.T) {
	regions := []*DynRegion{
		{InsnCount: 4, Ops: []DynOp{OpAdd(1, 0, 1, 8), OpAdd(2, 0, 2, 8), OpLabelState(7), OpAdd(QPTrue, 1, 3, 8)}},
		{InsnCount: 4, Ops: []DynOp{OpCopyState(7), OpAdd(QPTrue, 0, 4, 8)}},
	}
	trace, _, err := replayTrace(t, traceArch{pr: 1 << 2}, 6, 8, regions...)
	if want := "R0+4 r2@0 copy r4@4"; err != nil || trace != want {
		t.Errorf("trace %q %v, want %q", trace, err, want)
	}
}

// Operations that cannot apply are errors wrapping ErrDynOp: an unknown
// label, too many labels, an alias of 0 or one that wraps around the
// address space, an invalid predicate, what the
// architecture rejects; a procedure without regions info is ErrNoInfo.
func TestReplayErrors(t *testing.T) {
	many := make([]DynOp, MaxDynLabels+1)
	for i := range many {
		many[i] = OpLabelState(uint64(i))
	}
	for name, r := range map[string]*DynRegion{
		"unknown label":   {InsnCount: 4, Ops: []DynOp{OpCopyState(3)}},
		"too many labels": {InsnCount: 4, Ops: many},
		"alias of 0":      {InsnCount: 4, Ops: []DynOp{OpAlias(QPTrue, 0, 0)}},
		"alias wraps":     {InsnCount: 4, Ops: []DynOp{OpAlias(QPTrue, 0, 1<<64-4)}},
		"predicate":       {InsnCount: 4, Ops: []DynOp{OpAdd(9, 0, 1, 8)}},
		"arch":            {InsnCount: 4, Ops: []DynOp{OpSaveReg(QPTrue, 0, 1, 2)}},
	} {
		if _, _, err := replayTrace(t, traceArch{}, 2, 4, r); !errors.Is(err, ErrDynOp) {
			t.Errorf("%s: %v, want ErrDynOp", name, err)
		}
	}
	var s traceState
	if _, err := ReplayDynamic(traceArch{}, &DynInfo{StartIP: 0x1000, EndIP: 0x1010}, &s, 1, 4); !errors.Is(err, ErrNoInfo) {
		t.Errorf("no procedure: %v", err)
	}
}

// aliasSpace finds a procedure at every address.
type aliasSpace struct{ nullSpace }

func (aliasSpace) FindProcInfo(ip uint64) (*ProcInfo, error) {
	return &ProcInfo{StartIP: ip, EndIP: ip + 16}, nil
}

// FollowAlias finds the target's info up to MaxAliasDepth aliases, then
// stops a chain (which may loop) with ErrDynOp.
func TestFollowAliasDepth(t *testing.T) {
	c := NewCache(CacheNone)
	for depth := 0; depth < MaxAliasDepth; depth++ {
		if pi, err := FollowAlias(aliasSpace{}, c, 0x100, 0x2000, depth); err != nil || pi.StartIP != 0x2000 {
			t.Errorf("depth %d: %v %v", depth, pi, err)
		}
	}
	if _, err := FollowAlias(aliasSpace{}, c, 0x100, 0x2000, MaxAliasDepth); !errors.Is(err, ErrDynOp) {
		t.Errorf("depth %d: %v, want ErrDynOp", MaxAliasDepth, err)
	}
	if _, err := FollowAlias(nullSpace{}, c, 0x100, 0x2000, 0); !errors.Is(err, ErrNoInfo) {
		t.Errorf("alias without info: %v", err)
	}
}

// FuzzReplayDynamic: any region chain and any target end in a state, an
// alias within the ALIAS's region or an error — never a panic — and the
// regions are reached in the order of their spans.
func FuzzReplayDynamic(f *testing.F) {
	f.Add([]byte{4, 4, 0, 1, 1, 8, 0, 2, 9, 6, 0xff, 0xf9, 5, 3, 8, 2}, int64(9), uint8(2))
	f.Add([]byte{0xfe, 7, 0, 0, 6, 7, 0, 3, 5, 1, 0, 1, 4, 0x80, 0x7f}, int64(30), uint8(0xff))
	f.Fuzz(func(t *testing.T, b []byte, target int64, pr uint8) {
		// Per region: a count byte (its low 3 bits the operation count),
		// then per operation tag, qp, when and val.
		const to = 0x10000
		var regions []*DynRegion
		longest := int64(0)
		for len(b) > 0 && len(regions) < 8 {
			r := &DynRegion{InsnCount: int32(int8(b[0]))}
			n := int(b[0] % 8)
			b = b[1:]
			for i := 0; i < n && len(b) >= 4; i++ {
				op := DynOp{Tag: DynOpTag(b[0] % 10), QP: int8(b[1] % 10), Reg: int16(i), When: int32(int8(b[2])), Val: uint64(b[3] % 4)}
				if op.Tag == DynAlias && op.Val != 0 {
					op.Val = to
				}
				r.Ops = append(r.Ops, op)
				b = b[4:]
			}
			longest = max(longest, int64(r.InsnCount), -int64(r.InsnCount))
			regions = append(regions, r)
		}
		d := procInfo("f", 0x1000, 0x1100, regions...)
		var s traceState
		alias, err := ReplayDynamic(traceArch{pr: pr}, d, &s, target%80, 64)
		if err == nil && alias != 0 && (alias < to || alias > to+4*uint64(longest)) {
			t.Errorf("alias %#x outside the ALIAS's region (longest %d)", alias, longest)
		}
		// The regions reached are the procedure's spans, in order, from
		// the first.
		spans := d.Proc.Spans(64)
		k := 0
		for _, w := range strings.Fields(s.regions) {
			if k >= len(spans) || w != fmt.Sprintf("R%d+%d", spans[k].Start, spans[k].Len) {
				t.Fatalf("region %d reached is %s; spans %v", k, w, spans)
			}
			k++
		}
	})
}
