package ia64

import (
	"encoding/binary"
	"errors"
	"fmt"
	"testing"

	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/unwindtest"
)

// dynMemSpace is a synthesized address space: sparse memory in one byte
// order and registered dynamic info.
type dynMemSpace struct {
	*unwindtest.Space
	dyn []*unwind.DynInfo
}

func newDynMemSpace(o binary.ByteOrder) *dynMemSpace {
	s := &dynMemSpace{}
	s.Space = &unwindtest.Space{Order: o, Procs: func(ip uint64) (*unwind.ProcInfo, error) {
		if d := unwind.NewDynIndex(s.dyn, 1).Lookup(ip); d != nil {
			return d.ProcInfo(), nil
		}
		return nil, unwind.ErrNoInfo
	}}
	return s
}

// Addresses of the synthesized frames.
const (
	procStart = 0x4000000000100000
	callerIP  = 0x4000000000200040 // a return address in the caller
	calleeSP  = 0x600000000000f000
	calleeBSP = 0x6000000000080100
)

// calleeFrame is a frame at slot `slot` of the procedure at procStart.
func calleeFrame(slot int64, pr uint64) *unwind.Frame {
	f := unwind.NewFrame(NumRegs)
	f.Set(IP, procStart+slotAddr(slot), unwind.SaveLoc{})
	f.Set(SP, calleeSP, unwind.SaveLoc{})
	f.Set(BSP, calleeBSP, unwind.SaveLoc{})
	f.Set(CFM, 6|5<<7, unwind.SaveLoc{})
	f.Set(PFS, 0x1234, unwind.SaveLoc{})
	f.Set(PR, pr, unwind.SaveLoc{})
	f.Set(BR0, 0xbad0, unwind.SaveLoc{})
	f.Set(BR0+1, 0xb1b1, unwind.SaveLoc{})
	f.Set(4, 0x4444, unwind.SaveLoc{})
	f.Set(9, 0x9999, unwind.SaveLoc{})
	f.ExactPC = true
	return f
}

// stepOnce unwinds f in s and returns the caller.
func stepOnce(t *testing.T, s *dynMemSpace, f *unwind.Frame) (*unwind.Frame, error) {
	t.Helper()
	c := unwind.NewFrame(NumRegs)
	_, err := Arch{}.Step(s, unwind.NewCache(unwind.CacheNone), f, c)
	return c, err
}

// stacked is the backing-store address of the callee's stacked rN.
func stacked(n int) uint64 { return RSESkipRegs(calleeBSP, int64(n-32)) }

// TestDynamicOperations: each operation recovers the caller's registers
// from where the synthesized frame put them, at slots before and after
// it takes effect, in both byte orders.
func TestDynamicOperations(t *testing.T) {
	for _, o := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
		t.Run(fmt.Sprint(o), func(t *testing.T) {
			s := newDynMemSpace(o)
			// The callee: pfs in r33 at slot 0, a 64-byte frame at 1, rp
			// spilled psp-relative at 3, r4 sp-relative at 4, b1 in r9
			// at 5 only under p6; the epilogue restores sp at 20 and pops
			// the frame.
			ops := []unwind.DynOp{
				unwind.OpSpillSPRel(unwind.QPTrue, 4, UnwGR+4, 16),
				unwind.OpSaveReg(unwind.QPTrue, 0, UnwARPFS, UnwGR+33),
				unwind.OpAdd(unwind.QPTrue, 1, UnwSP, -64),
				unwind.OpSpillFPRel(unwind.QPTrue, 3, UnwBR, 24),
				unwind.OpSaveReg(6, 5, UnwBR+1, UnwGR+9),
				unwind.OpPopFrames(unwind.QPTrue, 20, 1),
			}
			r := &unwind.DynRegion{InsnCount: 30, Ops: ops}
			r.SortOps()
			d := &unwind.DynInfo{StartIP: procStart, EndIP: procStart + 160, Format: unwind.DynFormatDynamic,
				Proc: &unwind.DynProcInfo{Name: "gen", Regions: []*unwind.DynRegion{r}}}
			s.dyn = []*unwind.DynInfo{d}
			psp := uint64(calleeSP + 64)
			s.PutWord(stacked(33), 0x777|3<<7)
			s.PutWord(psp-8, callerIP)
			s.PutWord(calleeSP+16, 0x4040)

			type want struct {
				ip, sp, pfs, r4, b1 uint64
			}
			for _, c := range []struct {
				slot int64
				pr   uint64
				want want
			}{
				{0, 0, want{0xbad0, calleeSP, 0x1234, 0x4444, 0xb1b1}},       // nothing done yet
				{1, 0, want{0xbad0, calleeSP, 0x777 | 3<<7, 0x4444, 0xb1b1}}, // pfs saved
				{2, 0, want{0xbad0, psp, 0x777 | 3<<7, 0x4444, 0xb1b1}},      // frame allocated
				{4, 0, want{callerIP, psp, 0x777 | 3<<7, 0x4444, 0xb1b1}},    // rp spilled
				{6, 0, want{callerIP, psp, 0x777 | 3<<7, 0x4040, 0xb1b1}},    // r4 spilled, p6 clear
				{6, 1 << 6, want{callerIP, psp, 0x777 | 3<<7, 0x4040, 0x9999}},
				{21, 0, want{0xbad0, calleeSP, 0x777 | 3<<7, 0x4444, 0xb1b1}}, // sp restored: memory saves gone
			} {
				f := calleeFrame(c.slot, c.pr)
				caller, err := stepOnce(t, s, f)
				if err != nil {
					t.Fatalf("slot %d: %v", c.slot, err)
				}
				got := want{}
				got.ip, _ = caller.Get(IP)
				got.sp, _ = caller.Get(SP)
				got.pfs, _ = caller.Get(CFM)
				got.r4, _ = caller.Get(4)
				got.b1, _ = caller.Get(BR0 + 1)
				if got != c.want {
					t.Errorf("slot %d pr %#x: caller %+v, want %+v", c.slot, c.pr, got, c.want)
				}
				if caller.Trust != unwind.TrustDynamic {
					t.Errorf("slot %d: trust %v", c.slot, caller.Trust)
				}
			}
		})
	}
}

// TestDynamicStates: a labelled state survives POP_FRAMES and comes back
// with COPY_STATE in a region counted from the procedure's end; SAVE_REG
// of sp makes a variable frame; ALIAS unwinds as the aliased code.
func TestDynamicStates(t *testing.T) {
	s := newDynMemSpace(binary.BigEndian)
	psp := uint64(calleeSP + 0x200) // a variable frame: psp saved in r35
	s.PutWord(stacked(35), psp)
	s.PutWord(stacked(34), callerIP)
	regions := []*unwind.DynRegion{
		{InsnCount: 6, Ops: []unwind.DynOp{
			unwind.OpSaveReg(unwind.QPTrue, 1, UnwSP, UnwGR+35),
			unwind.OpSaveReg(unwind.QPTrue, 2, UnwBR, UnwGR+34),
		}},
		{InsnCount: 6, Ops: []unwind.DynOp{unwind.OpLabelState(9), unwind.OpPopFrames(unwind.QPTrue, 3, 2)}},
		{InsnCount: -9, Ops: []unwind.DynOp{unwind.OpCopyState(9)}},
	}
	gen := &unwind.DynInfo{StartIP: procStart, EndIP: procStart + 16*7, Format: unwind.DynFormatDynamic,
		Proc: &unwind.DynProcInfo{Name: "gen", Regions: regions}}
	// An alias procedure elsewhere: slot k of its region is slot k of gen.
	const aliasStart = procStart + 0x1000
	alias := &unwind.DynInfo{StartIP: aliasStart, EndIP: aliasStart + 16*7, Format: unwind.DynFormatDynamic,
		Proc: &unwind.DynProcInfo{Name: "alias", Regions: []*unwind.DynRegion{{InsnCount: 21, Ops: []unwind.DynOp{unwind.OpAlias(unwind.QPTrue, -1, procStart)}}}}}
	s.dyn = []*unwind.DynInfo{gen, alias}
	for _, c := range []struct {
		slot   int64
		ip, sp uint64
	}{
		{1, 0xbad0, calleeSP},    // before anything
		{3, callerIP, psp},       // prologue done
		{8, callerIP, psp},       // epilogue region, sp not yet restored
		{10, callerIP, calleeSP}, // sp restored: the memory frame is gone (rp's GR still holds it)
		{13, callerIP, psp},      // after the epilogue: the copied state
		{20, callerIP, psp},      // last slot
	} {
		for _, start := range []uint64{procStart, aliasStart} {
			f := calleeFrame(c.slot, 0)
			f.Set(IP, start+slotAddr(c.slot), unwind.SaveLoc{})
			caller, err := stepOnce(t, s, f)
			if err != nil {
				t.Fatalf("%#x slot %d: %v", start, c.slot, err)
			}
			ip, _ := caller.Get(IP)
			sp, _ := caller.Get(SP)
			if ip != c.ip || sp != c.sp {
				t.Errorf("%#x slot %d: caller ip %#x sp %#x, want %#x %#x", start, c.slot, ip, sp, c.ip, c.sp)
			}
		}
	}
}

// TestDynamicAliasOffsetInRegion: an ALIAS in a procedure's second
// region leads to the alias address plus the target's slot in that
// region (three per bundle), clipped to the region's length.
func TestDynamicAliasOffsetInRegion(t *testing.T) {
	const to = procStart + 0x1000
	d := &unwind.DynInfo{StartIP: procStart, EndIP: procStart + 16*7, Format: unwind.DynFormatDynamic,
		Proc: &unwind.DynProcInfo{Regions: []*unwind.DynRegion{
			{InsnCount: 4, Ops: []unwind.DynOp{unwind.OpAdd(unwind.QPTrue, 0, UnwSP, -16)}},
			{InsnCount: 6, Ops: []unwind.DynOp{unwind.OpAlias(unwind.QPTrue, 1, to)}},
			{InsnCount: 11},
		}}}
	for _, c := range []struct {
		slot  int64
		alias uint64
	}{
		{5, 0},             // the ALIAS takes effect after the region's slot 1
		{8, to + 0x10 + 1}, // slot 4 of the region: bundle 1, slot 1
		{13, to + 0x20},    // past the region: its length, 6 slots
	} {
		_, alias, err := dynamicState(d, c.slot, nil)
		if err != nil || alias != c.alias {
			t.Errorf("slot %d: alias %#x %v, want %#x", c.slot, alias, err, c.alias)
		}
	}
}

// TestDynamicInvalid: operations that cannot apply on IA-64 are errors,
// not wrong frames; an alias loop ends.
func TestDynamicInvalid(t *testing.T) {
	for _, op := range []unwind.DynOp{
		unwind.OpAdd(unwind.QPTrue, 0, UnwGR+4, -16),
		unwind.OpAdd(unwind.QPTrue, 0, UnwSP, -12),
		unwind.OpSaveReg(unwind.QPTrue, 0, UnwGR+9, UnwGR+33),
		unwind.OpSaveReg(unwind.QPTrue, 0, UnwBR, UnwAR+3),
		unwind.OpCopyState(5),
		{Tag: 42},
		{Tag: unwind.DynSaveReg, QP: 99, Reg: UnwBR, Val: 40},
	} {
		s := newDynMemSpace(binary.LittleEndian)
		s.dyn = []*unwind.DynInfo{{StartIP: procStart, EndIP: procStart + 32, Format: unwind.DynFormatDynamic,
			Proc: &unwind.DynProcInfo{Regions: []*unwind.DynRegion{{InsnCount: 6, Ops: []unwind.DynOp{op}}}}}}
		if _, err := stepOnce(t, s, calleeFrame(3, 0)); !errors.Is(err, ErrDynOp) {
			t.Errorf("%v: %v, want ErrDynOp", op, err)
		}
	}
	s := newDynMemSpace(binary.LittleEndian)
	s.dyn = []*unwind.DynInfo{{StartIP: procStart, EndIP: procStart + 32, Format: unwind.DynFormatDynamic,
		Proc: &unwind.DynProcInfo{Regions: []*unwind.DynRegion{{InsnCount: 6, Ops: []unwind.DynOp{unwind.OpAlias(unwind.QPTrue, -1, procStart)}}}}}}
	if _, err := stepOnce(t, s, calleeFrame(3, 0)); !errors.Is(err, ErrDynOp) {
		t.Errorf("alias loop: %v", err)
	}
}

// TestDynamicTable: a registered table in target memory, both byte
// orders: the entry's descriptors (assembled here by hand: R1 prologue,
// P7 mem_stack_f, P3 rp_gr, R1 body) unwind the frame; an address in the
// range without an entry is a leaf.
func TestDynamicTable(t *testing.T) {
	for _, o := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
		for _, format := range []unwind.DynFormat{unwind.DynFormatTable, unwind.DynFormatRemoteTable} {
			s := newDynMemSpace(o)
			const seg, table, info = procStart - 0x100, 0x6000000000001000, 0x6000000000002000
			// One entry for the procedure's first 0x40 bytes.
			s.PutWord(table, procStart-seg)
			s.PutWord(table+8, procStart+0x40-seg)
			s.PutWord(table+16, info-seg)
			desc := []byte{
				0x03,             // R1 prologue, rlen 3
				0xe0, 0x01, 0x04, // P7 mem_stack_f t=1 size=4 (64 bytes)
				0xb0, 0x80 | 34, // P3 rp_gr r34
				0x28, // R1 body, rlen 8
				0,    // padding
			}
			s.PutWord(info, 1<<48|1) // version 1, one word of descriptors
			s.Put(info+8, desc)
			s.PutWord(stacked(34), callerIP)
			s.dyn = []*unwind.DynInfo{{StartIP: procStart, EndIP: procStart + 0x100, Format: format,
				Table: &unwind.DynTableInfo{Name: "tab", Segbase: seg, TableLen: 3, TableData: table}}}
			caller, err := stepOnce(t, s, calleeFrame(5, 0))
			if err != nil {
				t.Fatalf("%v %v: %v", o, format, err)
			}
			ip, _ := caller.Get(IP)
			sp, _ := caller.Get(SP)
			if ip != callerIP || sp != calleeSP+64 || caller.Trust != unwind.TrustDynamic {
				t.Errorf("%v %v: caller ip %#x sp %#x trust %v", o, format, ip, sp, caller.Trust)
			}
			leaf := calleeFrame(0, 0)
			leaf.Set(IP, procStart+0x80, unwind.SaveLoc{})
			caller, err = stepOnce(t, s, leaf)
			if err != nil {
				t.Fatal(err)
			}
			if ip, _ := caller.Get(IP); ip != 0xbad0 {
				t.Errorf("%v %v: leaf's caller ip %#x, want b0", o, format, ip)
			}
			// A table whose info block is not in memory is an error.
			s.dyn[0].Table.TableData = table + 8
			if _, err := stepOnce(t, s, calleeFrame(5, 0)); err == nil {
				t.Errorf("%v %v: a misplaced table unwound", o, format)
			}
		}
	}
}

// FuzzDynamicState: any region chain and any target slot end in a state
// or an error, and any registered table in hostile memory in a script or
// an error — never a panic or a hang.
func FuzzDynamicState(f *testing.F) {
	f.Add([]byte{1, 0, 0, 2, 0, 0, 0, 0, 33, 4, 12, 2, 1, 0xd0, 6, 0, 0, 0, 1}, int64(5), uint64(0x40))
	f.Add([]byte{6, 0, 0, 0, 0xff, 9, 5, 0, 0, 0, 3, 2, 7, 0, 0, 0xff, 9}, int64(30), uint64(1<<6))
	f.Fuzz(func(t *testing.T, b []byte, target int64, pr uint64) {
		// Decode b into regions of operations: one byte of count, then
		// per operation tag, qp, reg (2), when (1), val (1).
		var regions []*unwind.DynRegion
		for len(b) > 0 && len(regions) < 8 {
			n := int(b[0] % 8)
			r := &unwind.DynRegion{InsnCount: int32(int8(b[0]))}
			b = b[1:]
			for i := 0; i < n && len(b) >= 6; i++ {
				r.Ops = append(r.Ops, unwind.DynOp{Tag: unwind.DynOpTag(b[0] % 10), QP: int8(b[1] % 70), Reg: int16(b[2]) | int16(b[3]&3)<<8, When: int32(int8(b[4])), Val: uint64(int64(int8(b[5]))) * 8})
				b = b[6:]
			}
			r.SortOps()
			regions = append(regions, r)
		}
		d := &unwind.DynInfo{StartIP: procStart, EndIP: procStart + 0x200, Format: unwind.DynFormatDynamic, Proc: &unwind.DynProcInfo{Regions: regions}}
		sr, _, err := dynamicState(d, target%200, &pr)
		if err == nil {
			compile(sr)
		}
		s := newDynMemSpace(binary.BigEndian)
		s.dyn = []*unwind.DynInfo{d}
		stepOnce(t, s, calleeFrame(target%100, pr))
	})
}
