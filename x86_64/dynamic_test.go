package x86_64

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/unwindtest"
)

// dynSpace is a test address space: a stack and registered dynamic info.
type dynSpace struct {
	*unwindtest.Space
	list unwind.DynList
}

func newDynSpace(stackBase uint64, stackSize int) *dynSpace {
	s := &dynSpace{}
	s.Space = &unwindtest.Space{Mem: []unwindtest.Region{{Addr: stackBase, Data: make([]byte, stackSize)}},
		Procs: func(ip uint64) (*unwind.ProcInfo, error) {
			if d := s.list.Lookup(ip); d != nil {
				return d.ProcInfo(), nil
			}
			return nil, unwind.ErrNoInfo
		}}
	return s
}

// put writes a word on the stack.
func (s *dynSpace) put(addr, v uint64) {
	r := s.Mem[0]
	binary.LittleEndian.PutUint64(r.Data[addr-r.Addr:], v)
}

// step unwinds one frame at pc/rsp/rbp (exact pc) and returns the caller.
func (s *dynSpace) step(t *testing.T, pc, rsp, rbp uint64) *unwind.Frame {
	t.Helper()
	callee := unwind.NewFrame(NumRegs)
	callee.Set(RIP, pc, unwind.SaveLoc{})
	callee.Set(RSP, rsp, unwind.SaveLoc{})
	callee.Set(RBP, rbp, unwind.SaveLoc{})
	callee.Set(RBX, 0xb0b0, unwind.SaveLoc{})
	callee.Set(R12, 0x1200, unwind.SaveLoc{})
	callee.ExactPC = true
	caller := unwind.NewFrame(NumRegs)
	if _, err := (Arch{}).Step(s, unwind.NewCache(unwind.CacheNone), callee, caller); err != nil {
		t.Fatal(err)
	}
	return caller
}

func get(f *unwind.Frame, r int) uint64 { v, _ := f.Get(r); return v }

// The frame-pointer procedure of the libunwind test, stepped at each
// stage of its prologue and epilogue: push %rbp; mov %rsp,%rbp; push
// %rbx; sub $0x18,%rsp; body; add; pop %rbx; pop %rbp; ret.
func TestDynamicOpsThroughPrologue(t *testing.T) {
	const start, cfa = 0x400000, 0x7000100
	s := newDynSpace(0x7000000, 0x200)
	ops := []unwind.DynOp{
		unwind.OpSpillFPRel(0, 4, RBX, -8),
		unwind.OpAdd(0, 5, RSP, -0x18),
		unwind.OpAdd(0, 0, RSP, -8),
		unwind.OpSpillSPRel(0, 0, RBP, 0),
		unwind.OpSaveReg(0, 1, RSP, RBP),
		unwind.OpAdd(0, 4, RSP, -8),
	}
	err := s.list.Register(&unwind.DynInfo{StartIP: start, EndIP: start + 0x1c, Format: unwind.DynFormatDynamic,
		Proc: &unwind.DynProcInfo{Name: "f", Regions: []*unwind.DynRegion{
			{InsnCount: 9, Ops: ops},
			{InsnCount: 0x11},
			{InsnCount: -2, Ops: []unwind.DynOp{unwind.OpPopFrames(0, 0, 1)}},
		}}})
	if err != nil {
		t.Fatal(err)
	}
	s.put(cfa-8, 0x555000)   // return address
	s.put(cfa-16, 0x7000400) // caller's rbp
	s.put(cfa-24, 0xcafe)    // caller's rbx
	for _, c := range []struct {
		off       uint64
		rsp, rbp  uint64
		wantRBP   uint64
		wantRBX   uint64
		rbxLocMem bool
	}{
		{0, cfa - 8, 0x7000400, 0x7000400, 0xb0b0, false},    // at entry
		{1, cfa - 16, 0x7000400, 0x7000400, 0xb0b0, false},   // rbp pushed
		{4, cfa - 16, cfa - 16, 0x7000400, 0xb0b0, false},    // frame pointer set
		{5, cfa - 24, cfa - 16, 0x7000400, 0xcafe, true},     // rbx pushed
		{9, cfa - 48, cfa - 16, 0x7000400, 0xcafe, true},     // body
		{0x1b, cfa - 8, 0x7000400, 0x7000400, 0xb0b0, false}, // at ret: frame popped
	} {
		f := s.step(t, start+c.off, c.rsp, c.rbp)
		if get(f, RIP) != 0x555000 || get(f, RSP) != cfa || get(f, RBP) != c.wantRBP || get(f, RBX) != c.wantRBX || get(f, R12) != 0x1200 {
			t.Errorf("+%#x: rip %#x rsp %#x rbp %#x rbx %#x r12 %#x", c.off, get(f, RIP), get(f, RSP), get(f, RBP), get(f, RBX), get(f, R12))
		}
		if f.Trust != unwind.TrustDynamic {
			t.Errorf("+%#x: trust %v", c.off, f.Trust)
		}
		if (f.Locs[RBX].Kind == unwind.LocMem) != c.rbxLocMem {
			t.Errorf("+%#x: rbx location %v", c.off, f.Locs[RBX])
		}
	}
}

// Label and copy state (an early exit in the middle of the code), ADD on
// a register that is not the stack pointer, an rbp-relative spill while
// the CFA is rsp-based, and an alias.
func TestDynamicOpsStatesAndAlias(t *testing.T) {
	const start, cfa = 0x500000, 0x7000100
	s := newDynSpace(0x7000000, 0x200)
	s.put(cfa-8, 0x666000)
	s.put(0x7000080, 0xbeef) // rbx spilled rbp-relative (rbp = 0x7000090)
	body := &unwind.DynRegion{InsnCount: 0x10, Ops: []unwind.DynOp{
		unwind.OpLabelState(1),
		unwind.OpAdd(0, 0, RSP, -0x20),
		unwind.OpSpillFPRel(0, 2, RBX, -0x10),
		unwind.OpAdd(0, 3, R12, 0x40),
		unwind.OpPopFrames(0, 8, 1), // early exit
	}}
	rest := &unwind.DynRegion{InsnCount: 0x10, Ops: []unwind.DynOp{
		unwind.OpCopyState(1), // back to the state labelled at the start
		unwind.OpAdd(0, 0, RSP, -8),
		unwind.OpAlias(0, 4, 0x600000),
	}}
	s.list.Register(&unwind.DynInfo{StartIP: start, EndIP: start + 0x20, Format: unwind.DynFormatDynamic,
		Proc: &unwind.DynProcInfo{Name: "g", Regions: []*unwind.DynRegion{body, rest}}})
	// The alias target: a procedure with 0x10 bytes of stack at its
	// offset 8 (g's 0x18 is at 8 in its region) and 0x20 from 0x11 on
	// (where g's offset from its own start would lead).
	s.list.Register(&unwind.DynInfo{StartIP: 0x600000, EndIP: 0x600040, Format: unwind.DynFormatDynamic,
		Proc: &unwind.DynProcInfo{Name: "target", Regions: []*unwind.DynRegion{{InsnCount: 0x40, Ops: []unwind.DynOp{
			unwind.OpAdd(0, 0, RSP, -0x10), unwind.OpAdd(0, 0x10, RSP, -0x10)}}}}})

	f := s.step(t, start+5, cfa-0x28, 0x7000090)
	if get(f, RSP) != cfa || get(f, RIP) != 0x666000 || get(f, RBX) != 0xbeef || get(f, R12) != 0x1200-0x40 {
		t.Errorf("in body: rsp %#x rip %#x rbx %#x r12 %#x", get(f, RSP), get(f, RIP), get(f, RBX), get(f, R12))
	}
	f = s.step(t, start+9, cfa-8, 0x7000090) // after the early exit's pop
	if get(f, RSP) != cfa || get(f, RBX) != 0xb0b0 || get(f, R12) != 0x1200 {
		t.Errorf("after early exit: rsp %#x rbx %#x r12 %#x", get(f, RSP), get(f, RBX), get(f, R12))
	}
	f = s.step(t, start+0x12, cfa-16, 0x7000090) // copied state, one push
	if get(f, RSP) != cfa || get(f, RIP) != 0x666000 {
		t.Errorf("copied state: rsp %#x rip %#x", get(f, RSP), get(f, RIP))
	}
	// Aliased: at 0x600008 the target has 0x10 bytes of stack, so the
	// CFA is rsp+0x18; g's own state (one push) would read the return
	// address at rsp+8 instead, 0x600018's at rsp+0x28.
	s.put(cfa-16, 0x777000)
	f = s.step(t, start+0x18, cfa-24, 0x7000090)
	if get(f, RIP) != 0x666000 || get(f, RSP) != cfa {
		t.Errorf("aliased: rip %#x rsp %#x", get(f, RIP), get(f, RSP))
	}
}

func TestDynamicOpsRejected(t *testing.T) {
	d := &unwind.DynInfo{StartIP: 0x1000, EndIP: 0x1010, Format: unwind.DynFormatDynamic,
		Proc: &unwind.DynProcInfo{Regions: []*unwind.DynRegion{{InsnCount: 4, Ops: []unwind.DynOp{unwind.OpSaveReg(0, 0, 99, 3)}}}}}
	if _, _, err := dynamicRow(d, 0x1008); !errors.Is(err, errDynOp) {
		t.Errorf("register 99: %v", err)
	}
	d.Proc.Regions[0].Ops = []unwind.DynOp{unwind.OpCopyState(5)}
	if _, _, err := dynamicRow(d, 0x1008); !errors.Is(err, errDynOp) {
		t.Errorf("unknown label: %v", err)
	}
	d.Proc.Regions[0].Ops = []unwind.DynOp{{Tag: 42}}
	if _, _, err := dynamicRow(d, 0x1008); !errors.Is(err, errDynOp) {
		t.Errorf("unknown tag: %v", err)
	}
	// An alias to itself loops: bounded.
	s := newDynSpace(0x7000000, 0x200)
	d.Proc.Regions[0].Ops = []unwind.DynOp{unwind.OpAlias(0, -1, 0x1000)}
	s.list.Register(d)
	if _, err := dynamicRule(s, unwind.NewCache(unwind.CacheNone), d.ProcInfo(), 0x1004, 0); err == nil {
		t.Error("self alias accepted")
	}
}

// An ALIAS in a procedure's second region leads to the alias address
// plus the target's offset in that region, clipped to the region's
// length (not its offset from the procedure's start).
func TestDynamicAliasOffsetInRegion(t *testing.T) {
	d := &unwind.DynInfo{StartIP: 0x1000, EndIP: 0x1014, Format: unwind.DynFormatDynamic,
		Proc: &unwind.DynProcInfo{Regions: []*unwind.DynRegion{
			{InsnCount: 4, Ops: []unwind.DynOp{unwind.OpAdd(0, 0, RSP, -8)}},
			{InsnCount: 6, Ops: []unwind.DynOp{unwind.OpAlias(0, 1, 0x600000)}},
			{InsnCount: 10},
		}}}
	for _, c := range []struct{ lpc, alias uint64 }{
		{0x1005, 0},        // the ALIAS takes effect after the region's byte 1
		{0x1006, 0x600002}, // byte 2 of the region
		{0x100c, 0x600006}, // past the region: its length
	} {
		_, alias, err := dynamicRow(d, c.lpc)
		if err != nil || alias != c.alias {
			t.Errorf("%#x: alias %#x %v, want %#x", c.lpc, alias, err, c.alias)
		}
	}
}
