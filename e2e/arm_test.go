package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/refbt"
	"github.com/coreunwind/coreunwind/internal/testenv"
)

// 32-bit ARM (armhf) cores qemu-user writes for programs built here with
// Debian's cross compiler (Thumb-2 by default), compared with
// gdb-multiarch on the same core. eu-stack is no reference here: it
// cannot unwind the static programs' libc code, which has only
// .ARM.exidx, and stops inside the dynamic libc without libc6-dbg's
// .debug_frame; gdb reads .ARM.exidx and is used as both references
// (pcs only for the second).

var armhf = testenv.ARMHF

func init() {
	gcc, gxx := armhf.CC(), armhf.Triple+"-g++"
	add := func(name, compiler, out string, flags ...string) {
		programs[name] = cc(compiler, out, flags...)
	}
	static := []string{"-static", "-Wl,-z,separate-code"}
	add("arm-static", gcc, "crash", append([]string{"-g", "-O1", "crossarch.c", "-lpthread"}, static...)...)
	add("arm-nofp", gcc, "crash", append([]string{"-g", "-O2", "-fomit-frame-pointer", "crossarch.c", "-lpthread"}, static...)...)
	add("arm-marm-fp", gcc, "crash", append([]string{"-g", "-O2", "-marm", "-fno-omit-frame-pointer", "crossarch.c", "-lpthread"}, static...)...)
	add("arm-dyn", gcc, "crash", "-g", "-O1", "-Wl,-z,separate-code", "crossarch.c", "-lpthread")
	// -O1: at -O2 handler_table tail-calls dispatch, and gdb rebuilds
	// its frame from DWARF call-site information; gdb is both
	// references here, and that frame is not on the stack.
	add("arm-nullfn", gcc, "nullfn", append([]string{"-g", "-O1", "nullfn.c"}, static...)...)
	add("arm-exception", gxx, "exception", append([]string{"-g", "-O1", "exception.cc"}, static...)...)
	// Functions with neither CFI nor EXIDX entries (ld covers them with
	// EXIDX_CANTUNWIND): their prologues are what is left, in Thumb and
	// in ARM code.
	add("arm-sigtramp", gcc, "sigtramp", append([]string{"-g", "-O1", "sigtramp_arm.c"}, static...)...)
	programs["arm-nocfi"] = nocfiBuild(armhf.Triple+"-", nil, static)
	programs["arm-nocfi-marm"] = nocfiBuild(armhf.Triple+"-", []string{"-marm"}, static)
}

// armCrash copies a built program into a fresh directory and crashes it
// under qemu-arm.
func armCrash(t *testing.T, prog string, args ...string) crash {
	t.Helper()
	exe := buildProgram(t, prog)
	dir := t.TempDir()
	local := filepath.Join(dir, filepath.Base(exe))
	b, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(local, b, 0o755); err != nil {
		t.Fatal(err)
	}
	core, _ := testenv.CrashUnderQemu(t, armhf, local, args...)
	return crash{Dir: dir, Exe: local, Core: core}
}

// armGDB is gdb-multiarch on an arm core, with the cross C library as the
// sysroot.
func armGDB(t *testing.T, exe, core string) map[int]*refbt.Thread {
	t.Helper()
	g, _ := runGDBTool(t, "gdb-multiarch", exe, core, "-iex", "set sysroot "+armhf.Sysroot(), "-iex", "set print frame-arguments none")
	// gdb's last frame at pc 0 is where its prologue analyzer read a
	// zero lr (clone's child, __clone_internal): the end of the stack,
	// which coreunwind reports by stopping.
	for _, th := range g {
		for n := len(th.Frames); n > 0 && th.Frames[n-1].PC == 0; n = len(th.Frames) {
			th.Frames = th.Frames[:n-1]
		}
	}
	return g
}

// TestARMQemu: every thread of qemu-user cores against gdb-multiarch:
// a NULL store and abort through libc (EXIDX in libc, the prologues of
// libc code without tables), -O2 without frame pointers, ARM code with
// frame pointers, the dynamic libc through the link map and --sysroot, a
// call through a null function pointer (the link register), a C++
// exception reaching std::terminate (extab entries with
// __gxx_personality_v0), and functions without any unwind info.
func TestARMQemu(t *testing.T) {
	t.Parallel()
	testenv.NeedTool(t, "gdb-multiarch")
	cases := []struct {
		name, prog, mode string
		sig              int
		funcs            []string
	}{
		{"static-segv", "arm-static", "segv", 11, []string{"crash_leaf", "crash_mid", "crash_top", "worker", "start_thread"}},
		{"static-abort", "arm-static", "abort", 6, []string{"raise", "abort", "crash_leaf", "crash_mid", "crash_top", "worker"}},
		{"O2-nofp-segv", "arm-nofp", "segv", 11, []string{"crash_leaf", "crash_mid", "crash_top", "worker"}},
		{"O2-nofp-abort", "arm-nofp", "abort", 6, []string{"raise", "abort", "crash_leaf", "crash_mid", "crash_top", "worker"}},
		{"marm-fp-abort", "arm-marm-fp", "abort", 6, []string{"raise", "abort", "crash_leaf", "crash_mid", "crash_top", "worker"}},
		{"dynamic-abort", "arm-dyn", "abort", 6, []string{"raise", "abort", "crash_leaf", "crash_mid", "crash_top", "worker"}},
		{"dynamic-segv", "arm-dyn", "segv", 11, []string{"crash_leaf", "crash_mid", "crash_top", "worker"}},
		{"null-function-pointer", "arm-nullfn", "", 11, []string{"dispatch", "main"}},
		{"cxx-terminate", "arm-exception", "", 6, []string{"abort", "std::terminate", "shop::Basket::checkout", "shop::process", "main"}},
		{"no-unwind-info", "arm-nocfi", "", 11, []string{"crash_cb", "nocfi_c", "nocfi_b", "nocfi_a", "main"}},
		{"no-unwind-info-marm", "arm-nocfi-marm", "", 11, []string{"crash_cb", "nocfi_c", "nocfi_b", "nocfi_a", "main"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var args []string
			if tc.mode != "" {
				args = append(args, tc.mode)
			}
			c := armCrash(t, tc.prog, args...)
			g := armGDB(t, c.Exe, c.Core)
			var flags []string
			if tc.prog == "arm-dyn" {
				flags = []string{"--sysroot", armhf.Sysroot()}
			}
			rep, _ := unwindJSON(t, flags, c.Core, c.Exe)
			compareWithReferences(t, g, pcsOnly(g), rep)
			if tc.prog != "arm-dyn" {
				// The dynamic program's main thread is cut in the
				// stripped libc (pthread_join) before main.
				outermostNamedByGDB(t, rep, c, flags)
			}
			th := expectCrashedThread(t, rep, "arm", tc.sig, tc.funcs...)
			if tc.mode == "abort" {
				// libc's raise and pthread_kill have only EXIDX entries:
				// the walk through them must use them (the fallbacks
				// could give the same pcs).
				exidx := 0
				for _, f := range th.Frames {
					if f.Trust == "unwind_table" {
						exidx++
					}
				}
				if exidx == 0 {
					t.Errorf("no frame of the crashed thread was found by EXIDX\n%s", formatFrames(th, 20))
				}
			}
		})
	}
}

// outermostNamedByGDB: the outermost frame of the thread that ran main
// is crt1's _start (a Thumb function symbol of size 0), as
// gdb-multiarch's info symbol names its pc on the same core.
func outermostNamedByGDB(t *testing.T, rep *report, c crash, flags []string) {
	t.Helper()
	for _, th := range rep.Threads {
		if !slices.ContainsFunc(th.Frames, func(f reportFrame) bool { return f.Function == "main" }) {
			continue
		}
		last := th.Frames[len(th.Frames)-1]
		out, err := exec.Command("gdb-multiarch", "-batch", "-nx", "-iex", "set sysroot "+armhf.Sysroot(),
			"-ex", "info symbol "+last.PC, c.Exe, c.Core).CombinedOutput()
		var m []string
		for _, line := range strings.Split(string(out), "\n") {
			if m = gdbInfoSymbolRE.FindStringSubmatch(line); m != nil {
				break
			}
		}
		if err != nil || m == nil || m[1] != "_start" {
			t.Fatalf("gdb-multiarch's info symbol %s: %v\n%s", last.PC, err, out)
		}
		if last.Function != m[1] {
			t.Errorf("thread %d's outermost frame %s is %q (flags %q); gdb-multiarch says %s", th.TID, last.PC, last.Function, flags, m[1])
		}
		return
	}
	t.Errorf("no thread ran main")
}

// TestARMSignalHandlerCrash: a handler that crashes, returning through
// each kind of trampoline: glibc's restorer (the Thumb-2
// __default_sa_restorer, "mov.w r7, #119; svc 0", which also has an EXIDX
// entry restoring every register), and, installed with the raw
// rt_sigaction (sigtramp_arm.c), an ARM-code "mov r7, #119; svc 0" with
// struct sigframe, a Thumb "movs r7, #173; svc 0" with struct
// rt_sigframe, and qemu's own trampoline (no SA_RESTORER). gdb-multiarch
// on the core loses the interrupted frames (it prints a wild pc after
// "<signal handler called>"), so, as for aarch64, the reference is a live
// gdb through qemu's gdbstub, stopped when SIGUSR1 arrives (the
// interrupted thread's stack, which the signal context must give) and
// when SIGSEGV arrives in the handler (the frames above the trampoline).
// The interrupted frame must come from the signal context (trust
// context), not from unwind tables.
func TestARMSignalHandlerCrash(t *testing.T) {
	t.Parallel()
	testenv.NeedTool(t, "gdb-multiarch")
	cases := []struct{ name, prog, mode, outer string }{
		{"glibc-restorer", "arm-static", "signal", "worker"},
		{"arm-sigframe", "arm-sigtramp", "arm-old", "main"},
		{"thumb-rt_sigframe", "arm-sigtramp", "thumb-rt", "main"},
		{"qemu-trampoline", "arm-sigtramp", "none-rt", "main"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := armCrash(t, tc.prog, tc.mode)
			rep, _ := unwindJSON(t, nil, c.Core, c.Exe)
			live := qemuLiveStops(t, armhf, c.Exe, []string{tc.mode}, 2)
			atSignal, inHandler := live[0], live[1]
			th := rep.thread(rep.Core.CrashedTID)
			if th == nil || len(inHandler) < 2 || len(atSignal) < 4 {
				t.Fatalf("crashed thread %v; live gdb in the handler %v, at the signal %v", th, inHandler, atSignal)
			}
			want := append(append(pcList(inHandler[:2]), 0), pcList(atSignal)...)
			if len(th.Frames) < len(want) {
				t.Fatalf("crashed thread has %d frames, want %d (2 in the handler, the trampoline, %d interrupted):\n%s",
					len(th.Frames), len(want), len(atSignal), formatFrames(th, 20))
			}
			for i := range want {
				if pc, _ := th.Frames[i].pc(); i != 2 && pc != want[i] {
					t.Errorf("frame %d: pc %#x, live gdb %#x\n%s", i, pc, want[i], formatFrames(th, 20))
				}
			}
			t.Logf("%d frames agree with live gdb (2 in the handler, %d at the signal)", len(want)-1, len(atSignal))
			if f := th.Frames[3]; f.Trust != "context" {
				t.Errorf("the interrupted frame's trust = %q, want context (registers from the signal context)\n%s", f.Trust, formatFrames(th, 20))
			}
			expectFunctions(t, th, "handler_crash", "on_usr1", "raise", tc.outer)
		})
	}
}

// TestARMPprofAndTriage: the pprof profile and the triage bucket of an
// armhf core agree with its JSON report (checkPprofAndTriage).
func TestARMPprofAndTriage(t *testing.T) {
	t.Parallel()
	checkPprofAndTriage(t, armCrash(t, "arm-static", "segv"), "SIGSEGV")
}

// TestARMStrippedFramePointer: functions without unwind info in a
// stripped program (no symbols, so no prologue to decode; ld's
// EXIDX_CANTUNWIND filler covers them) are unwound along gcc's frame
// pointers: in ARM code r11 → saved lr with the caller's r11 below it; in
// Thumb code r7, which points below the locals, with the pushed {r7, lr}
// above them. The reference is gdb-multiarch on the same core with the
// unstripped program (the addresses are the same); gdb itself stops
// after two frames on the stripped one. coreunwind must give the
// reference's pcs in order: in Thumb code all of them (from main on, the
// libc code with EXIDX entries), in ARM code up to nocfi_a (main is
// Thumb code, whose r7 the ARM frames do not chain).
func TestARMStrippedFramePointer(t *testing.T) {
	t.Parallel()
	strip := testenv.NeedTool(t, armhf.Triple+"-strip")
	for _, tc := range []struct {
		prog      string
		n, chains int // frames to compare (0: all), of which the chained ones from frame 2
	}{{"arm-nocfi-marm", 4, 2}, {"arm-nocfi", 0, 4}} {
		t.Run(tc.prog, func(t *testing.T) {
			t.Parallel()
			c := armCrash(t, tc.prog)
			stripped := c.Exe + ".stripped"
			runTool(t, strip, "-o", stripped, c.Exe)
			g := armGDB(t, c.Exe, c.Core)
			rep, _ := unwindJSON(t, nil, c.Core, stripped)
			th := rep.thread(rep.Core.CrashedTID)
			ref := g[rep.Core.CrashedTID]
			if th == nil || ref == nil || len(ref.Frames) < 5 {
				t.Fatalf("crashed thread: coreunwind %v, gdb %v", th, ref)
			}
			n := tc.n
			if n == 0 {
				n = len(ref.Frames)
			}
			if len(th.Frames) < n {
				t.Fatalf("coreunwind has %d frames on the stripped program, want at least %d\n%s", len(th.Frames), n, formatFrames(th, 20))
			}
			for i := 0; i < n; i++ {
				if pc, _ := th.Frames[i].pc(); pc != ref.Frames[i].PC {
					t.Errorf("frame %d: pc %#x, gdb on the unstripped program %#x (%s)\n%s", i, pc, ref.Frames[i].PC, ref.Frames[i].Func, formatFrames(th, 20))
				}
			}
			for i := 2; i < 2+tc.chains; i++ {
				if th.Frames[i].Trust != "frame_pointer" {
					t.Errorf("frame %d: trust %q, want frame_pointer\n%s", i, th.Frames[i].Trust, formatFrames(th, 20))
				}
			}
		})
	}
}
