package e2e

import (
	"debug/elf"
	"encoding/binary"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// RISC-V 64 cores. qemu-riscv64 7.2 writes no core, so the cores here
// are written by the test itself from what gdb-multiarch reads through
// the gdbstub at the fatal signal (stubLiveCore, gdbstub_test.go). The
// same gdb session's live backtraces are the reference, and
// gdb-multiarch on the written core a second one. Beside them, the one
// real riscv64 kernel core elfutils ships.

var rv = testenv.RISCV64

func init() {
	gcc := rv.CC()
	add := func(name, out string, flags ...string) {
		programs[name] = cc(gcc, out, flags...)
	}
	add("rv-static", "crash", "-g", "-O1", "crossarch.c", "-lpthread", "-static")
	add("rv-nofp", "crash", "-g", "-O2", "-fomit-frame-pointer", "crossarch.c", "-lpthread", "-static")
	add("rv-fp", "crash", "-g", "-O2", "-fno-omit-frame-pointer", "crossarch.c", "-lpthread", "-static")
	add("rv-dyn", "crash", "-g", "-O1", "crossarch.c", "-lpthread")
	add("rv-nullfn", "nullfn", "-g", "-O2", "nullfn.c", "-static")
	add("rv-crashkinds", "crashkinds", "-g", "-O0", "crashkinds.c", "-lpthread", "-static")
	// Functions without CFI, built with frame pointers (-O0): only the
	// frame-pointer chain gets through them.
	programs["rv-nocfi"] = nocfiBuild(rv.Triple+"-", nil, []string{"-static"})
}

// TestRISCV64ElfutilsCore: elfutils' testfile-riscv64-core, written by a
// riscv64 kernel for a program (/tmp/a.out, not shipped) whose main reads
// 0x12345678 and is a leaf that never saves ra. gdb and eu-stack give one
// frame: neither has the program or its libc (NT_FILE names
// /lib64/libc-2.27.so). coreunwind gives two: frame 1 is ra, the return
// into __libc_start_main, and there it must stop: libc's text is not in
// the core (its segment is mapped, not dumped), so there is no code, no
// CFI and no frame size to go further with (a stack scan from there
// would only find stale words). The thread says so: it stopped in
// libc-2.27.so, whose file was not found.
func TestRISCV64ElfutilsCore(t *testing.T) {
	t.Parallel()
	core := testenv.ElfutilsFile(t, "testfile-riscv64-core")
	eu, _ := runEuStack(t, "", core)
	gdb := testenv.NeedTool(t, "gdb-multiarch")
	out := runTool(t, gdb, "-batch", "-nx", "-ex", "set architecture riscv:rv64", "-ex", "core-file "+core,
		"-ex", "p/x $pc", "-ex", "p/x $ra", "-ex", "x/7i $pc-14")
	regs := regexp.MustCompile(`(?m)^\$\d+ = (0x[0-9a-f]+)$`).FindAllStringSubmatch(out, -1)
	if len(regs) != 2 {
		t.Fatalf("gdb printed no pc and ra:\n%s", out)
	}
	pc, _ := strconv.ParseUint(regs[0][1], 0, 64)
	ra, _ := strconv.ParseUint(regs[1][1], 0, 64)
	// The crashing function is the leaf "addi sp,sp,-16; sd s0,8(sp);
	// addi s0,sp,16; lui a5,...; addi a5,...; lw a5,0(a5)": ra untouched.
	if !strings.Contains(out, "sd\ts0,8(sp)") || strings.Contains(out, "sd\tra") {
		t.Fatalf("the code before the pc is not the expected leaf prologue:\n%s", out)
	}
	rep, _ := unwindJSON(t, nil, core)
	if rep.Core.Arch != "riscv64" {
		t.Errorf("arch = %q, want riscv64", rep.Core.Arch)
	}
	th := rep.thread(rep.Core.CrashedTID)
	if th == nil {
		t.Fatalf("no crashed thread in the report")
	}
	var got []uint64
	for _, f := range th.Frames {
		p, _ := f.pc()
		got = append(got, p)
	}
	if fmt.Sprint(got) != fmt.Sprint([]uint64{pc, ra}) {
		t.Errorf("pcs %x, want gdb's pc and ra %x\n%s", got, []uint64{pc, ra}, formatFrames(th, 10))
	}
	if th.Error == nil || !th.Truncated || !strings.Contains(*th.Error, "in libc-2.27.so (not found") {
		t.Errorf("the thread does not say it stopped in libc-2.27.so for want of the file: truncated %v, error %v", th.Truncated, th.Error)
	}
	if e := eu[rep.Core.CrashedTID]; e == nil || len(e.Frames) == 0 || e.Frames[0].PC != pc {
		t.Errorf("eu-stack's frame 0 is not gdb's pc %#x: %v", pc, eu)
	}
}

// rvStub is what a riscv64 gdbstub snapshot core is made of: the
// kernel's struct user_regs_struct (pc, then x1..x31) as pr_reg, with sp
// at 2, the pc and ra pointing at code; the generic Linux ABI's signal
// numbers.
var rvStub = stubArch{
	cross:   rv,
	machine: elf.EM_RISCV,
	order:   binary.LittleEndian,
	regs: `["pc", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "fp", "s1"] + ["a%d" % i for i in range(8)]` +
		` + ["s%d" % i for i in range(2, 12)] + ["t3", "t4", "t5", "t6"]`,
	nregs:        32,
	sp:           2,
	code:         "(0, 1)",
	prstatusSize: 376,
	signals:      map[string]int{"SIGILL": 4, "SIGTRAP": 5, "SIGABRT": 6, "SIGBUS": 7, "SIGFPE": 8, "SIGUSR1": 10, "SIGSEGV": 11},
}

// rvLiveCore is stubLiveCore for riscv64.
func rvLiveCore(t *testing.T, prog string, stops int, args ...string) stubLive {
	t.Helper()
	return stubLiveCore(t, rvStub, prog, stops, args...)
}

// rvLiveCoreEnv is stubLiveCoreEnv for riscv64: a Go program's core.
func rvLiveCoreEnv(t *testing.T, env []string, prog string, stops int, args ...string) stubLive {
	t.Helper()
	return stubLiveCoreEnv(t, rvStub, env, prog, stops, args...)
}

// TestRISCV64Live: programs built here, crashed under qemu-riscv64's
// gdbstub; the core is written from gdb's snapshot at the fatal signal.
// The references are the live gdb's backtraces (every thread, at the
// signal) and gdb-multiarch on the written core.
func TestRISCV64Live(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, prog, mode string
		sig              int
		funcs            []string
	}{
		{"static-segv", "rv-static", "segv", 11, []string{"crash_leaf", "crash_mid", "crash_top", "worker", "start_thread"}},
		{"static-abort", "rv-static", "abort", 6, []string{"raise", "abort", "crash_leaf", "crash_mid", "crash_top", "worker"}},
		{"O2-nofp-segv", "rv-nofp", "segv", 11, []string{"crash_leaf", "crash_mid", "crash_top", "worker"}},
		{"O2-fp-abort", "rv-fp", "abort", 6, []string{"raise", "abort", "crash_leaf", "crash_mid", "crash_top", "worker"}},
		{"dynamic-abort", "rv-dyn", "abort", 6, []string{"raise", "abort", "crash_leaf", "crash_mid", "crash_top", "worker"}},
		{"null-function-pointer", "rv-nullfn", "", 11, []string{"dispatch", "main"}},
		{"no-cfi", "rv-nocfi", "", 11, []string{"crash_cb", "nocfi_c", "nocfi_b", "nocfi_a", "main"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var args []string
			if tc.mode != "" {
				args = append(args, tc.mode)
			}
			live := rvLiveCore(t, tc.prog, 1, args...)
			if tc.prog == "rv-nocfi" {
				expectNoFDE(t, live.Exe, "nocfi_a", "nocfi_b", "nocfi_c")
			}
			var flags []string
			eu := pcsOnly(live.Threads)
			if tc.prog == "rv-dyn" {
				// eu-stack has no sysroot option: the live gdb is both
				// references (pcs only for the second).
				flags = []string{"--sysroot", rv.Sysroot()}
			} else {
				eu, _ = runEuStack(t, live.Exe, live.Core)
			}
			// The written core is what the process was: gdb reads it
			// (NT_PRSTATUS in the kernel's layout, the memory) and
			// prints the live backtraces (then goes on past main, which
			// the live gdb does not).
			onCore, _ := runGDBTool(t, "gdb-multiarch", live.Exe, live.Core, "-iex", "set print frame-arguments none", "-iex", "set sysroot "+rv.Sysroot())
			for tid, th := range live.Threads {
				want := pcList(th.Frames)
				if c := onCore[tid]; c == nil || len(c.Frames) < len(want) || fmt.Sprint(pcList(c.Frames)[:len(want)]) != fmt.Sprint(want) {
					t.Errorf("thread %d: gdb on the written core %v, live %x", tid, c, want)
				}
			}
			rep, _ := unwindJSON(t, flags, live.Core, live.Exe)
			compareWithReferences(t, live.Threads, eu, rep)
			th := expectCrashedThread(t, rep, "riscv64", tc.sig, tc.funcs...)
			if live.Signal != tc.sig {
				t.Errorf("live gdb's signal %d, want %d", live.Signal, tc.sig)
			}
			if tc.prog == "rv-nocfi" {
				rvFramePointerOnly(t, live, th)
			}
			if tc.prog == "rv-dyn" {
				// The live gdb stops inside libc after two frames of the
				// main thread (__pthread_clockjoin_ex has no CFI, and the
				// cross libc no symbols for it); coreunwind goes on, as
				// eu-stack does on the static program's core.
				for i := range rep.Threads {
					if m := &rep.Threads[i]; m.TID != rep.Core.CrashedTID && len(m.Frames) > 0 && m.Frames[len(m.Frames)-1].Function == "_start" {
						expectFunctions(t, m, "main", "__libc_start_main", "_start")
						return
					}
				}
				t.Errorf("no thread of the dynamic program reaches _start")
			}
		})
	}
}

// rvFramePointerOnly unwinds the no-CFI core again with a copy of the
// program without debug info and without the symbols of the CFI-less
// functions: their prologues
// cannot be found, so only the frame-pointer chain (s0, with ra at s0-8
// and the caller's s0 at s0-16) gets through them. The pcs must be the
// ones found with symbols (which the live gdb confirmed).
func rvFramePointerOnly(t *testing.T, live stubLive, want *reportThread) {
	t.Helper()
	objcopy := testenv.NeedTool(t, rv.Triple+"-objcopy")
	exe := filepath.Join(t.TempDir(), "nocfi")
	runTool(t, objcopy, "--strip-debug", "-N", "nocfi_a", "-N", "nocfi_b", "-N", "nocfi_c", live.Exe, exe)
	rep, _ := unwindJSON(t, nil, live.Core, exe)
	th := rep.thread(rep.Core.CrashedTID)
	if th == nil || len(th.Frames) != len(want.Frames) {
		t.Fatalf("without the nocfi symbols: %v, want the %d frames found with them\n%s", th, len(want.Frames), formatFrames(want, 20))
	}
	fp := 0
	for i, f := range th.Frames {
		if f.PC != want.Frames[i].PC {
			t.Errorf("without the nocfi symbols, frame %d: pc %s, want %s\n%s", i, f.PC, want.Frames[i].PC, formatFrames(th, 20))
		}
		if f.Trust == "frame_pointer" {
			fp++
		}
	}
	if fp < 3 {
		t.Errorf("%d frames by the frame-pointer chain, want 3 (the callers of crash_cb, nocfi_c and nocfi_b)\n%s", fp, formatFrames(th, 20))
	}
}

// TestRISCV64SignalHandlerCrash: the worker raises SIGUSR1 and the
// handler crashes, so the stack holds qemu's rt_sigreturn trampoline and
// the kernel-layout signal frame. The live gdb stops twice in one run
// (qemu-user has no address randomization): at SIGUSR1, the worker's
// stack is what the signal context must give below the trampoline; at
// SIGSEGV in the handler, gdb's frames are the whole reference (gdb
// knows the trampoline too).
func TestRISCV64SignalHandlerCrash(t *testing.T) {
	t.Parallel()
	live := rvLiveCore(t, "rv-static", 2, "signal")
	rep, _ := unwindJSON(t, nil, live.Core, live.Exe)
	eu, _ := runEuStack(t, live.Exe, live.Core)
	compareWithReferences(t, live.Threads, eu, rep)
	th := rep.thread(rep.Core.CrashedTID)
	// Frame 2 is the trampoline the handler returns to: qemu's page
	// holding "li a7, 139; ecall".
	expectStubSignalFrames(t, live, th, live.Stops[0], "0x08b00893\t0x00000073")
	expectFunctions(t, th, "handler_crash", "on_usr1", "raise", "crash_leaf", "crash_mid", "crash_top", "worker")
}

// TestRISCV64PprofAndTriage: pprof and triage on a riscv64 core go
// through the same generic paths as every other arch's.
func TestRISCV64PprofAndTriage(t *testing.T) {
	t.Parallel()
	live := rvLiveCore(t, "rv-static", 1, "segv")
	checkPprofAndTriage(t, live.crash, "SIGSEGV")
}
