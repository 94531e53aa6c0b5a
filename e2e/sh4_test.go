package e2e

import (
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// SuperH (sh4) cores. Debian 12's sh4 C library cannot start a program
// (gcc 12's sh4 back end drops the load of a word a loop only tests
// against zero: static programs spin in __libc_start_main's walk over
// envp, ld.so faults relocating itself), so the crash programs are
// linked with -nostdlib against progs/sh4rt.c: its _start, raw system
// calls, clone(2) threads and rt_sigaction(2) signals. qemu-sh4 writes
// their cores. There is no dynamic sh4 program.
var sh4 = testenv.SH4

func init() {
	addCrossCrashPrograms("sh4", sh4, []string{"-nostdlib", "-static", "sh4rt.c", "-lgcc"}, nil)
}

// TestSH4Qemu: programs built for sh4 crash under qemu-sh4 (a NULL store
// in a leaf, abort in a worker thread, code built without a frame
// pointer, a call through a NULL function pointer, functions without
// CFI with and without a frame pointer); every thread's frames equal
// gdb-multiarch's on the same core, pc for pc (elfutils 0.188 unwinds
// no sh core).
func TestSH4Qemu(t *testing.T) {
	t.Parallel()
	testenv.NeedTool(t, "gdb-multiarch")
	cases := []struct {
		name, prog, mode string
		sig              int
		funcs            []string
	}{
		{"static-segv", "static", "segv", 11, []string{"crash_leaf", "crash_mid", "crash_top", "worker", "start_thread", "clone_thread"}},
		{"static-abort", "static", "abort", 6, []string{"raise", "abort", "crash_leaf", "crash_mid", "crash_top", "worker"}},
		{"O2-nofp-segv", "nofp", "segv", 11, []string{"crash_leaf", "crash_mid", "crash_top", "worker"}},
		{"null-function-pointer", "nullfn", "", 11, []string{"dispatch", "main"}},
		{"no-cfi", "nocfi", "", 11, []string{"crash_cb", "nocfi_c", "nocfi_b", "nocfi_a", "main", "start_main", "_start"}},
		{"no-cfi-no-frame-pointer", "nocfi-nofp", "", 11, []string{"crash_cb", "nocfi_c", "nocfi_b", "nocfi_a", "main"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var args []string
			if tc.mode != "" {
				args = append(args, tc.mode)
			}
			c := qemuCrash(t, sh4, "sh4-"+tc.prog, args...)
			if tc.prog == "nocfi" || tc.prog == "nocfi-nofp" {
				expectNoFDE(t, c.Exe, "nocfi_a", "nocfi_b", "nocfi_c")
			}
			g, _ := runGDBTool(t, "gdb-multiarch", c.Exe, c.Core, "-iex", "set print frame-arguments none")
			rep, _ := unwindJSON(t, nil, c.Core, c.Exe)
			compareWithReferences(t, g, pcsOnly(g), rep)
			expectCrashedThread(t, rep, "sh", tc.sig, tc.funcs...)
			for _, th := range rep.Threads {
				if th.Error != nil {
					t.Errorf("thread %d: %s", th.TID, *th.Error)
				}
			}
		})
	}
}

// TestSH4SignalHandlerCrash: the worker raises SIGUSR1 and the handler
// crashes, so the core holds qemu's trampoline ("mov.w @(4,pc),r3;
// trapa #0x10" and the system call number) and the signal context: the
// old struct sigframe for a handler installed without SA_SIGINFO, the
// rt_sigframe with it. gdb knows neither qemu's trampoline nor its
// frames, so the reference is a live gdb through qemu's gdbstub,
// stopped twice in the same run: at SIGUSR1 (the interrupted frames)
// and at the SIGSEGV in the handler.
func TestSH4SignalHandlerCrash(t *testing.T) {
	t.Parallel()
	testenv.NeedTool(t, "gdb-multiarch")
	for _, tc := range []struct {
		mode, handler, trampoline string
	}{
		{"signal", "on_usr1", "0xc3109300\t0x93000077"},
		{"siginfo", "on_usr1_info", "0xc3109300\t0x000000ad"},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			t.Parallel()
			c := qemuCrash(t, sh4, "sh4-static", tc.mode)
			rep, _ := unwindJSON(t, nil, c.Core, c.Exe)
			live := qemuLiveStops(t, sh4, c.Exe, []string{tc.mode}, 2)
			atSignal, inHandler := live[0], live[1]
			th := rep.thread(rep.Core.CrashedTID)
			expectSignalHandlerFrames(t, c, th, inHandler, trimUnnamed(atSignal), tc.trampoline)
			expectFunctions(t, th, "handler_crash", tc.handler, "raise", "crash_leaf", "crash_mid", "crash_top", "worker", "start_thread", "clone_thread")
		})
	}
}

// TestSH4PprofAndTriage: the pprof profile and the triage bucket of an
// sh4 core agree with its JSON report (checkPprofAndTriage).
func TestSH4PprofAndTriage(t *testing.T) {
	t.Parallel()
	checkPprofAndTriage(t, qemuCrash(t, sh4, "sh4-static", "segv"), "SIGSEGV")
}
