package e2e

import (
	"debug/elf"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// sparc64 cores of the tests' own programs. qemu-sparc64 7.2 writes no
// core, so they are written from the gdbstub at the fatal signal
// (stubLiveCore), after flush_windows has spilled every thread's
// register windows into their save areas as a kernel does before it
// writes a core (qemu keeps them in its registers, where neither gdb
// nor a core sees them).
var sparc64Stub = stubArch{
	cross:   testenv.SPARC64,
	machine: elf.EM_SPARCV9,
	order:   binary.BigEndian,
	// pr_reg: %g0–%g7, %o0–%o7, %l0–%l7, %i0–%i7, tstate (gdb's "state":
	// ccr, asi, pstate and cwp in the kernel's layout), tpc, tnpc, y.
	regs: `["g%d" % i for i in range(8)] + ["o%d" % i for i in range(6)] + ["sp", "o7"]` +
		` + ["l%d" % i for i in range(8)] + ["i%d" % i for i in range(6)] + ["fp", "i7", "state", "pc", "npc", "y"]`,
	nregs:        36,
	sp:           14,
	code:         "(33, 15, 31)",
	prstatusSize: 408,
	atStop:       "python flush_windows()",
	signals:      map[string]int{"SIGILL": 4, "SIGTRAP": 5, "SIGABRT": 6, "SIGFPE": 8, "SIGBUS": 10, "SIGSEGV": 11, "SIGUSR1": 30},
}

func init() {
	addCrossCrashPrograms("sparc64", testenv.SPARC64, []string{"-static"}, []string{"-no-pie"})
}

// TestSparc64Live: programs built for sparc64 crash under qemu-sparc64's
// gdbstub (a NULL store in a leaf, abort in a worker thread, -O2
// without a frame pointer, a call through a NULL function pointer,
// functions without CFI with and without a frame pointer); the core is
// written from gdb's snapshot at the fatal signal. Every thread's frames
// equal the live gdb's (after the windows were flushed) and eu-stack's
// on the written core (gdb-multiarch 13 reads no registers from a
// sparc64 core). Static programs only: in the cross sysroot's libc.so,
// the live gdb repeats frames and stops ("previous frame identical")
// even with the windows flushed, so it is no reference there.
func TestSparc64Live(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, prog, mode string
		sig              int
		funcs            []string
	}{
		{"static-segv", "static", "segv", 11, []string{"crash_leaf", "crash_mid", "crash_top", "worker", "start_thread"}},
		{"static-abort", "static", "abort", 6, []string{"raise", "abort", "crash_leaf", "crash_mid", "crash_top", "worker"}},
		{"O2-nofp-segv", "nofp", "segv", 11, []string{"crash_leaf", "crash_mid", "crash_top", "worker"}},
		{"null-function-pointer", "nullfn", "", 11, []string{"dispatch", "main"}},
		{"no-cfi", "nocfi", "", 11, []string{"crash_cb", "nocfi_c", "nocfi_b", "nocfi_a", "main"}},
		{"no-cfi-no-frame-pointer", "nocfi-nofp", "", 11, []string{"crash_cb", "nocfi_c", "nocfi_b", "nocfi_a", "main"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var args []string
			if tc.mode != "" {
				args = append(args, tc.mode)
			}
			live := stubLiveCore(t, sparc64Stub, "sparc64-"+tc.prog, 1, args...)
			if tc.prog == "nocfi" || tc.prog == "nocfi-nofp" {
				expectNoFDE(t, live.Exe, "nocfi_a", "nocfi_b", "nocfi_c")
			}
			eu, _ := runEuStack(t, live.Exe, live.Core)
			rep, _ := unwindJSON(t, nil, live.Core, live.Exe)
			compareWithReferences(t, live.Threads, eu, rep)
			expectCrashedThread(t, rep, "sparc64", tc.sig, tc.funcs...)
			if live.Signal != tc.sig {
				t.Errorf("live gdb's signal %d, want %d", live.Signal, tc.sig)
			}
		})
	}
}

// TestSparc64SignalHandlerCrash: the worker raises SIGUSR1 and the
// handler crashes, so the stack holds the kernel-layout struct
// rt_signal_frame qemu builds (the handler's save area, siginfo, pt_regs)
// and the handler returns to glibc's __rt_sigreturn_stub. The live gdb
// stops twice in one run (qemu-user has no address randomization): at
// SIGUSR1, the worker's stack is what the signal frame must give below
// the stub; at SIGSEGV in the handler, gdb's frames are the reference.
func TestSparc64SignalHandlerCrash(t *testing.T) {
	t.Parallel()
	live := stubLiveCore(t, sparc64Stub, "sparc64-static", 2, "signal")
	rep, _ := unwindJSON(t, nil, live.Core, live.Exe)
	eu, _ := runEuStack(t, live.Exe, live.Core)
	compareWithReferences(t, live.Threads, eu, rep)
	th := rep.thread(rep.Core.CrashedTID)
	atSignal := trimUnnamed(live.Stops[0])
	if th == nil || len(th.Frames) < 3+len(atSignal) {
		t.Fatalf("crashed thread %v; live gdb at the signal %v", th, atSignal)
	}
	// Frame 2 is the stub the handler returns to: "mov 101, %g1; ta
	// 0x6d", read from the core by gdb.
	stub, _ := th.Frames[2].pc()
	gdb := testenv.NeedTool(t, "gdb-multiarch")
	mem := runTool(t, gdb, "-batch", "-nx", "-ex", fmt.Sprintf("x/2wx %#x", stub), live.Exe, live.Core)
	if !strings.Contains(mem, "0x82102065\t0x91d0206d") {
		t.Errorf("frame 2 (pc %#x) is not __rt_sigreturn_stub; gdb reads:\n%s", stub, mem)
	}
	for i, f := range atSignal {
		pc, _ := th.Frames[3+i].pc()
		if pc != f.PC {
			t.Errorf("frame %d: pc %#x, live gdb at SIGUSR1 %#x\n%s", 3+i, pc, f.PC, formatFrames(th, 20))
		}
	}
	if f := th.Frames[3]; f.Trust != "context" {
		t.Errorf("the interrupted frame's trust = %q, want context (registers from the signal context)", f.Trust)
	}
	expectFunctions(t, th, "handler_crash", "on_usr1", "__rt_sigreturn_stub", "raise", "crash_leaf", "crash_mid", "crash_top", "worker")
}

// TestSparc64PprofAndTriage: pprof and triage on a sparc64 core go
// through the same generic paths as every other arch's.
func TestSparc64PprofAndTriage(t *testing.T) {
	t.Parallel()
	live := stubLiveCore(t, sparc64Stub, "sparc64-static", 1, "segv")
	checkPprofAndTriage(t, live.crash, "SIGSEGV")
}
