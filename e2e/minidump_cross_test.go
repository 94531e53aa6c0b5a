package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/refbt"
	"github.com/coreunwind/coreunwind/internal/testenv"
)

// A minidumpArch is one architecture whose minidumps the tests make:
// mdcrash built with its cross compiler, crashed natively (i386) or
// under qemu-user, converted by core2md built for it.
type minidumpArch struct {
	arch testenv.CrossArch
	prog string                                                     // the programs entry of its mdcrash
	gdb  func(t *testing.T, exe, core string) map[int]*refbt.Thread // gdb on its cores
}

// The qemu-user builds are not PIE: qemu 7.2's /proc/self/maps shows a
// PIE's text, mapped by itself (-z separate-code), without x, and
// without it gdb cannot relocate a PIE from a qemu core.
var minidumpArches = []minidumpArch{
	{testenv.I386, "i386-mdcrash", func(t *testing.T, exe, core string) map[int]*refbt.Thread {
		g, _ := runGDB(t, exe, core)
		return g
	}},
	{testenv.AArch64, "a64-mdcrash", a64GDB},
	{testenv.ARMHF, "arm-mdcrash", armGDB},
}

func init() {
	programs["i386-mdcrash"] = i386cc("mdcrash", "-g", "-O1", "-pthread", "mdcrash.c")
	programs["a64-mdcrash"] = cc(testenv.AArch64.CC(), "mdcrash", "-g", "-O1", "-pthread", "-no-pie", "mdcrash.c")
	programs["arm-mdcrash"] = cc(testenv.ARMHF.CC(), "mdcrash", "-g", "-O1", "-pthread", "-no-pie", "mdcrash.c")
}

// crashToMinidumpFor is crashToMinidump for a. Under qemu-user the
// program's copy of its /proc/self files is what qemu shows the guest
// (maps, auxv and cmdline are the guest's) except status, which is
// qemu's own: it is replaced by the one testenv.ProcFromCore
// synthesizes from the core's NT_PRPSINFO.
func crashToMinidumpFor(t *testing.T, a minidumpArch) *minidumpCase {
	t.Helper()
	proc := t.TempDir()
	env := []string{"MDCRASH_PROC=" + proc}
	c := &minidumpCase{}
	if a.arch.Qemu == "" {
		c.crash = crashProgram(t, buildProgram(t, a.prog), env)
	} else {
		c.crash = qemuCrashEnv(t, a.arch, env, a.prog)
		synth := t.TempDir()
		testenv.ProcFromCore(t, c.Core, synth)
		status, err := os.ReadFile(filepath.Join(synth, "status"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(proc, "status"), status, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c.convert(t, testenv.Core2MDFor(t, a.arch), proc, "mdcrash.dmp")
	c.GDB = a.gdb(t, c.Exe, c.Core)
	return c
}

// TestMinidumpCrossArch: minidumps of i386, aarch64 and arm processes
// (Breakpad's core2md built for each, over the kernel's i386 core and
// qemu-user's aarch64 and arm cores of mdcrash). For every thread,
// coreunwind's frames on the minidump follow gdb-multiarch's on the
// original core by the rule the cores' own tests use
// (compareWithReferences), and begin with the frames minidump_stackwalk
// (with dump_syms's symbols) found by CFI. The report's process facts
// come from the minidump's streams, the crash analysis is the core's,
// and the crashed thread stops in store, called from middle, outer and
// main.
func TestMinidumpCrossArch(t *testing.T) {
	t.Parallel()
	testenv.NeedTool(t, "gdb-multiarch")
	for _, a := range minidumpArches {
		t.Run(a.arch.Name, func(t *testing.T) {
			t.Parallel()
			c := crashToMinidumpFor(t, a)
			rep, _ := unwindJSON(t, nil, c.Minidump)
			if rep.Core.Format != "minidump" || rep.Core.Arch != a.arch.Name {
				t.Errorf("format %q arch %q, want minidump %s", rep.Core.Format, rep.Core.Arch, a.arch.Name)
			}
			if rep.Core.Executable != c.Exe {
				t.Errorf("executable %q, want %q", rep.Core.Executable, c.Exe)
			}
			if s := rep.Core.Signal; s == nil || s.Name != "SIGSEGV" {
				t.Errorf("signal %+v, want SIGSEGV", s)
			}
			if len(rep.Threads) != len(c.Dump.Threads) || len(c.Stackwalk) != len(c.Dump.Threads) || len(c.GDB) != len(c.Dump.Threads) {
				t.Fatalf("%d threads in the report, %d in the minidump, %d from minidump_stackwalk, %d from gdb",
					len(rep.Threads), len(c.Dump.Threads), len(c.Stackwalk), len(c.GDB))
			}
			compareWithReferences(t, c.GDB, pcsOnly(c.GDB), rep)
			for i, mt := range c.Dump.Threads {
				th := rep.thread(int(mt.ID))
				if th == nil {
					t.Fatalf("thread %d of the minidump is not in the report", mt.ID)
				}
				var cfi []uint64
				for _, f := range c.Stackwalk[i].Frames {
					if !f.Module || (f.FoundBy != "given as instruction pointer in context" && f.FoundBy != "call frame info") {
						break
					}
					pc := f.PC
					if a.arch == testenv.ARMHF {
						// minidump_stackwalk keeps the Thumb bit of
						// arm return addresses; gdb and coreunwind
						// do not.
						pc &^= 1
					}
					cfi = append(cfi, pc)
				}
				if got := reportPCs(th, false); len(got) < len(cfi) || hexList(got[:len(cfi)]) != hexList(cfi) {
					t.Errorf("thread %d: coreunwind\n  %s\nminidump_stackwalk (by CFI)\n  %s", mt.ID, hexList(got), hexList(cfi))
				}
			}
			// The crash analysis reads the faulting instruction as on the
			// core (arm: in Thumb state, which Breakpad's cpsr of 0 does
			// not record); only the minidump says the fault's address
			// comes from the instruction (core2md records no si_code).
			var flags []string
			if a.arch.Qemu != "" {
				flags = []string{"--sysroot", a.arch.Sysroot()}
			}
			onCore, _ := unwindJSON(t, flags, c.Core, c.Exe)
			fromInsn := func(s string) string {
				return strings.TrimSuffix(s, " (from the instruction; the core has no siginfo)")
			}
			if rep.Crash == nil || onCore.Crash == nil || fromInsn(rep.Crash.Summary) != fromInsn(onCore.Crash.Summary) {
				t.Errorf("crash on the minidump %+v, on the core %+v", rep.Crash, onCore.Crash)
			}
			crashed := rep.thread(rep.Core.CrashedTID)
			if crashed == nil {
				t.Fatal("no crashed thread")
			}
			expectFunctions(t, crashed, "store", "middle", "outer", "main")
		})
	}
}
