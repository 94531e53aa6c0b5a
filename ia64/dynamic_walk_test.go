package ia64

import (
	"debug/elf"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/coreunwind/coreunwind/corefile"
	"github.com/coreunwind/coreunwind/ia64/unwtab"
	crossia64 "github.com/coreunwind/coreunwind/internal/crossarch/ia64"
	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/unwindtest"
)

// jitBase is where dynwalk.s's generated code is linked: its own
// segment, far above .text and .data, so that the core does not count it as the
// executable's.
const jitBase = 0x8000000000010000

// dynRun is an interpreted run of dynwalk.s with its generated code
// registered in the core.
type dynRun struct {
	M         *crossia64.Machine
	Exe, Core string
	List      uint64 // _U_dyn_info_list
	JIT       map[string][2]uint64
}

// runDynToCore assembles dynwalk.s, runs it to its fault, registers
// jit_a and jit_b (DYNAMIC) and jit_c (TABLE or REMOTE_TABLE) in the
// machine's _U_dyn_info_list, removes jit_c's entry from a copy of the
// executable's .IA_64.unwind, and writes a Linux core naming that copy.
func runDynToCore(t *testing.T, be bool, tableFormat int32) *dynRun {
	t.Helper()
	src, err := os.ReadFile("testdata/dynwalk.s")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	built := crossia64.BuildLinked(t, dir, "dynwalk", string(src), be, true, "_start", fmt.Sprintf("--section-start=.jit=%#x", uint64(jitBase)))
	objdump := testenv.NeedTool(t, "ia64-linux-gnu-objdump")
	m, err := crossia64.NewMachine(objdump, built)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Run(20000); err != nil {
		t.Fatal(err)
	}
	if m.Fault != "load" || m.FaultAt != 0 {
		t.Fatalf("stopped by %q at %#x, want the NULL load", m.Fault, m.FaultAt)
	}
	r := &dynRun{M: m, Core: filepath.Join(dir, "core"), JIT: map[string][2]uint64{}}

	f, err := elf.Open(built)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	sym := map[string]uint64{}
	for _, s := range syms {
		sym[s.Name] = s.Value
	}
	r.List = sym["_U_dyn_info_list"]
	r.JIT["jit_a"] = [2]uint64{sym["jit_a"], sym["jit_b"]}
	r.JIT["jit_b"] = [2]uint64{sym["jit_b"], sym["jit_c"]}
	var jitEnd uint64
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD && p.Vaddr <= jitBase && jitBase < p.Vaddr+p.Memsz {
			jitEnd = p.Vaddr + p.Memsz
		}
	}
	r.JIT["jit_c"] = [2]uint64{sym["jit_c"], jitEnd}
	if r.List == 0 || sym["jit_a"] != jitBase || jitEnd == 0 {
		t.Fatalf("symbols: list %#x, jit_a %#x, jit segment end %#x", r.List, sym["jit_a"], jitEnd)
	}

	// jit_c's descriptors, from gas: its info block in the object
	// file; its entry leaves a copy of the executable's table.
	r.Exe = filepath.Join(dir, "dynwalk.nojit")
	dropTableEntries(t, f, built, r.Exe, jitBase)
	infoBlock := jitInfoBlock(t, filepath.Join(dir, "dynwalk.o"), f.ByteOrder)
	jitText := f.Section(".jit")
	tableCopy := [2]uint64{sym["jit_c"], jitText.Addr + jitText.Size}

	area := m.NewDynArea(sym["dyn_area"], 4096)
	infoAddr, err := area.Put(infoBlock)
	if err != nil {
		t.Fatal(err)
	}
	// The registered table: one (start, end, info) triple relative to a
	// segment base of our choosing, as a JIT's own table would be.
	seg := uint64(jitBase &^ 0xffff)
	triple := make([]byte, 24)
	m.Order.PutUint64(triple[0:], tableCopy[0]-seg)
	m.Order.PutUint64(triple[8:], tableCopy[1]-seg)
	m.Order.PutUint64(triple[16:], infoAddr-seg)
	tableAddr, err := area.Put(triple)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.WriteDynList(r.List, 7, area, append(dynwalkProcs(t, r), crossia64.DynEntry{
		Start: r.JIT["jit_c"][0], End: r.JIT["jit_c"][1], Format: tableFormat, Name: "jit_c.table",
		Segbase: seg, TableLen: 3, TableData: tableAddr,
	})); err != nil {
		t.Fatal(err)
	}

	// The core: the generated segment is anonymous memory.
	for _, reg := range m.Mem {
		switch {
		case reg.Base <= jitBase && jitBase < reg.Base+uint64(len(reg.Data)):
			reg.Name = "[jit]"
		case reg.Name == built:
			reg.Name = r.Exe
		}
	}
	if err := m.WriteLinuxCore(r.Core, r.Exe, 4343, 11); err != nil {
		t.Fatal(err)
	}
	return r
}

// dropTableEntries copies the executable to dst with the .IA_64.unwind
// entries of code at or above lo zeroed (a zero triple is no entry).
func dropTableEntries(t *testing.T, f *elf.File, src, dst string, lo uint64) {
	t.Helper()
	exe, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	sec := f.Section(".IA_64.unwind")
	if sec == nil {
		t.Fatal("no .IA_64.unwind")
	}
	var segbase uint64
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD && sec.Addr >= p.Vaddr && sec.Addr < p.Vaddr+p.Memsz {
			segbase = p.Vaddr
		}
	}
	tab := exe[sec.Offset : sec.Offset+sec.Size]
	dropped := 0
	for off := 0; off+24 <= len(tab); off += 24 {
		if segbase+f.ByteOrder.Uint64(tab[off:]) >= lo {
			clear(tab[off : off+24])
			dropped++
		}
	}
	if dropped != 1 {
		t.Fatalf("dropped %d table entries of generated code, want jit_c's", dropped)
	}
	if err := os.WriteFile(dst, exe, 0o755); err != nil {
		t.Fatal(err)
	}
}

// jitInfoBlock is the unwind info block gas made for the .jit
// section's only procedure (jit_c): header word and descriptors.
func jitInfoBlock(t *testing.T, obj string, o binary.ByteOrder) []byte {
	t.Helper()
	f, err := elf.Open(obj)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sec := f.Section(".IA_64.unwind_info.jit")
	if sec == nil {
		t.Fatal("no .IA_64.unwind_info.jit in the object")
	}
	b, err := sec.Data()
	if err != nil || len(b) < 8 {
		t.Fatalf("info section: %v (%d bytes)", err, len(b))
	}
	n := 8 + 8*(o.Uint64(b)&0xffffffff)
	if n > uint64(len(b)) {
		t.Fatalf("info block of %d bytes in a section of %d", n, len(b))
	}
	return b[:n]
}

// dynwalkProcs describes jit_a and jit_b with libunwind's operations,
// each placed at the slot of the instruction it describes (found in the
// disassembly the interpreter ran).
func dynwalkProcs(t *testing.T, r *dynRun) []crossia64.DynEntry {
	t.Helper()
	m := r.M
	const (
		saveReg, spillFP, spillSP, add, popFrames, labelState, copyState = 1, 2, 3, 4, 5, 6, 7
	)
	slot := func(fn, prefix string) int32 {
		t.Helper()
		s := m.SlotOf(r.JIT[fn][0], r.JIT[fn][1], prefix)
		if s < 0 {
			t.Fatalf("%s: no instruction %q", fn, prefix)
		}
		return s
	}
	procSlots := func(fn string) int32 { return int32(3 * (r.JIT[fn][1] - r.JIT[fn][0]) / 16) }

	// jit_a: one region; the operations listed out of order (the list
	// reader sorts them).
	aOps := []crossia64.DynOp{
		{Tag: spillSP, Reg: UnwGR + 4, When: slot("jit_a", "st8 [r2]=r4"), Val: 16},
		{Tag: saveReg, Reg: UnwARPFS, When: slot("jit_a", "alloc"), Val: UnwGR + 33},
		{Tag: add, Reg: UnwSP, When: slot("jit_a", "adds r12=-48,r12"), Val: uint64(0xffffffffffffffd0)},
		{Tag: saveReg, Reg: UnwBR + 0, When: slot("jit_a", "mov r34=b0"), Val: UnwGR + 34},
		{Tag: saveReg, Reg: UnwARLC, When: slot("jit_a", "mov.i r35=ar.lc"), Val: UnwGR + 35},
		{Tag: popFrames, When: slot("jit_a", "adds r12=48,r12"), Val: 1},
	}
	// jit_b: a prologue region, the early-exit epilogue (labelled
	// state, popped frames), and the body (copied state), counted from
	// the end. A predicated save that does not apply (p6 is clear at the
	// call) would corrupt b1; the one on p7 is the real save.
	r2 := slot("jit_b", "mov.m ar.unat=r36")
	r3 := slot("jit_b", "mov r39=r32")
	bOps1 := []crossia64.DynOp{
		{Tag: saveReg, Reg: UnwARPFS, When: slot("jit_b", "alloc"), Val: UnwGR + 33},
		{Tag: saveReg, Reg: UnwSP, When: slot("jit_b", "mov r35=r12"), Val: UnwGR + 35},
		{Tag: spillFP, Reg: UnwBR + 0, When: slot("jit_b", "st8 [r2]=r3"), Val: 24},
		{Tag: saveReg, Reg: UnwARUNAT, When: slot("jit_b", "mov.m r36=ar.unat"), Val: UnwGR + 36},
		{Tag: saveReg, QP: 7, Reg: UnwBR + 1, When: slot("jit_b", "mov r37=b1"), Val: UnwGR + 37},
		{Tag: saveReg, QP: 6, Reg: UnwBR + 1, When: slot("jit_b", "mov r9="), Val: UnwGR + 9},
	}
	bOps2 := []crossia64.DynOp{
		{Tag: labelState, QP: 0, When: -1, Val: 1},
		{Tag: popFrames, When: slot("jit_b", "mov r12=r35") - r2, Val: 2},
	}
	bOps3 := []crossia64.DynOp{{Tag: copyState, When: -1, Val: 1}}
	return []crossia64.DynEntry{
		{Start: r.JIT["jit_a"][0], End: r.JIT["jit_a"][1], Name: "jit_a.generated", Regions: []crossia64.DynRegion{{InsnCount: procSlots("jit_a"), Ops: aOps}}},
		{Start: r.JIT["jit_b"][0], End: r.JIT["jit_b"][1], Name: "jit_b.generated", Regions: []crossia64.DynRegion{
			{InsnCount: r2, Ops: bOps1},
			{InsnCount: r3 - r2, Ops: bOps2},
			{InsnCount: -(procSlots("jit_b") - r3), Ops: bOps3},
		}},
	}
}

// withDynList makes base look up the registered list of the core where
// the executable's table has nothing.
func withDynList(base *unwindtest.Space, dyn *unwind.DynIndex) *unwindtest.Space {
	table := base.Procs
	s := *base
	s.Procs = func(ip uint64) (*unwind.ProcInfo, error) {
		if pi, err := table(ip); err == nil {
			return pi, nil
		}
		if d := dyn.Lookup(ip); d != nil && d.Err == nil {
			return d.ProcInfo(), nil
		}
		return nil, unwind.ErrNoInfo
	}
	return &s
}

// TestWalkDynamicCore: through code known only from the registration
// list in the core (DYNAMIC operations for jit_a and jit_b, a registered
// TABLE or REMOTE_TABLE for jit_c), every frame's ip, sp, bsp, cfm and
// preserved registers are the interpreter's, in both byte orders; the
// frames found through registered info say so.
func TestWalkDynamicCore(t *testing.T) {
	for _, c := range []struct {
		be     bool
		format int32
	}{{false, 1}, {true, 2}} {
		t.Run(fmt.Sprintf("be=%v/format=%d", c.be, c.format), func(t *testing.T) {
			r := runDynToCore(t, c.be, c.format)
			core, err := corefile.Open(r.Core, corefile.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer core.Close()
			ef, err := elf.Open(r.Exe)
			if err != nil {
				t.Fatal(err)
			}
			defer ef.Close()
			if tab, err := unwtab.ReadTable(ef); err == nil {
				for _, e := range tab.Entries {
					if e.Start < r.JIT["jit_c"][1] && e.End > r.JIT["jit_a"][0] {
						t.Fatalf("the executable's table still covers generated code: %+v", e)
					}
				}
			}
			base := coreSpace(core, ef)
			x, warns, err := unwind.ReadDynList(base, r.List, unwind.DefaultDynLimits)
			if err != nil || len(warns) > 0 {
				t.Fatalf("list: %v %v", err, warns)
			}
			if len(x.Infos) != 3 || x.Generation != 7 {
				t.Fatalf("list: %d entries, generation %d", len(x.Infos), x.Generation)
			}
			as := withDynList(base, x)
			walkAgainstShadow(t, r.M, as, core, map[uint64]bool{r.JIT["jit_a"][0]: true, r.JIT["jit_b"][0]: true, r.JIT["jit_c"][0]: true})
		})
	}
}
