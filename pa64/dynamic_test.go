package pa64

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/unwindtest"
)

// dynCase is one target of the table-driven tests: both byte orders, both
// word sizes.
type dynCase struct {
	name  string
	order binary.ByteOrder
	wide  bool
}

var dynCases = []dynCase{
	{"hppa64-be", binary.BigEndian, true}, {"hppa64-le", binary.LittleEndian, true},
	{"hppa-be", binary.BigEndian, false}, {"hppa-le", binary.LittleEndian, false},
}

// space is a synthesized target of the case's byte order and word size
// whose registered entries are infos.
func (c dynCase) space(infos ...*unwind.DynInfo) *unwindtest.Space {
	ptr := 4
	if c.wide {
		ptr = 8
	}
	dyn := unwind.NewDynIndex(infos, 1)
	return &unwindtest.Space{Order: c.order, Ptr: ptr, Procs: func(ip uint64) (*unwind.ProcInfo, error) {
		if d := dyn.Lookup(ip); d != nil {
			return d.ProcInfo(), nil
		}
		return nil, unwind.ErrNoInfo
	}}
}

func dynProc(start, end uint64, regions ...*unwind.DynRegion) *unwind.DynInfo {
	return &unwind.DynInfo{StartIP: start, EndIP: end, Format: unwind.DynFormatDynamic, Proc: &unwind.DynProcInfo{Name: "gen", Regions: regions}}
}

// stepAt steps a frame at pc with the given registers; exact marks frame 0.
func stepAt(t *testing.T, a Arch, as unwind.AddrSpace, pc uint64, exact bool, regs map[int]uint64) (*unwind.Frame, unwind.StepResult, error) {
	t.Helper()
	callee, caller := unwind.NewFrame(NumRegs), unwind.NewFrame(NumRegs)
	callee.Set(PC, pc, unwind.SaveLoc{})
	callee.ExactPC = exact
	callee.Trust = unwind.TrustUnwindTable
	for r, v := range regs {
		callee.Set(r, v, unwind.SaveLoc{})
	}
	res, err := a.Step(as, unwind.NewCache(unwind.CacheGlobal), callee, caller)
	return caller, res, err
}

func wantReg(t *testing.T, f *unwind.Frame, r int, want uint64) {
	t.Helper()
	if v, ok := f.Get(r); !ok || v != want {
		t.Errorf("caller %s = %#x (known %v), want %#x", RegName(r), v, ok, want)
	}
}

// A prologue described operation by operation: each takes effect after
// its instruction; SPILL_SP_REL is relative to sp as the operations
// before it left it (the ADD of a stack-growing-up frame is positive).
func TestDynamicPrologueTiming(t *testing.T) {
	for _, c := range dynCases {
		t.Run(c.name, func(t *testing.T) {
			a := New(c.wide)
			w := uint64(a.word())
			p := dynProc(0x1000, 0x1040, &unwind.DynRegion{InsnCount: 4, Ops: []unwind.DynOp{
				unwind.OpSpillSPRel(0, 0, RP, -16),
				unwind.OpSpillSPRel(0, 1, 4, 0), unwind.OpAdd(0, 1, SP, 128), // std,ma r4,128(sp)
				unwind.OpSpillSPRel(0, 2, 5, -int64(2*w)),
				unwind.OpSaveReg(0, 3, 6, 19),
			}}, &unwind.DynRegion{InsnCount: 12})
			as := c.space(p)
			const base = 0x7f000
			as.PutWord(base-16, 0x2000|3)
			as.PutWord(base, 0x44)
			as.PutWord(base+128-2*w, 0x55)
			regs := func(sp uint64) map[int]uint64 {
				return map[int]uint64{SP: sp, RP: 0x3000, 4: 4, 5: 5, 6: 6, 19: 0x66}
			}
			// Before anything ran: a leaf whose return is in rp.
			f, res, err := stepAt(t, a, as, 0x1000, true, regs(base))
			if err != nil || res != unwind.StepCaller {
				t.Fatal(res, err)
			}
			wantReg(t, f, PC, 0x3000)
			wantReg(t, f, SP, base)
			// rp stored, no frame yet.
			f, _, _ = stepAt(t, a, as, 0x1004, true, regs(base))
			wantReg(t, f, PC, 0x2000)
			wantReg(t, f, SP, base)
			wantReg(t, f, 4, 4)
			// The whole prologue has run (a return address in the body).
			f, res, err = stepAt(t, a, as, 0x1020, false, regs(base+128))
			if err != nil || res != unwind.StepCaller {
				t.Fatal(res, err)
			}
			wantReg(t, f, PC, 0x2000)
			wantReg(t, f, SP, base)
			wantReg(t, f, 4, 0x44)
			wantReg(t, f, 5, 0x55)
			wantReg(t, f, 6, 0x66)
			if f.Trust != unwind.TrustDynamic {
				t.Errorf("trust %v", f.Trust)
			}
			if l := f.Locs[4]; l.Kind != unwind.LocMem || l.Addr != base {
				t.Errorf("r4 location %+v", l)
			}
		})
	}
}

// SAVE_REG sp,r3 makes r3 the frame base (copy %sp,%r3); SPILL_FP_REL is
// relative to that base; later ADDs to sp (alloca) do not move it; ADD on
// another register is undone; rp kept in another register is followed.
func TestDynamicFramePointer(t *testing.T) {
	for _, c := range dynCases {
		t.Run(c.name, func(t *testing.T) {
			a := New(c.wide)
			p := dynProc(0x1000, 0x1040, &unwind.DynRegion{InsnCount: 6, Ops: []unwind.DynOp{
				unwind.OpSaveReg(0, 0, RP, R31),
				unwind.OpSaveReg(0, 0, SP, R3), // copy %sp,%r3 at entry
				unwind.OpAdd(0, 1, SP, 64),
				unwind.OpSpillFPRel(0, 2, 7, 8),
				unwind.OpAdd(0, 3, SP, 1000),
				unwind.OpAdd(0, 4, 9, 24),
			}}, &unwind.DynRegion{InsnCount: -10})
			as := c.space(p)
			const base = 0x7f000
			as.PutWord(base+8, 0x77)
			f, res, err := stepAt(t, a, as, 0x1018, false, map[int]uint64{SP: base + 1064, R3: base, R31: 0x4000, 7: 7, 9: 100})
			if err != nil || res != unwind.StepCaller {
				t.Fatal(res, err)
			}
			wantReg(t, f, PC, 0x4000)
			wantReg(t, f, SP, base)
			wantReg(t, f, 7, 0x77)
			wantReg(t, f, 9, 76)
		})
	}
}

// Regions with labelled and copied states and an epilogue in the middle:
// after POP_FRAMES the entry state holds; the code after the epilogue
// copies the body's state back.
func TestDynamicEpilogueAndStates(t *testing.T) {
	for _, c := range dynCases {
		t.Run(c.name, func(t *testing.T) {
			a := New(c.wide)
			p := dynProc(0x1000, 0x102c,
				&unwind.DynRegion{InsnCount: 2, Ops: []unwind.DynOp{unwind.OpAdd(0, 1, SP, 64), unwind.OpSpillSPRel(0, 0, RP, -16)}}, // unsorted on purpose
				&unwind.DynRegion{InsnCount: 3, Ops: []unwind.DynOp{unwind.OpLabelState(7)}},
				&unwind.DynRegion{InsnCount: 3, Ops: []unwind.DynOp{unwind.OpPopFrames(0, 1, 1)}},
				&unwind.DynRegion{InsnCount: 3, Ops: []unwind.DynOp{unwind.OpCopyState(7)}})
			p.Proc.Regions[0].SortOps()
			as := c.space(p)
			const base = 0x7f000
			as.PutWord(base-16, 0x2000)
			in := map[int]uint64{SP: base + 64, RP: 0x9000}
			out := map[int]uint64{SP: base, RP: 0x9000}
			for _, tc := range []struct {
				pc     uint64
				regs   map[int]uint64
				wantPC uint64
			}{
				{0x1010, in, 0x2000},  // body
				{0x1018, in, 0x2000},  // epilogue, before the pop (its own instruction)
				{0x101c, out, 0x9000}, // after the pop: the entry state
				{0x1020, in, 0x2000},  // the copied state
			} {
				f, res, err := stepAt(t, a, as, tc.pc, true, tc.regs)
				if err != nil || res != unwind.StepCaller {
					t.Fatalf("pc %#x: %v %v", tc.pc, res, err)
				}
				wantReg(t, f, PC, tc.wantPC)
				wantReg(t, f, SP, base)
			}
		})
	}
}

// ALIAS: the region unwinds as the code at the alias plus the same
// offset, here another registered procedure.
func TestDynamicAlias(t *testing.T) {
	for _, c := range dynCases {
		t.Run(c.name, func(t *testing.T) {
			a := New(c.wide)
			model := dynProc(0x1000, 0x1020, &unwind.DynRegion{InsnCount: 8, Ops: []unwind.DynOp{unwind.OpAdd(0, 0, SP, 32)}})
			alias := dynProc(0x5000, 0x5020, &unwind.DynRegion{InsnCount: 8, Ops: []unwind.DynOp{unwind.OpAlias(0, -1, 0x1000)}})
			loop := dynProc(0x6000, 0x6020, &unwind.DynRegion{InsnCount: 8, Ops: []unwind.DynOp{unwind.OpAlias(0, -1, 0x6000)}})
			as := c.space(model, alias, loop)
			f, _, err := stepAt(t, a, as, 0x5008, true, map[int]uint64{SP: 0x7f020, RP: 0x9000})
			if err != nil {
				t.Fatal(err)
			}
			wantReg(t, f, SP, 0x7f000)
			wantReg(t, f, PC, 0x9000)
			if f.Trust != unwind.TrustDynamic {
				t.Errorf("trust %v", f.Trust)
			}
			// An alias loop is not followed forever: the fallbacks take over.
			_, _, err = stepAt(t, a, as, 0x6008, false, map[int]uint64{SP: 0x7f020, RP: 0x9000})
			if err == nil {
				t.Error("alias loop: no error")
			}
		})
	}
}

// An ALIAS in a procedure's second region leads to the alias address
// plus the target's offset in that region in 4-byte instructions,
// clipped to the region's length.
func TestDynamicAliasOffsetInRegion(t *testing.T) {
	p := dynProc(0x1000, 0x1050,
		&unwind.DynRegion{InsnCount: 4, Ops: []unwind.DynOp{unwind.OpAdd(0, 0, SP, 64)}},
		&unwind.DynRegion{InsnCount: 6, Ops: []unwind.DynOp{unwind.OpAlias(0, 1, 0x5000)}},
		&unwind.DynRegion{InsnCount: 10})
	for _, c := range []struct{ pc, alias uint64 }{
		{0x1014, 0},      // the ALIAS takes effect after the region's instruction 1
		{0x1018, 0x5008}, // instruction 2 of the region
		{0x1030, 0x5018}, // past the region: its length
	} {
		_, alias, err := dynamicState(p, c.pc)
		if err != nil || alias != c.alias {
			t.Errorf("%#x: alias %#x %v, want %#x", c.pc, alias, err, c.alias)
		}
	}
}

// Operations that cannot apply on PA-RISC make the entry unusable (the
// static path's error, not a wrong frame).
func TestDynamicInvalidOps(t *testing.T) {
	for _, op := range []unwind.DynOp{
		unwind.OpSpillSPRel(0, 0, 0, 8),      // r0
		unwind.OpSpillSPRel(0, 0, PC, 8),     // not a register operations name
		unwind.OpSaveReg(0, 0, RP, FR0+4),    // across register files
		unwind.OpAdd(0, 0, FR0+12, 8),        // ADD on an FR
		unwind.OpCopyState(3),                // unknown label
		unwind.OpAdd(0, 0, SP, 1<<50),        // absurd frame
		unwind.OpAlias(0, 0, 0),              // alias of nothing
		{Tag: 42, When: 0},                   // unknown tag
		unwind.OpSpillFPRel(0, 0, 4, -1<<60), // absurd offset
	} {
		p := dynProc(0x1000, 0x1010, &unwind.DynRegion{InsnCount: 4, Ops: []unwind.DynOp{op}})
		as := dynCases[0].space(p)
		f, res, err := stepAt(t, New(true), as, 0x1008, false, map[int]uint64{SP: 0x7f000, RP: 0x9000})
		if err == nil && res == unwind.StepCaller && f.Trust == unwind.TrustDynamic {
			t.Errorf("%v: applied", op)
		}
		if _, _, err := dynamicState(p, 0x1008); !errors.Is(err, ErrDynOp) {
			t.Errorf("%v: error %v, want ErrDynOp", op, err)
		}
	}
}

// A registered TABLE: 16-byte .PARISC.unwind entries in target memory
// relative to the segment base; the prologue scan reads the registered
// code. A pc in the registered range without an entry is a leaf.
func TestDynamicTable(t *testing.T) {
	for _, c := range dynCases {
		t.Run(c.name, func(t *testing.T) {
			a := New(c.wide)
			const seg, code, table = 0x40000, 0x41000, 0x50000
			as := c.space(&unwind.DynInfo{StartIP: code, EndIP: code + 0x100, Format: unwind.DynFormatRemoteTable,
				Table: &unwind.DynTableInfo{Name: "t", Segbase: seg, TableLen: uint64(2 * 16 / c.ptrSize()), TableData: table}})
			// std rp,-16(sp); std,ma r4,128(sp) (wide) or stw rp,-20(sp);
			// stwm r4,128(sp) (narrow), then a nop.
			insns := []uint32{0x0fc212c1, 0x73c40108, 0x08000240}
			rpSlot := int64(-16)
			if !c.wide {
				insns = []uint32{0x6bc23fd9, 0x6fc40100, 0x08000240}
				rpSlot = -20
			}
			for i, w := range insns {
				b := make([]byte, 4)
				c.order.PutUint32(b, w)
				as.Put(code+uint64(4*i), b)
			}
			ent := make([]byte, 32)
			c.order.PutUint32(ent[0:], code-seg)
			c.order.PutUint32(ent[4:], code-seg+0x3c)
			c.order.PutUint32(ent[8:], 1<<16|1<<3) // Entry_GR=1 Save_RP
			c.order.PutUint32(ent[12:], 16)        // 128 bytes
			c.order.PutUint32(ent[16:], code-seg+0x80)
			c.order.PutUint32(ent[20:], code-seg+0x8c)
			as.Put(table, ent)
			const base = 0x7f000
			as.PutWord(uint64(base+rpSlot), 0x2000)
			as.PutWord(base, 0x44)
			f, res, err := stepAt(t, a, as, code+8, false, map[int]uint64{SP: base + 128, RP: 0x9000, 4: 4})
			if err != nil || res != unwind.StepCaller {
				t.Fatal(res, err)
			}
			wantReg(t, f, PC, 0x2000)
			wantReg(t, f, SP, base)
			wantReg(t, f, 4, 0x44)
			if f.Trust != unwind.TrustDynamic {
				t.Errorf("trust %v", f.Trust)
			}
			// Between the entries: a leaf (the return is in rp).
			f, _, err = stepAt(t, a, as, code+0x60, true, map[int]uint64{SP: base, RP: 0x9000})
			if err != nil {
				t.Fatal(err)
			}
			wantReg(t, f, PC, 0x9000)
		})
	}
}

func (c dynCase) ptrSize() int {
	if c.wide {
		return 8
	}
	return 4
}

// FuzzDynamicState applies arbitrary operations: errors, never panics or
// unbounded work.
func FuzzDynamicState(f *testing.F) {
	f.Add([]byte{3, 0, 0, 2, 0, 0, 0, 0, 0xf0, 4, 0, 0, 30, 0, 0, 0, 1, 0x80, 6, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 1}, uint16(12))
	f.Add([]byte{1, 0, 0, 30, 0, 0, 0, 0, 3, 5, 0, 0, 0, 0, 0, 0, 2, 1, 7, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 9}, uint16(3))
	f.Fuzz(func(t *testing.T, data []byte, at uint16) {
		var ops []unwind.DynOp
		for len(data) >= 9 && len(ops) < 64 {
			ops = append(ops, unwind.DynOp{Tag: unwind.DynOpTag(data[0] % 10), Reg: int16(binary.BigEndian.Uint16(data[1:])),
				When: int32(binary.BigEndian.Uint32(data[3:])), Val: uint64(int64(int32(binary.BigEndian.Uint32(data[5:]))))})
			data = data[9:]
		}
		r1 := &unwind.DynRegion{InsnCount: 8, Ops: ops}
		r1.SortOps()
		p := dynProc(0x1000, 0x1100, r1, &unwind.DynRegion{InsnCount: -8, Ops: ops})
		pc := 0x1000 + uint64(at%0x41)*4
		dynamicState(p, pc)
		as := dynCases[int(at)%4].space(p)
		stepAt(t, New(at&1 == 0), as, pc, at&2 == 0, map[int]uint64{SP: 0x7f000, RP: 0x9000, R3: 0x7f100})
	})
}
