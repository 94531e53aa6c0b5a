package e2e

import (
	"debug/elf"
	"encoding/binary"
	"encoding/json"
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
	programs["sparc64-crashkinds"] = cc(testenv.SPARC64.CC(), "crashkinds", "-g", "-O0", "crashkinds.c", "-lpthread", "-static")
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
	// Frame 2 is the stub the handler returns to: "mov 101, %g1; ta
	// 0x6d".
	expectStubSignalFrames(t, live, th, trimUnnamed(live.Stops[0]), "0x82102065\t0x91d0206d")
	expectFunctions(t, th, "handler_crash", "on_usr1", "__rt_sigreturn_stub", "raise", "crash_leaf", "crash_mid", "crash_top", "worker")
}

// TestSparc64PprofAndTriage: pprof and triage on a sparc64 core go
// through the same generic paths as every other arch's.
func TestSparc64PprofAndTriage(t *testing.T) {
	t.Parallel()
	live := stubLiveCore(t, sparc64Stub, "sparc64-static", 1, "segv")
	checkPprofAndTriage(t, live.crash, "SIGSEGV")
}

// TestCrashInfoSparc64: the crash kinds built for sparc64 (static),
// whose cores the test writes from the live gdb's snapshot at the signal
// (stubLiveCore). gdb-multiarch reads no registers from a sparc64 core,
// so the checks are what the program did: the faulting instruction,
// decoded by the package's own decoder, proves the NULL read and write
// of record.count (its offset as gdb prints it from the program's debug
// info); the wild call is the call before frame 1's delay slot.
func TestCrashInfoSparc64(t *testing.T) {
	t.Parallel()
	for _, k := range []struct {
		name, kind string
		summary    []string
	}{
		{"null-read", "null_pointer", []string{"read of field at offset ", " of a NULL pointer", noSiginfo}},
		{"null-write", "null_pointer", []string{"write of field at offset ", " of a NULL pointer", noSiginfo}},
		{"wild-call", "bad_jump", []string{"execution of address 0xdead0000, outside every mapping: the call `call %", " = 0xdead0000) in dispatch (frame #1) went there"}},
	} {
		t.Run(k.name, func(t *testing.T) {
			t.Parallel()
			live := stubLiveCore(t, sparc64Stub, "sparc64-crashkinds", 1, k.name)
			_, r := unwindJSON(t, []string{"--threads", "crashed"}, live.Core, live.Exe)
			var ci crashInfo
			if err := json.Unmarshal([]byte(r.Stdout), &ci); err != nil {
				t.Fatal(err)
			}
			if ci.Crash == nil {
				t.Fatalf("report has no crash analysis")
			}
			if ci.Crash.Kind != k.kind {
				t.Errorf("kind %q, want %q (%s)", ci.Crash.Kind, k.kind, ci.Crash.Summary)
			}
			for _, want := range k.summary {
				if !strings.Contains(ci.Crash.Summary, want) {
					t.Errorf("summary %q lacks %q", ci.Crash.Summary, want)
				}
			}
			if k.kind == "null_pointer" {
				off := runTool(t, testenv.NeedTool(t, "gdb-multiarch"), "-batch", "-nx", "-ex", "print "+recordCount, live.Exe)
				if f := strings.Fields(off); len(f) == 0 || !strings.Contains(ci.Crash.Summary, "offset "+f[len(f)-1]+" ") {
					t.Errorf("summary %q: the offset is not record.count's (gdb: %s)", ci.Crash.Summary, off)
				}
			}
		})
	}
}
