package pa64_test

import (
	"debug/elf"
	"errors"
	"path/filepath"
	"testing"

	"github.com/coreunwind/coreunwind/analyze"
	"github.com/coreunwind/coreunwind/internal/crossarch/hppa"
	"github.com/coreunwind/coreunwind/report"
)

// symbolAddr returns the address of the named symbol in f.
func symbolAddr(t *testing.T, f *elf.File, name string) uint64 {
	t.Helper()
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range syms {
		if s.Name == name {
			return s.Value
		}
	}
	t.Fatalf("no symbol %s", name)
	return 0
}

// TestHPUXInterruptMarker64 runs real hppa64 gcc output in the
// interpreter to a null store, delivers SIGSEGV the way HP-UX does (the
// save_state_t on the user stack, 1520 bytes below the sp of a trampoline
// whose unwind entry carries HP_UX_interrupt_marker, which calls the
// handler), lets the handler fault again, and writes the state as an
// HP-UX ELF64 core. coreunwind must walk hleaf -> handler -> the
// trampoline, then through the marker into the interrupted frame at its
// exact pc (trust context, not a return address), and on to _start: the
// frames the interpreter executed.
func TestHPUXInterruptMarker64(t *testing.T) {
	hppa.PA64.Need(t)
	dir := t.TempDir()
	src, _ := filepath.Abs("testdata/progs/hpuxsig64.c")
	tramp, _ := filepath.Abs("testdata/progs/hpuxtramp64.S")
	prog := hppa.PA64.Build(t, dir, "hpuxsig64", src, append([]string{"-g", "-O1", tramp}, hppa.Freestanding...)...)
	f, err := elf.Open(prog)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	assertInterruptMarker(t, hppa.PA64, prog, "sigtramp_hpux")

	m, err := hppa.NewMachine(f, pa64StackLo, pa64StackSize)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Run(1 << 20); !errors.Is(err, hppa.ErrSegv) || m.FaultAddr != 0 {
		t.Fatalf("interpreter: %v at pc %#x; want victim's null store", err, m.PC)
	}
	victim := symbolAddr(t, f, "victim")
	if m.PC < victim || m.PC >= victim+0x10 {
		t.Fatalf("first fault at %#x, not in victim (%#x)", m.PC, victim)
	}
	in := m.DeliverHPUXSignal(symbolAddr(t, f, "sigtramp_hpux"), symbolAddr(t, f, "handler"), 11, true)
	if err := m.Run(1 << 20); !errors.Is(err, hppa.ErrSegv) || m.FaultAddr != 0 {
		t.Fatalf("interpreter after the signal: %v at pc %#x; want hleaf's null store", err, m.PC)
	}

	core := hpuxCoreOf(t, m, dir)
	r, err := analyze.Analyze(core, analyze.Options{Executable: prog})
	if err != nil {
		t.Fatal(err)
	}
	if r.Core.OS != "hpux" || r.Core.Arch != "hppa64" {
		t.Errorf("os %s arch %s", r.Core.OS, r.Core.Arch)
	}
	checkInterruptedWalk(t, r, m, in,
		[]string{"hleaf", "handler", "sigtramp_hpux", "victim", "work", "work", "work", "_start"})
}

// checkInterruptedWalk compares the thread's frames with the pcs the
// interpreter executed (hppa.Machine.ExpectedPCs) and the names, and
// checks the frames around the interrupt: the marker frame is a signal
// frame, the one below it is the interrupted pc itself with trust
// context.
func checkInterruptedWalk(t *testing.T, r *report.Report, m *hppa.Machine, in hppa.Interruption, names []string) {
	t.Helper()
	if len(r.Threads) != 1 {
		t.Fatalf("%d threads", len(r.Threads))
	}
	th := r.Threads[0]
	want := m.ExpectedPCs()
	var got []uint64
	for _, fr := range th.Frames {
		got = append(got, uint64(fr.PC))
	}
	if len(got) != len(want) || len(want) != len(names) {
		t.Fatalf("frames %#x, interpreter %#x, names %v (error %s)", got, want, names, deref(th.Error))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("frame %d: pc %#x, interpreter %#x", i, got[i], want[i])
		}
		if name(th.Frames[i]) != names[i] {
			t.Errorf("frame %d: %s, want %s", i, name(th.Frames[i]), names[i])
		}
	}
	tr := -1
	for i, n := range names {
		if n == "sigtramp_hpux" || n == "sigtramp_hpux32" {
			tr = i
		}
	}
	if !th.Frames[tr].Signal {
		t.Errorf("frame %d (%s) is not marked as a signal frame", tr, names[tr])
	}
	below := th.Frames[tr+1]
	if uint64(below.PC) != in.PC || below.Trust != "context" {
		t.Errorf("interrupted frame: pc %#x trust %s, want the interrupted pc %#x with trust context", uint64(below.PC), below.Trust, in.PC)
	}
	if below.SP == nil || uint64(*below.SP) != in.GR[30] {
		t.Errorf("interrupted frame: sp %v, want the interrupted sp %#x", below.SP, in.GR[30])
	}
	if th.Error != nil {
		t.Errorf("thread error: %s", *th.Error)
	}
}

// assertInterruptMarker checks with readelf -u that the assembler really
// set HP_UX_interrupt_marker on fn's entry.
func assertInterruptMarker(t *testing.T, tc hppa.Toolchain, prog, fn string) {
	t.Helper()
	for _, e := range tc.ReadelfUnwind(t, prog) {
		if e.Name != fn {
			continue
		}
		for _, fl := range e.Flags {
			if fl == "HP_UX_interrupt_marker" {
				return
			}
		}
		t.Fatalf("readelf -u: %s has flags %v, no HP_UX_interrupt_marker", fn, e.Flags)
	}
	t.Fatalf("readelf -u shows no entry for %s", fn)
}
