package e2e

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// i386 cases: 32-bit programs from Debian's i686 cross compiler, run
// natively by the x86_64 kernel, which writes real i386 cores. gdb and
// eu-stack read them as they read x86_64 cores, and judge every thread.

// crashI386 is crashAndUnwind for an i386 program, with the checks every
// i386 core gets: the report's arch and pointer size, frame 0 from the
// core's registers.
func crashI386(t *testing.T, prog string, args ...string) *crashCase {
	t.Helper()
	c := crashAndUnwind(t, prog, nil, nil, args...)
	if c.Report.Core.Arch != "i386" || c.Report.Core.PtrSize != 4 {
		t.Errorf("core arch %q, pointer size %d; want i386, 4", c.Report.Core.Arch, c.Report.Core.PtrSize)
	}
	compareWithReferences(t, c.GDB, c.EU, c.Report)
	th := c.crashed(t)
	if len(th.Frames) == 0 || th.Frames[0].Trust != "context" {
		t.Errorf("frame 0 is not from the core's registers:\n%s", formatFrames(th, 4))
	}
	return c
}

// TestI386NullDeref: a null store three calls deep, built with frame
// pointers, without them (-O2 -fomit-frame-pointer: CFI only) and static.
func TestI386NullDeref(t *testing.T) {
	t.Parallel()
	for _, prog := range []string{"i386-null-O0", "i386-null-O2-nofp", "i386-null-static"} {
		t.Run(prog, func(t *testing.T) {
			t.Parallel()
			c := crashI386(t, prog)
			c.expectSignal(t, 11, "SIGSEGV")
			th := c.crashed(t)
			expectFunctions(t, th, "store_through", "middle", "outer", "main")
			c.expectLines(t, th, "store_through", "middle", "outer", "main")
		})
	}
}

// TestI386Abort: abort() through glibc, which enters the kernel through
// the vDSO's __kernel_vsyscall: frame 0 is there, unwound by the vDSO's
// own CFI read from the core's memory.
func TestI386Abort(t *testing.T) {
	t.Parallel()
	c := crashI386(t, "i386-abort")
	c.expectSignal(t, 6, "SIGABRT")
	th := c.crashed(t)
	expectFunctions(t, th, "__kernel_vsyscall", "raise", "abort", "second", "first", "main")
	c.expectLines(t, th, "second", "first", "main")
	if th.Frames[0].Module != "[vdso]" {
		t.Errorf("frame 0 module %q, want [vdso]", th.Frames[0].Module)
	}
}

// TestI386SignalHandler: handlers that crash or abort, so the walk
// crosses the kernel's signal frame: through the vDSO's
// __kernel_sigreturn (CFI with the 'S' augmentation), and through
// trampolines without CFI (__restore: the old struct sigframe,
// __restore_rt: struct rt_sigframe) recognized by their code.
func TestI386SignalHandler(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		prog, arg, tramp string
		signal           int
		want             []string
	}{
		{"i386-sighandler", "segv", "__kernel_sigreturn", 11, []string{"handler_crash", "on_segv"}},
		{"i386-sighandler-static", "segv", "__kernel_sigreturn", 11, []string{"handler_crash", "on_segv"}},
		{"i386-sighandler", "alrm", "__kernel_sigreturn", 6, []string{"__kernel_vsyscall", "abort", "on_alrm"}},
		{"i386-sigtramp", "old", "__restore", 11, []string{"handler_crash", "on_segv"}},
		{"i386-sigtramp", "rt", "__restore_rt", 11, []string{"handler_crash", "on_segv"}},
	} {
		t.Run(tc.prog+"-"+tc.arg, func(t *testing.T) {
			t.Parallel()
			c := crashI386(t, tc.prog, tc.arg)
			th := c.crashed(t)
			interrupted := []string{"fault_here", "run", "main"}
			if tc.arg == "alrm" {
				interrupted[0] = "spin_here"
			}
			want := append(append(tc.want, tc.tramp), interrupted...)
			expectFunctions(t, th, want...)
			c.expectLines(t, th, interrupted...)
			c.expectGDBPCs(t, th, interrupted...)
			// The interrupted frame's pc is exact and its registers come
			// from the signal context.
			for i, f := range th.Frames {
				if normalizeFunc(f.Function) == tc.tramp && i+1 < len(th.Frames) && th.Frames[i+1].Trust != "context" {
					t.Errorf("frame after the trampoline has trust %q, want context:\n%s", th.Frames[i+1].Trust, formatFrames(th, 12))
				}
			}
		})
	}
}

// TestI386Threads: 57 threads, 56 of them blocked in system calls (frame
// 0 in __kernel_vsyscall) at different depths; the main thread crashes.
func TestI386Threads(t *testing.T) {
	t.Parallel()
	c := crashI386(t, "i386-threads")
	if len(c.Report.Threads) != 57 || len(c.GDB) != 57 || len(c.EU) != 57 {
		t.Errorf("threads: coreunwind %d, gdb %d, eu-stack %d; want 57", len(c.Report.Threads), len(c.GDB), len(c.EU))
	}
	crashed := c.crashed(t)
	expectFunctions(t, crashed, "crash_main", "main")
	for _, w := range c.Report.Threads {
		if w.TID == crashed.TID {
			continue
		}
		expectFunctions(t, &w, "__kernel_vsyscall", "level_a", "worker") // the cross libc has no symbol for start_thread
	}
}

// TestI386NoCFI: functions without any unwind tables between the crash
// and main: the frame-pointer chain (ebp) gets past them.
func TestI386NoCFI(t *testing.T) {
	t.Parallel()
	c := crashI386(t, "i386-nocfi")
	expectNoFDE(t, c.Exe, "nocfi_a", "nocfi_b", "nocfi_c")
	th := c.crashed(t)
	expectFunctions(t, th, "crash_cb", "nocfi_c", "nocfi_b", "nocfi_a", "main")
	c.expectGDBPCs(t, th, "nocfi_c", "nocfi_b", "nocfi_a", "main")
	// crash_cb's CFI finds nocfi_c; the frames above it come from the
	// ebp chain.
	for _, fn := range []string{"nocfi_b", "nocfi_a", "main"} {
		if f := frameOf(th, fn); f != nil && f.Trust != "frame_pointer" {
			t.Errorf("%s: trust %q, want frame_pointer:\n%s", fn, f.Trust, formatFrames(th, 8))
		}
	}
}

// TestI386TextOutput: the text report prints 32-bit addresses as gdb
// does for a 32-bit target (0x%08x), with gdb's pc and function.
func TestI386TextOutput(t *testing.T) {
	t.Parallel()
	exe := buildProgram(t, "i386-null-O0")
	c := &crashCase{crash: crashProgram(t, exe, nil)}
	c.GDB, c.GDBOut = runGDB(t, c.Exe, c.Core)
	r := runCoreunwind(t, c.Core, c.Exe)
	if r.Code != exitOK {
		t.Fatalf("exit code %d, want 0; stderr:\n%s", r.Code, r.Stderr)
	}
	g := c.GDB[c.pid(t)]
	if g == nil {
		t.Fatalf("gdb shows no thread %d", c.pid(t))
	}
	for i, gf := range g.Frames[:min(4, len(g.Frames))] {
		line := regexp.MustCompile(fmt.Sprintf(`(?m)^#%d\s+0x%08x in %s \(`, i, gf.PC, regexp.QuoteMeta(gf.Func)))
		if !line.MatchString(r.Stdout) || !strings.Contains(gf.Raw, fmt.Sprintf("0x%08x", gf.PC)) {
			t.Errorf("no line like gdb's %q in the text report:\n%s", gf.Raw, truncate(r.Stdout, 3000))
		}
	}
}

// TestI386ElfutilsCores: elfutils' own i386 test cores, written by other
// kernels than this one (backtrace.i386: a 64-bit kernel, stack near
// 4 GiB; static glibc with CFI. .fp: a 32-bit kernel, stack below
// 0xc0000000, no NT_FILE note: modules from the auxiliary vector; built
// with frame pointers and without CFI for the test's functions). Every
// thread's pcs and names must be eu-stack's, frame by frame, to the last.
func TestI386ElfutilsCores(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"backtrace.i386", "backtrace.i386.fp"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			core := testenv.ElfutilsFile(t, name+".core")
			exe := testenv.ElfutilsFile(t, name+".exec")
			eu, _ := runEuStack(t, exe, core)
			rep, _ := unwindJSON(t, nil, core, exe)
			if rep.Core.Arch != "i386" || len(rep.Threads) != len(eu) {
				t.Errorf("arch %q, %d threads; eu-stack has %d", rep.Core.Arch, len(rep.Threads), len(eu))
			}
			for tid, e := range eu {
				th := rep.thread(tid)
				if th == nil {
					t.Errorf("thread %d missing", tid)
					continue
				}
				n := min(len(th.Frames), len(e.Frames))
				for i := 0; i < n; i++ {
					pc, _ := th.Frames[i].pc()
					name, euName := normalizeFunc(th.Frames[i].Function), normalizeFunc(e.Frames[i].Func)
					if pc != e.Frames[i].PC || (euName != "" && name != euName) {
						t.Errorf("thread %d frame %d: coreunwind %s, eu-stack %s\n%s", tid, i, th.Frames[i], e.Frames[i], formatFrames(th, 12))
						break
					}
				}
				if len(th.Frames) != len(e.Frames) {
					t.Errorf("thread %d: %d frames, eu-stack %d\n%s", tid, len(th.Frames), len(e.Frames), formatFrames(th, 12))
				}
			}
		})
	}
}
