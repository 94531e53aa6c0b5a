package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/corefile"
	"github.com/coreunwind/coreunwind/internal/refbt"
	"github.com/coreunwind/coreunwind/internal/testenv"
)

// IBM Z (s390x) cores: elfutils' core written by a real s390x kernel, and
// cores qemu-user writes for programs built here with Debian's cross
// compiler. gdb-multiarch on the same core is the reference; eu-stack
// where it can read the program (it cannot on qemu cores of static
// programs: "invalid ELF file", even with -z separate-code).

var s390x = testenv.S390X

// s390xStatic are the link flags of the static programs: -z separate-code
// keeps their headers and text in qemu's core.
var s390xStatic = []string{"-static", "-Wl,-z,separate-code"}

func init() {
	gcc := s390x.CC()
	add := func(name, out string, flags ...string) {
		programs[name] = cc(gcc, out, flags...)
	}
	add("s390x-static", "crash", append([]string{"-g", "-O1", "crossarch.c", "-lpthread"}, s390xStatic...)...)
	add("s390x-O2", "crash", append([]string{"-g", "-O2", "-fomit-frame-pointer", "crossarch.c", "-lpthread"}, s390xStatic...)...)
	add("s390x-dyn", "crash", "-g", "-O1", "-Wl,-z,separate-code", "crossarch.c", "-lpthread")
	add("s390x-nullfn", "nullfn", append([]string{"-g", "-O2", "nullfn.c"}, s390xStatic...)...)
	add("s390x-frameleaf", "frameleaf", append([]string{"-g", "-O2", "frameleaf.c"}, s390xStatic...)...)
	add("s390x-reraise", "reraise", append([]string{"-g", "-O1", "reraise.c"}, s390xStatic...)...)
	// Functions without CFI: with a back chain (-mbackchain, the whole
	// program, as the ABI requires for the chain to be whole), and
	// without (only the stack scan finds their callers).
	programs["s390x-nocfi"] = nocfiBuild(s390x.Triple+"-", nil, s390xStatic)
	programs["s390x-nocfi-backchain"] = nocfiBuild(s390x.Triple+"-", []string{"-mbackchain"}, append([]string{"-mbackchain"}, s390xStatic...))
}

// s390xGDB is gdb-multiarch on an s390x core, with the cross C library as
// the sysroot, without the 0x0 frames gdb appends (dropZeroTail).
func s390xGDB(t *testing.T, exe, core string) map[int]*refbt.Thread {
	t.Helper()
	g, _ := runGDBTool(t, "gdb-multiarch", exe, core, "-iex", "set sysroot "+s390x.Sysroot(), "-iex", "set print frame-arguments none")
	return dropZeroTail(g)
}

// TestS390xElfutilsCore: the core a real s390x kernel wrote for elfutils'
// backtrace-child (static, two threads, SIGABRT from a handler). eu-stack
// is the reference, pc for pc on every thread: it walks to thread_start
// and _start. gdb-multiarch agrees where it prints frames: on the main
// thread (after which it appends a 0x0 frame, dropped), not on the
// crashed thread, where "thread apply all bt -frame-info
// location-and-address" prints only "PC not saved" (a plain bt prints
// the frames to thread_start, then that error).
func TestS390xElfutilsCore(t *testing.T) {
	t.Parallel()
	core := testenv.ElfutilsFile(t, "backtrace.s390x.core")
	exe := testenv.ElfutilsFile(t, "backtrace.s390x.exec")
	eu, _ := runEuStack(t, exe, core)
	g := s390xGDB(t, exe, core)
	rep, _ := unwindJSON(t, nil, core, exe)
	if rep.Core.Arch != "s390x" {
		t.Errorf("arch = %q, want s390x", rep.Core.Arch)
	}
	compareWithReferences(t, g, eu, rep)
	if th := g[rep.Core.PID]; th == nil || fmt.Sprint(pcList(th.Frames)) != fmt.Sprint(pcList(eu[rep.Core.PID].Frames)) {
		t.Errorf("gdb's main thread %v differs from eu-stack's %v", th, eu[rep.Core.PID])
	}
	expectEuStackPCs(t, eu, rep)
	expectFunctions(t, rep.thread(rep.Core.CrashedTID), "raise", "sigusr2", "stdarg", "backtracegen", "start", "start_thread", "thread_start")
}

// TestS390ElfutilsCore: the core a 64-bit s390x kernel wrote for
// elfutils' 31-bit backtrace-child (static, two threads, SIGABRT; 32-bit
// PSW and registers with the address-mode bit in the PSW address and in
// r14, and NT_S390_HIGH_GPRS beside them). eu-stack is the reference, pc
// for pc on every thread, to thread_start and _start. gdb-multiarch
// prints only "PC not saved" for both threads with "backtrace past-main"
// on (as the harness asks); with it off, "thread apply all bt" prints the
// main thread's pthread_join and main, which must be the start of
// eu-stack's, and still "PC not saved" for the crashed thread, while a
// plain "bt" prints the crashed thread's frames to thread_start before
// that error: eu-stack's.
func TestS390ElfutilsCore(t *testing.T) {
	t.Parallel()
	gdb := testenv.NeedTool(t, "gdb-multiarch")
	core := testenv.ElfutilsFile(t, "backtrace.s390.core")
	exe := testenv.ElfutilsFile(t, "backtrace.s390.exec")
	eu, _ := runEuStack(t, exe, core)
	rep, _ := unwindJSON(t, nil, core, exe)
	if rep.Core.Arch != "s390" {
		t.Errorf("arch = %q, want s390", rep.Core.Arch)
	}
	g := refbt.ParseGDB(runTool(t, gdb, "-batch", "-nx", "-ex", "thread apply all bt -frame-info location-and-address", exe, core))
	compareWithReferences(t, g, eu, rep)
	var gm []uint64
	if th := g[rep.Core.PID]; th != nil {
		gm = pcList(th.Frames)
	}
	em := pcList(eu[rep.Core.PID].Frames)
	if len(gm) < 2 || len(gm) > len(em) || fmt.Sprint(gm) != fmt.Sprint(em[:len(gm)]) {
		t.Errorf("gdb's main thread %x is not a prefix of eu-stack's %x", gm, em)
	}
	const mark = "--- bt ---"
	out := runTool(t, gdb, "-batch", "-nx", "-ex", "echo "+mark+"\\n", "-ex", "bt", exe, core)
	var gc []refbt.Frame
	if _, after, ok := strings.Cut(out, mark); ok {
		for _, line := range strings.Split(after, "\n") {
			if f, ok := refbt.ParseGDBFrame(line); ok {
				gc = append(gc, f)
			}
		}
	}
	if got, want := pcList(gc), pcList(eu[rep.Core.CrashedTID].Frames); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("gdb's bt of the crashed thread %x, eu-stack's %x:\n%s", got, want, out)
	}
	expectEuStackPCs(t, eu, rep)
	expectFunctions(t, rep.thread(rep.Core.CrashedTID), "raise", "sigusr2", "stdarg", "backtracegen", "start", "start_thread", "thread_start")
	expectFunctions(t, rep.thread(rep.Core.PID), "pthread_join", "main", "__libc_start_main", "_start")
}

// expectEuStackPCs: the core has eu-stack's two threads, and coreunwind's
// pcs are eu-stack's, thread for thread.
func expectEuStackPCs(t *testing.T, eu map[int]*refbt.Thread, rep *report) {
	t.Helper()
	if len(eu) != 2 {
		t.Fatalf("eu-stack shows %d threads, want 2", len(eu))
	}
	for tid, th := range eu {
		cu := rep.thread(tid)
		if cu == nil {
			t.Fatalf("thread %d missing", tid)
		}
		var got []uint64
		for _, f := range cu.Frames {
			pc, _ := f.pc()
			got = append(got, pc)
		}
		if want := pcList(th.Frames); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("thread %d: pcs %x, eu-stack %x\n%s", tid, got, want, formatFrames(cu, 20))
		}
	}
}

// TestS390xQemu: qemu-user cores of programs built here, compared with
// gdb-multiarch on the same core thread for thread (gdb used as both
// references, pcs only for the second, as eu-stack cannot read these
// programs). The dynamic program's libraries are found through the link
// map and --sysroot. gdb stops at the first function without CFI (nocfi_c:
// "previous frame identical"); coreunwind must agree up to there and
// continue to main, by the back chain or the stack scan.
func TestS390xQemu(t *testing.T) {
	t.Parallel()
	testenv.NeedTool(t, "gdb-multiarch")
	cases := []struct {
		name, prog, mode string
		sig              int
		funcs            []string
		trust            string // the trust of the frames without CFI
	}{
		{"static-segv", "s390x-static", "segv", 11, []string{"crash_leaf", "crash_mid", "crash_top", "worker", "start_thread", "thread_start"}, ""},
		{"static-abort", "s390x-static", "abort", 6, []string{"raise", "abort", "crash_leaf", "crash_mid", "crash_top", "worker"}, ""},
		{"O2-segv", "s390x-O2", "segv", 11, []string{"crash_leaf", "crash_mid", "crash_top", "worker"}, ""},
		{"dynamic-abort", "s390x-dyn", "abort", 6, []string{"raise", "abort", "crash_leaf", "crash_mid", "crash_top", "worker"}, ""},
		{"null-function-pointer", "s390x-nullfn", "", 11, []string{"dispatch", "main", "_start"}, ""},
		{"no-cfi-backchain", "s390x-nocfi-backchain", "", 11, []string{"crash_cb", "nocfi_c", "nocfi_b", "nocfi_a", "main", "_start"}, "frame_pointer"},
		{"no-cfi", "s390x-nocfi", "", 11, []string{"crash_cb", "nocfi_c", "nocfi_b", "nocfi_a", "main", "_start"}, "scan"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var args []string
			if tc.mode != "" {
				args = append(args, tc.mode)
			}
			c := qemuCrash(t, s390x, tc.prog, args...)
			var flags []string
			if tc.prog == "s390x-dyn" {
				flags = []string{"--sysroot", s390x.Sysroot()}
			}
			if tc.trust != "" {
				expectNoFDE(t, c.Exe, "nocfi_a", "nocfi_b", "nocfi_c")
			}
			// gdb's tail-call frames (handler_table's "jg dispatch" in
			// nullfn) are compared too: coreunwind rebuilds them from
			// the same call-site records.
			g := s390xGDB(t, c.Exe, c.Core)
			rep, _ := unwindJSON(t, flags, c.Core, c.Exe)
			compareWithReferences(t, g, pcsOnly(g), rep)
			th := expectCrashedThread(t, rep, "s390x", tc.sig, tc.funcs...)
			if tc.trust != "" {
				// main has CFI whose CFA is r11-based (-O0): the frame
				// above it is unwound by CFI only if main's r11 was
				// recovered from the save area its callee filled.
				for i, f := range th.Frames {
					if strings.HasPrefix(f.Function, "nocfi_") && f.Function != "nocfi_c" && f.Trust != tc.trust {
						t.Errorf("%s: trust %q, want %q", f.Function, f.Trust, tc.trust)
					}
					if i > 0 && th.Frames[i-1].Function == "main" && f.Trust != "cfi" {
						t.Errorf("%s above main: trust %q, want cfi", f.Function, f.Trust)
					}
				}
			}
		})
	}
}

// TestS390xLeafR15InFPR: the crash is in a leaf whose CFI says the
// caller's r15 is in f0, which a qemu-user core does not hold. gdb on the
// core stops after the leaf's caller ("not enough registers"); coreunwind
// takes the caller's r15 as CFA-160, the ABI's definition. The reference
// is a live gdb through qemu's gdbstub, which reads f0, stopped at the
// same SIGSEGV (qemu-user has no address randomization): pc for pc.
func TestS390xLeafR15InFPR(t *testing.T) {
	t.Parallel()
	readelf := testenv.NeedTool(t, s390x.Triple+"-readelf")
	c := qemuCrash(t, s390x, "s390x-frameleaf")
	if out := runTool(t, readelf, "--debug-dump=frames", c.Exe); !strings.Contains(out, "r15 in r16 (f0)") {
		t.Fatalf("no CFI keeps r15 in f0: the program does not test what it should")
	}
	rep, _ := unwindJSON(t, nil, c.Core, c.Exe)
	th := rep.thread(rep.Core.CrashedTID)
	if th == nil {
		t.Fatal("no crashed thread")
	}
	live := qemuLiveStops(t, s390x, c.Exe, nil, 1)[0]
	var got []uint64
	for _, f := range th.Frames {
		pc, _ := f.pc()
		got = append(got, pc)
	}
	if want := pcList(live); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("pcs %x, live gdb %x\n%s", got, want, formatFrames(th, 20))
	}
	expectFunctions(t, th, "leaf", "mid", "_start")
}

// TestS390xKernelSignalCores: cores a real s390x kernel (Linux 6.1) wrote
// for crossarch.c crashing in a SIGUSR1 handler (testdata/cores/
// s390x-kernel-signal: qemu-user and this machine cannot make them). The
// kernel's trampolines are in its vDSO. With signal(), the older
// sigframe: gdb-multiarch and eu-stack both unwind it, and coreunwind must
// agree with them. With SA_SIGINFO, the rt_sigframe: gdb stops after the
// handler ("Cannot access memory"), eu-stack at the trampoline ("address
// out of range" in the vDSO), so the reference below the trampoline is
// the first core's: the same static program interrupted at the same
// place (pc for pc, frames 3 and on); above it, the handler's frames from
// gdb; the trampoline is "svc 173", read by gdb.
func TestS390xKernelSignalCores(t *testing.T) {
	t.Parallel()
	gdb := testenv.NeedTool(t, "gdb-multiarch")
	dir := filepath.Join(repoRoot, "testdata", "cores", "s390x-kernel-signal")
	tmp := t.TempDir()
	exe := s390xUnxz(t, filepath.Join(dir, "crash.xz"), filepath.Join(tmp, "crash"))
	crashed := map[string][]uint64{}
	for _, mode := range []string{"signal", "siginfo"} {
		xzCore := filepath.Join(dir, "core."+mode+".xz")
		core := s390xUnxz(t, xzCore, filepath.Join(tmp, "core."+mode))
		g := s390xGDB(t, exe, core)
		eu, _ := runEuStack(t, exe, core)
		rep, _ := unwindJSON(t, nil, xzCore, exe)
		compareWithReferences(t, g, eu, rep)
		th := rep.thread(rep.Core.CrashedTID)
		if th == nil || len(th.Frames) < 4 {
			t.Fatalf("%s: crashed thread %v", mode, th)
		}
		for _, f := range th.Frames {
			pc, _ := f.pc()
			crashed[mode] = append(crashed[mode], pc)
		}
		if f := th.Frames[3]; f.Trust != "context" {
			t.Errorf("%s: the interrupted frame's trust = %q, want context", mode, f.Trust)
		}
		if mode == "signal" {
			continue
		}
		if tramp, insn := crashed[mode][2], s390xHalfword(t, gdb, exe, core, crashed[mode][2]); insn != "0x0aad" {
			t.Errorf("frame 2 (pc %#x) is not the rt_sigreturn trampoline: gdb reads %s", tramp, insn)
		}
		if gt := g[rep.Core.CrashedTID]; gt == nil || len(gt.Frames) < 2 || fmt.Sprint(pcList(gt.Frames[:2])) != fmt.Sprint(crashed[mode][:2]) {
			t.Errorf("handler frames %x, gdb's %v", crashed[mode][:2], gt)
		}
		if got, want := crashed[mode][3:], crashed["signal"][3:]; fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("frames below the rt_sigframe %x, below the sigframe (gdb and eu-stack's) %x\n%s", got, want, formatFrames(th, 20))
		}
		expectFunctions(t, th, "handler_crash", "on_usr1_info", "raise", "crash_leaf", "crash_mid", "crash_top", "worker", "start_thread", "thread_start")
	}
}

// gdbHalfwordRE matches gdb's "x/1hx" line: the address, its symbol if
// any, and the halfword.
var gdbHalfwordRE = regexp.MustCompile(`(?m)^0x[0-9a-f]+(?: <[^>]*>)?:\s+(0x[0-9a-f]{4})$`)

// s390xHalfword is the halfword at addr in core as gdb reads it ("0x0aad"),
// or gdb's whole output when it printed none.
func s390xHalfword(t *testing.T, gdb, exe, core string, addr uint64) string {
	t.Helper()
	out := runTool(t, gdb, "-batch", "-nx", "-ex", fmt.Sprintf("x/1hx %#x", addr), exe, core)
	if m := gdbHalfwordRE.FindStringSubmatch(out); m != nil {
		return m[1]
	}
	return out
}

// s390xUnxz decompresses a shipped xz file to out.
func s390xUnxz(t *testing.T, src, out string) string {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	f, err := os.OpenFile(out, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := corefile.DecompressTo(f, in); err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestS390xPprofAndTriage: the pprof profile and the triage bucket of an
// s390x core hold the JSON report's crashed stack and crash site.
func TestS390xPprofAndTriage(t *testing.T) {
	t.Parallel()
	checkPprofAndTriage(t, qemuCrash(t, s390x, "s390x-static", "segv"), "SIGSEGV")
}

// TestS390xSignalHandlerCrash: the worker raises SIGUSR1 and the handler
// crashes, so the core holds qemu's trampoline and signal frame: with the
// handler installed by signal(), the older sigframe and "svc 119"
// (sigreturn); with SA_SIGINFO, the rt_sigframe and "svc 173"
// (rt_sigreturn). gdb-multiarch unwinds both on the core, so it is the
// reference for every frame; gdb reads the trampoline's code too, and the
// interrupted frame must have its registers from the signal context.
func TestS390xSignalHandlerCrash(t *testing.T) {
	t.Parallel()
	gdb := testenv.NeedTool(t, "gdb-multiarch")
	for _, tc := range []struct{ mode, svc, handler string }{
		{"signal", "0x0a77", "on_usr1"},
		{"siginfo", "0x0aad", "on_usr1_info"},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			t.Parallel()
			c := qemuCrash(t, s390x, "s390x-static", tc.mode)
			g := s390xGDB(t, c.Exe, c.Core)
			rep, _ := unwindJSON(t, nil, c.Core, c.Exe)
			compareWithReferences(t, g, pcsOnly(g), rep)
			th := rep.thread(rep.Core.CrashedTID)
			if th == nil || len(th.Frames) < 4 {
				t.Fatalf("crashed thread %v", th)
			}
			tramp, _ := th.Frames[2].pc()
			if insn := s390xHalfword(t, gdb, c.Exe, c.Core, tramp); insn != tc.svc {
				t.Errorf("frame 2 (pc %#x) is not the trampoline (%s): gdb reads %s", tramp, tc.svc, insn)
			}
			if f := th.Frames[3]; f.Trust != "context" {
				t.Errorf("the interrupted frame's trust = %q, want context (registers from the signal context)", f.Trust)
			}
			expectFunctions(t, th, "handler_crash", tc.handler, "raise", "crash_leaf", "crash_mid", "crash_top", "worker")
		})
	}
}

// dropZeroTail is a copy of gdb's threads without the "0x0 in ?? ()"
// frame gdb appends where the outermost frame's saved r14 is zero (a
// thread still in clone, the main thread of elfutils' core): no frame
// is there.
func dropZeroTail(ref map[int]*refbt.Thread) map[int]*refbt.Thread {
	out := map[int]*refbt.Thread{}
	for tid, th := range ref {
		fs := th.Frames
		for n := len(fs); n > 1 && fs[n-1].HasPC && fs[n-1].PC == 0; n = len(fs) {
			fs = fs[:n-1]
		}
		out[tid] = &refbt.Thread{TID: tid, Frames: fs}
	}
	return out
}
