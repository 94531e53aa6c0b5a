package pa64_test

import (
	"debug/elf"
	"os"
	"path/filepath"
	"testing"

	"github.com/coreunwind/coreunwind/analyze"
	"github.com/coreunwind/coreunwind/internal/crossarch/hppa"
	"github.com/coreunwind/coreunwind/internal/crossarch/hpux"
)

// TestNullifiedFrontOfQueue interrupts nullify64.c (hppa64 gcc output, in
// the test interpreter) when the instruction at the front of the queue is
// nullified, and writes that state as an HP-UX core with the PSW N bit
// in ipsw, as the kernel would save it. Frame 0's pc is then the
// instruction before (gdb's hppa_read_pc rule), and the walk goes on to
// the callers the interpreter has.
func TestNullifiedFrontOfQueue(t *testing.T) {
	hppa.PA64.Need(t)
	dir := t.TempDir()
	src, _ := filepath.Abs("testdata/progs/nullify64.c")
	prog := hppa.PA64.Build(t, dir, "nullify64", src, append([]string{"-g", "-O1"}, hppa.Freestanding...)...)
	f, err := elf.Open(prog)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var count elf.Symbol
	syms, _ := f.Symbols()
	for _, s := range syms {
		if s.Name == "count" {
			count = s
		}
	}
	m, err := hppa.NewMachine(f, pa64StackLo, pa64StackSize)
	if err != nil {
		t.Fatal(err)
	}
	for m.Steps < 1<<16 && !(m.Nullified() && m.PC >= count.Value+4 && m.PC < count.Value+count.Size) {
		if err := m.Run(m.Steps + 1); err != nil && m.Fault != nil {
			t.Fatalf("interpreter: %v", err)
		}
	}
	if !m.Nullified() {
		t.Fatal("the interpreter never had a nullified instruction at the front of the queue in count")
	}
	regs := hpux.PARegs{Flags: hpux.SSWideRegs}
	for i := 1; i < 32; i++ {
		regs.Slots[i] = m.GR[i]
	}
	regs.Slots[hpux.SlotPCOQHead] = m.PC | 3
	regs.Slots[hpux.SlotPCOQTail] = m.NPC | 3
	regs.Slots[hpux.SlotIPSW] = 0x00200000 | 0x8 // N, and the Q bit
	segs := []hpux.Segment{
		{Type: hpux.PTVersion, Data: []byte{0, 0, 0, 1}, Flags: elf.PF_R},
		{Type: hpux.PTProc, Data: hpux.ProcInfo(14, 0, regs.SaveState(), 1), Flags: elf.PF_R},
	}
	for _, r := range m.Runs() {
		data := make([]byte, r[1]-r[0])
		m.Read(r[0], data)
		segs = append(segs, hpux.Segment{Type: hpux.PTLoadable, Vaddr: r[0], Data: data, Flags: elf.PF_R | elf.PF_W | elf.PF_X})
	}
	core := filepath.Join(dir, "core.hpux")
	if err := os.WriteFile(core, hpux.ELF64(elf.EM_PARISC, elf.ELFOSABI_HPUX, 0x214, segs), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := analyze.Analyze(core, analyze.Options{Executable: prog})
	if err != nil {
		t.Fatal(err)
	}
	fr := r.Threads[0].Frames
	want := []uint64{m.PC - 4}
	for i := len(m.CallStack) - 1; i >= 0; i-- {
		want = append(want, m.CallStack[i])
	}
	if len(fr) != len(want) {
		t.Fatalf("%d frames, interpreter %#x (error %s)", len(fr), want, deref(r.Threads[0].Error))
	}
	for i := range want {
		if uint64(fr[i].PC) != want[i] {
			t.Errorf("frame %d: pc %#x, want %#x", i, uint64(fr[i].PC), want[i])
		}
	}
	if name(fr[0]) != "count" || name(fr[1]) != "outer" || name(fr[2]) != "_start" {
		t.Errorf("frames %s %s %s", name(fr[0]), name(fr[1]), name(fr[2]))
	}
}
