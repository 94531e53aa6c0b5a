package e2e

import (
	"fmt"
	"testing"

	"github.com/coreunwind/coreunwind/internal/refbt"
	"github.com/coreunwind/coreunwind/internal/testenv"
)

// 64-bit Power cores: elfutils' ppc64le core written by a real POWER
// kernel, and cores qemu-user writes for programs built here with
// Debian's cross compilers, little-endian (ELFv2) and big-endian (ELFv1). The references are gdb-multiarch and eu-stack on the core;
// where both fail on qemu's signal trampoline, a live gdb through qemu's
// gdbstub.

// ppcArches are the Power ABIs the tests build for: 64-bit ELFv2
// little-endian and ELFv1 big-endian (function descriptors, the TOC
// saved at 40(r1)), and the 32-bit big-endian SysV ABI (lr saved at
// 4(r1), no TOC), each with the prefix of its programs' names.
var ppcArches = []struct {
	prefix string
	arch   testenv.CrossArch
}{{"ppc", testenv.PPC64LE}, {"ppcbe", testenv.PPC64}, {"ppc32", testenv.PPC}}

// ppcStatic are the link flags of the static programs: as on aarch64,
// -z separate-code keeps the executable's text in qemu's core, which
// eu-stack needs.
var ppcStatic = []string{"-static", "-Wl,-z,separate-code"}

// The nocfi programs are unwound by the back chain, with and without a
// frame pointer (r31).
func init() {
	for _, a := range ppcArches {
		addCrossCrashPrograms(a.prefix, a.arch, ppcStatic, nil)
		programs[a.prefix+"-reraise"] = cc(a.arch.CC(), "reraise", append([]string{"-g", "-O1", "reraise.c"}, ppcStatic...)...)
	}
}

// ppcGDB is gdb-multiarch on a core of arch, with the cross C library
// as the sysroot.
func ppcGDB(t *testing.T, arch testenv.CrossArch, exe, core string) map[int]*refbt.Thread {
	t.Helper()
	g, _ := runGDBTool(t, "gdb-multiarch", exe, core, "-iex", "set sysroot "+arch.Sysroot(), "-iex", "set print frame-arguments none")
	return g
}

// TestPPC64LEElfutilsCore: the core a POWER kernel wrote for elfutils'
// backtrace-child built with frame pointers and without CFI for its own
// functions (static, old glibc). gdb and eu-stack are the references, pc
// for pc on every thread, after dropping eu-stack's repeated frames
// (sigusr2 and main twice: it takes the link register again after
// unwinding through it) and the nameless frames each tool ends a thread
// with (gdb's "0x0 ??" after __libc_start_main): one must be a prefix of
// the other, and coreunwind must equal the longer. gdb goes further on
// the worker (clone after start_thread, where eu-stack stops).
func TestPPC64LEElfutilsCore(t *testing.T) {
	t.Parallel()
	core := testenv.ElfutilsFile(t, "backtrace.ppc64le.fp.core")
	exe := testenv.ElfutilsFile(t, "backtrace.ppc64le.fp.exec")
	eu, _ := runEuStack(t, exe, core)
	eu = dedupRef(eu)
	g := ppcGDB(t, testenv.PPC64LE, exe, core)
	rep, _ := unwindJSON(t, nil, core, exe)
	if rep.Core.Arch != "ppc64le" {
		t.Errorf("arch = %q, want ppc64le", rep.Core.Arch)
	}
	compareWithReferences(t, g, eu, rep)
	expectLongerReference(t, g, eu, rep)
}

// TestPPCElfutilsCore: the core a 64-bit POWER kernel wrote for elfutils'
// 32-bit backtrace-child (static, two threads, SIGABRT; NT_PRSTATUS with
// the 32-bit pt_regs). eu-stack and gdb-multiarch agree up to where gdb
// stops (after main on the main thread: its backtrace past-main is off),
// and coreunwind must equal eu-stack: raise, sigusr2 ... start_thread,
// __clone on the worker (where eu-stack then reports "no matching
// address range" for the pc before __clone: it is the outermost frame),
// pthread_join to __libc_start_main on the main thread.
func TestPPCElfutilsCore(t *testing.T) {
	t.Parallel()
	core := testenv.ElfutilsFile(t, "backtrace.ppc.core")
	exe := testenv.ElfutilsFile(t, "backtrace.ppc.exec")
	eu, _ := runEuStack(t, exe, core)
	g := ppcGDB(t, testenv.PPC, exe, core)
	rep, _ := unwindJSON(t, nil, core, exe)
	if rep.Core.Arch != "ppc" {
		t.Errorf("arch = %q, want ppc", rep.Core.Arch)
	}
	compareWithReferences(t, g, eu, rep)
	if len(eu) != 2 {
		t.Fatalf("eu-stack shows %d threads, want 2", len(eu))
	}
	expectLongerReference(t, g, eu, rep)
	expectFunctions(t, rep.thread(rep.Core.CrashedTID), "raise", "sigusr2", "stdarg", "backtracegen", "start", "start_thread", "__clone")
	expectFunctions(t, rep.thread(rep.Core.PID), "pthread_join", "main", "generic_start_main", "__libc_start_main")
}

// expectLongerReference checks every thread eu-stack shows: gdb's and
// eu-stack's pcs, without the nameless frames either ends a thread with
// (gdb's "0x0 ??" after __libc_start_main), must be one a prefix of the
// other, and coreunwind's must equal the longer.
func expectLongerReference(t *testing.T, g, eu map[int]*refbt.Thread, rep *report) {
	t.Helper()
	for tid, th := range eu {
		cu := rep.thread(tid)
		if cu == nil || g[tid] == nil {
			t.Errorf("thread %d missing: coreunwind %v, gdb %v", tid, cu, g[tid])
			continue
		}
		want, other := pcList(trimUnnamed(th.Frames)), pcList(trimUnnamed(g[tid].Frames))
		if len(other) > len(want) {
			want, other = other, want
		}
		if fmt.Sprint(want[:len(other)]) != fmt.Sprint(other) {
			t.Errorf("thread %d: eu-stack and gdb disagree: %x vs %x", tid, pcList(th.Frames), pcList(g[tid].Frames))
		}
		var got []uint64
		for _, f := range cu.Frames {
			pc, _ := f.pc()
			got = append(got, pc)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("thread %d: pcs %x, want %x\n%s", tid, got, want, formatFrames(cu, 20))
		}
	}
}

// TestPPC64Qemu: qemu-user cores of programs built here for ppc64le and
// big-endian ppc64, compared with gdb-multiarch and eu-stack on the same
// core. eu-stack has no sysroot option, so for the dynamic programs gdb
// is its only reference (used as both, pcs only), as for the programs
// without CFI, where eu-stack repeats frames.
func TestPPC64Qemu(t *testing.T) {
	t.Parallel()
	testenv.NeedTool(t, "gdb-multiarch")
	cases := []struct {
		name, prog, mode string
		sig              int
		funcs            []string
	}{
		{"static-segv", "static", "segv", 11, []string{"crash_leaf", "crash_mid", "crash_top", "worker", "start_thread"}},
		{"static-abort", "static", "abort", 6, []string{"raise", "abort", "crash_leaf", "crash_mid", "crash_top", "worker"}},
		{"O2-nofp-segv", "nofp", "segv", 11, []string{"crash_leaf", "crash_mid", "crash_top", "worker"}},
		{"dynamic-abort", "dyn", "abort", 6, []string{"raise", "abort", "crash_leaf", "crash_mid", "crash_top", "worker"}},
		{"null-function-pointer", "nullfn", "", 11, []string{"dispatch", "main"}},
		{"no-cfi", "nocfi", "", 11, []string{"crash_cb", "nocfi_c", "nocfi_b", "nocfi_a", "main"}},
		{"no-cfi-no-frame-pointer", "nocfi-nofp", "", 11, []string{"crash_cb", "nocfi_c", "nocfi_b", "nocfi_a", "main"}},
	}
	for _, a := range ppcArches {
		for _, tc := range cases {
			t.Run(a.arch.Name+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				var args []string
				if tc.mode != "" {
					args = append(args, tc.mode)
				}
				c := qemuCrash(t, a.arch, a.prefix+"-"+tc.prog, args...)
				g := ppcGDB(t, a.arch, c.Exe, c.Core)
				var flags []string
				// gdb used as its own second reference: without the "0x0
				// ??" frame it ends the main thread with (past the entry,
				// it takes the outermost frame's null lr save word for a
				// return address), which eu-stack does not print either.
				eu := pcsOnly(dropNullTail(g))
				switch tc.prog {
				case "dyn":
					flags = []string{"--sysroot", a.arch.Sysroot()}
				case "nocfi", "nocfi-nofp":
					expectNoFDE(t, c.Exe, "nocfi_a", "nocfi_b", "nocfi_c")
				default:
					eu, _ = runEuStack(t, c.Exe, c.Core)
				}
				rep, _ := unwindJSON(t, flags, c.Core, c.Exe)
				compareWithReferences(t, g, eu, rep)
				expectCrashedThread(t, rep, a.arch.Name, tc.sig, tc.funcs...)
			})
		}
	}
}

// TestPPC64SignalHandlerCrash: the worker raises SIGUSR1 and the handler
// crashes, so the core holds qemu's sigreturn trampoline and the signal
// context (ppc64le, big-endian ppc64 and 32-bit ppc). 64-bit processes
// get the rt_sigframe and "li r0,172; sc" whatever the handler; a 32-bit
// handler installed by signal() gets the older sigframe and "li r0,119;
// sc", one with SA_SIGINFO the rt_sigframe. gdb-multiarch does not know
// qemu's 64-bit trampoline (on the core it prints "?? ()" for it and then
// "0x0 ??") and eu-stack stops there, so the reference is a live gdb
// through qemu's gdbstub, stopped twice in the same run (qemu-user has no
// address randomization): when SIGUSR1 arrives, the thread's stack is
// exactly what the signal context must give below the signal frame; when
// SIGSEGV arrives in the handler, gdb's frames up to the trampoline are
// the frames above it.
func TestPPC64SignalHandlerCrash(t *testing.T) {
	t.Parallel()
	testenv.NeedTool(t, "gdb-multiarch")
	type mode struct{ name, li, handler string }
	signal := mode{"signal", "0x380000ac", "on_usr1"}
	for _, a := range ppcArches {
		modes := []mode{signal}
		if a.arch == testenv.PPC {
			modes = []mode{{"signal", "0x38000077", "on_usr1"}, {"siginfo", "0x380000ac", "on_usr1_info"}}
		}
		for _, m := range modes {
			t.Run(a.arch.Name+"/"+m.name, func(t *testing.T) {
				t.Parallel()
				c := qemuCrash(t, a.arch, a.prefix+"-static", m.name)
				rep, _ := unwindJSON(t, nil, c.Core, c.Exe)
				live := qemuLiveStops(t, a.arch, c.Exe, []string{m.name}, 2)
				atSignal, inHandler := live[0], live[1]
				th := rep.thread(rep.Core.CrashedTID)
				// gdb ends the interrupted thread with "0x0 ??"; frame 2
				// is qemu's page holding "li r0,N; sc".
				expectSignalHandlerFrames(t, c, th, inHandler, trimUnnamed(atSignal), m.li+"\t0x44000002")
				expectFunctions(t, th, "handler_crash", m.handler, "raise", "crash_leaf", "crash_mid", "crash_top", "worker")
			})
		}
	}
}

// TestPPC64LEPprofAndTriage: the pprof profile and the triage bucket of
// a ppc64le core agree with its JSON report (checkPprofAndTriage).
func TestPPC64LEPprofAndTriage(t *testing.T) {
	t.Parallel()
	checkPprofAndTriage(t, qemuCrash(t, testenv.PPC64LE, "ppc-static", "segv"), "SIGSEGV")
}

// TestPPCPprofAndTriage: the same for a 32-bit ppc core.
func TestPPCPprofAndTriage(t *testing.T) {
	t.Parallel()
	checkPprofAndTriage(t, qemuCrash(t, testenv.PPC, "ppc32-static", "segv"), "SIGSEGV")
}

// dropNullTail is a copy of a reference without the frames of pc 0 that
// end its threads.
func dropNullTail(ref map[int]*refbt.Thread) map[int]*refbt.Thread {
	out := map[int]*refbt.Thread{}
	for tid, th := range ref {
		fs := th.Frames
		for len(fs) > 0 && fs[len(fs)-1].HasPC && fs[len(fs)-1].PC == 0 {
			fs = fs[:len(fs)-1]
		}
		out[tid] = &refbt.Thread{TID: tid, Frames: fs}
	}
	return out
}
