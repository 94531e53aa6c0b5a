package e2e

import (
	"testing"

	"github.com/coreunwind/coreunwind/internal/refbt"
	"github.com/coreunwind/coreunwind/internal/testenv"
)

// mipsArches are the MIPS ABIs the tests build for: o32 big- and
// little-endian (4-byte registers, EF_R0 = 6 in the core's register
// set) and n64 little-endian, each with the prefix of its programs'
// names. qemu-user writes cores for all three.
var mipsArches = []struct {
	prefix string
	arch   testenv.CrossArch
}{{"mips", testenv.MIPS}, {"mipsel", testenv.MIPSEL}, {"mips64el", testenv.MIPS64EL}}

// The nocfi programs (gcc's frames with s8, and without) are unwound by
// the prologue decoder and ra; the dynamic one is not PIE, as gdb needs
// (a qemu-user core records no mapping for the executable).
func init() {
	for _, a := range mipsArches {
		addCrossCrashPrograms(a.prefix, a.arch, []string{"-static", "-Wl,-z,separate-code"}, []string{"-no-pie"})
	}
}

// mipsGDB is gdb-multiarch on a core of arch, with the cross C library
// as the sysroot.
func mipsGDB(t *testing.T, arch testenv.CrossArch, exe, core string) map[int]*refbt.Thread {
	t.Helper()
	g, _ := runGDBTool(t, "gdb-multiarch", exe, core, "-iex", "set sysroot "+arch.Sysroot(), "-iex", "set print frame-arguments none")
	return g
}

// TestMIPSQemu: programs built for each MIPS ABI crash under qemu-user
// (a NULL store in a leaf, abort in a worker thread, code built without
// a frame pointer, a dynamic program, a call through a NULL function
// pointer, functions without CFI); every thread's frames equal
// gdb-multiarch's on the same core, pc for pc (gdb is its own second
// reference: elfutils 0.188 unwinds no MIPS core).
func TestMIPSQemu(t *testing.T) {
	t.Parallel()
	testenv.NeedTool(t, "gdb-multiarch")
	cases := []struct {
		name, prog, mode string
		sig              int
		funcs            []string
	}{
		{"static-segv", "static", "segv", 11, []string{"crash_leaf", "crash_mid", "crash_top", "worker", "start_thread"}},
		{"static-abort", "static", "abort", 6, []string{"abort", "crash_leaf", "crash_mid", "crash_top", "worker"}},
		{"O2-nofp-segv", "nofp", "segv", 11, []string{"crash_leaf", "crash_mid", "crash_top", "worker"}},
		{"dynamic-abort", "dyn", "abort", 6, []string{"abort", "crash_leaf", "crash_mid", "crash_top", "worker"}},
		{"null-function-pointer", "nullfn", "", 11, []string{"dispatch", "main"}},
		{"no-cfi", "nocfi", "", 11, []string{"crash_cb", "nocfi_c", "nocfi_b", "nocfi_a", "main"}},
		{"no-cfi-no-frame-pointer", "nocfi-nofp", "", 11, []string{"crash_cb", "nocfi_c", "nocfi_b", "nocfi_a", "main"}},
	}
	for _, a := range mipsArches {
		for _, tc := range cases {
			t.Run(a.arch.Name+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				var args []string
				if tc.mode != "" {
					args = append(args, tc.mode)
				}
				c := qemuCrash(t, a.arch, a.prefix+"-"+tc.prog, args...)
				g := mipsGDB(t, a.arch, c.Exe, c.Core)
				var flags []string
				switch tc.prog {
				case "dyn":
					flags = []string{"--sysroot", a.arch.Sysroot()}
				case "nocfi", "nocfi-nofp":
					expectNoFDE(t, c.Exe, "nocfi_a", "nocfi_b", "nocfi_c")
				}
				rep, _ := unwindJSON(t, flags, c.Core, c.Exe)
				compareWithReferences(t, g, pcsOnly(g), rep)
				expectCrashedThread(t, rep, a.arch.Name, tc.sig, tc.funcs...)
			})
		}
	}
}

// TestMIPSSignalHandlerCrash: the worker raises SIGUSR1 and the handler
// crashes, so the core holds qemu's sigreturn trampoline (written into
// the rt_sigframe: "li v0,4193; syscall" for o32, "li v0,5211; syscall"
// for n64) and the signal context. The reference is a live gdb through
// qemu's gdbstub, stopped twice in the same run: at SIGUSR1 (the
// interrupted frames) and at the SIGSEGV in the handler.
func TestMIPSSignalHandlerCrash(t *testing.T) {
	t.Parallel()
	testenv.NeedTool(t, "gdb-multiarch")
	for _, a := range mipsArches {
		li := "0x24021061"
		if a.arch == testenv.MIPS64EL {
			li = "0x2402145b"
		}
		t.Run(a.arch.Name, func(t *testing.T) {
			t.Parallel()
			c := qemuCrash(t, a.arch, a.prefix+"-static", "siginfo")
			rep, _ := unwindJSON(t, nil, c.Core, c.Exe)
			live := qemuLiveStops(t, a.arch, c.Exe, []string{"siginfo"}, 2)
			atSignal, inHandler := live[0], live[1]
			th := rep.thread(rep.Core.CrashedTID)
			// The live gdb stops at start_thread (static glibc has no
			// CFI for it, and gdb's prologue reader gives up there);
			// coreunwind reads start_thread's prologue and ends at
			// __thread_start, whose CFI marks ra undefined: the
			// outermost frame, past gdb's last.
			th = withoutOutermost(t, th, "__thread_start")
			expectSignalHandlerFrames(t, c, th, inHandler, trimUnnamed(atSignal), li+"\t0x0000000c")
			expectFunctions(t, th, "handler_crash", "on_usr1_info", "gsignal", "crash_leaf", "crash_mid", "crash_top", "worker")
		})
	}
}

// TestMIPSPprofAndTriage: the pprof profile and the triage bucket of a
// MIPS core agree with its JSON report (checkPprofAndTriage).
func TestMIPSPprofAndTriage(t *testing.T) {
	t.Parallel()
	checkPprofAndTriage(t, qemuCrash(t, testenv.MIPS, "mips-static", "segv"), "SIGSEGV")
}

// withoutOutermost returns th without its last frame, which must be the
// function outermost (a frame beyond the live reference's last).
func withoutOutermost(t *testing.T, th *reportThread, outermost string) *reportThread {
	t.Helper()
	if th == nil || len(th.Frames) == 0 {
		t.Fatalf("no frames in %v", th)
	}
	last := th.Frames[len(th.Frames)-1]
	if last.Function != outermost {
		t.Fatalf("the outermost frame is not %s:\n%s", outermost, formatFrames(th, 20))
	}
	cp := *th
	cp.Frames = th.Frames[:len(th.Frames)-1]
	return &cp
}
