package pa64_test

import (
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/analyze"
	"github.com/coreunwind/coreunwind/internal/crossarch/hppa"
	"github.com/coreunwind/coreunwind/internal/crossarch/hpux"
	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/report"
)

const (
	pa64StackLo   = 0x800003ffff400000
	pa64StackSize = 0x10000
)

// runCrash64 builds crash64.c for PA 2.0W and runs it in the test
// interpreter from _start to its fault.
func runCrash64(t *testing.T) (prog string, m *hppa.Machine) {
	t.Helper()
	hppa.PA64.Need(t)
	dir := t.TempDir()
	src, _ := filepath.Abs("testdata/progs/crash64.c")
	prog = hppa.PA64.Build(t, dir, "crash64", src, append([]string{"-g", "-O1"}, hppa.Freestanding...)...)
	f, err := elf.Open(prog)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err = hppa.NewMachine(f, pa64StackLo, pa64StackSize)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Run(1 << 20); !errors.Is(err, hppa.ErrSegv) || m.FaultAddr != 0 {
		t.Fatalf("interpreter: %v at pc %#x (fault address %#x); want the null store in leaf", err, m.PC, m.FaultAddr)
	}
	if len(m.CallStack) != 6 {
		t.Fatalf("interpreter call stack %#x: want _start, top, fp, mid, mid, mid", m.CallStack)
	}
	return prog, m
}

// hpuxCoreOf writes the machine's state as an HP-UX PA 2.0W core.
func hpuxCoreOf(t *testing.T, m *hppa.Machine, dir string) string {
	t.Helper()
	regs := hpux.PARegs{Flags: hpux.SSWideRegs}
	for i := 1; i < 32; i++ {
		regs.Slots[i] = m.GR[i]
	}
	regs.Slots[hpux.SlotPCOQHead] = m.PC | 3
	regs.Slots[hpux.SlotPCOQTail] = m.NPC | 3
	segs := []hpux.Segment{
		{Type: hpux.PTVersion, Data: []byte{0, 0, 0, 1}, Flags: elf.PF_R},
		{Type: hpux.PTKernel, Data: []byte("HP-UX\x00test\x00B.11.31\x00"), Flags: elf.PF_R},
		{Type: hpux.PTComm, Data: []byte("crash64\x00"), Flags: elf.PF_R},
		{Type: hpux.PTProc, Data: hpux.ProcInfo(11, 15, regs.SaveState(), 1), Flags: elf.PF_R},
	}
	for _, r := range m.Runs() {
		data := make([]byte, r[1]-r[0])
		m.Read(r[0], data)
		// The program's one segment is RWE; the stack is RW.
		typ, flags := uint32(hpux.PTLoadable), elf.PF_R|elf.PF_W|elf.PF_X
		if r[0] >= pa64StackLo && r[0] < pa64StackLo+pa64StackSize {
			typ, flags = hpux.PTStack, elf.PF_R|elf.PF_W
		}
		segs = append(segs, hpux.Segment{Type: typ, Vaddr: r[0], Data: data, Flags: flags})
	}
	p := filepath.Join(dir, "core.hpux")
	if err := os.WriteFile(p, hpux.ELF64(elf.EM_PARISC, elf.ELFOSABI_HPUX, 0x214, segs), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// checkAgainstInterpreter compares the crashed thread's frames with what
// the interpreter executed: the faulting pc, then the return addresses
// of the calls still active, innermost first.
func checkAgainstInterpreter(t *testing.T, r *report.Report, m *hppa.Machine) {
	t.Helper()
	want := []uint64{m.PC}
	for i := len(m.CallStack) - 1; i >= 0; i-- {
		want = append(want, m.CallStack[i])
	}
	if len(r.Threads) != 1 {
		t.Fatalf("%d threads", len(r.Threads))
	}
	th := r.Threads[0]
	var got []uint64
	for _, f := range th.Frames {
		got = append(got, uint64(f.PC))
	}
	if len(got) != len(want) {
		t.Fatalf("frames %#x, interpreter %#x (error %v)", got, want, deref(th.Error))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("frame %d: pc %#x, interpreter %#x", i, got[i], want[i])
		}
	}
	names := []string{"leaf", "mid", "mid", "mid", "fp", "top", "_start"}
	for i, n := range names {
		if th.Frames[i].Function == nil || *th.Frames[i].Function != n {
			t.Errorf("frame %d: function %v, want %s", i, th.Frames[i].Function, n)
		}
	}
	if th.Error != nil {
		t.Errorf("thread error: %s", *th.Error)
	}
}

func TestHPUXPA64CoreFromInterpretedRun(t *testing.T) {
	prog, m := runCrash64(t)
	core := hpuxCoreOf(t, m, t.TempDir())
	r, err := analyze.Analyze(core, analyze.Options{Executable: prog})
	if err != nil {
		t.Fatal(err)
	}
	if r.Core.Arch != "hppa64" || r.Core.OS != "hpux" {
		t.Errorf("arch %s os %s", r.Core.Arch, r.Core.OS)
	}
	checkAgainstInterpreter(t, r, m)

	// binutils' elf64-hppa backend reads the same file as an HP-UX core:
	// registers (.reg), kernel (.kernel), the stack as loadable memory.
	out, err := exec.Command(testenv.NeedTool(t, hppa.PA64.Objdump), "-h", core).CombinedOutput()
	if err != nil {
		t.Fatalf("objdump -h: %v\n%s", err, out)
	}
	for _, want := range []string{" .reg ", " .kernel ", fmt.Sprintf("%016x", uint64(pa64StackLo)), "ALLOC, LOAD"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("objdump -h lacks %q:\n%s", want, out)
		}
	}
}

func deref(s *string) string {
	if s == nil {
		return "none"
	}
	return *s
}

func TestLinuxPA64CoreFromInterpretedRun(t *testing.T) {
	prog, m := runCrash64(t)
	f, err := elf.Open(prog)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	core := filepath.Join(t.TempDir(), "core")
	if err := os.WriteFile(core, hppa.LinuxCore64(m, f, prog, 11), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := analyze.Analyze(core, analyze.Options{Executable: prog})
	if err != nil {
		t.Fatal(err)
	}
	if r.Core.Arch != "hppa64" || r.Core.OS != "linux" {
		t.Errorf("arch %s os %s", r.Core.Arch, r.Core.OS)
	}
	checkAgainstInterpreter(t, r, m)
}
