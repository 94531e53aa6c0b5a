package e2e

import (
	"fmt"
	"os/exec"
	"regexp"
	"testing"

	"github.com/coreunwind/coreunwind/internal/refbt"
	"github.com/coreunwind/coreunwind/internal/testenv"
)

// AArch64 cores: elfutils' cores written by real arm64 kernels, and cores
// qemu-user writes for programs built here with Debian's cross compiler.
// The references are gdb-multiarch and eu-stack on the core; where both
// fail on qemu's signal frames or on pointer authentication, a live gdb
// through qemu's gdbstub, eu-stack's own frames and the disassembly.

var a64 = testenv.AArch64

// a64Static are the link flags every qemu-user program here uses unless it
// is the dynamic one: qemu-user leaves an executable mapping that starts
// with an ELF header out of its core, so a static program needs
// -z separate-code for its headers and text to be in the core (eu-stack
// needs them; coreunwind reads the executable anyway).
var a64Static = []string{"-static", "-Wl,-z,separate-code"}

func init() {
	gcc, gxx := a64.CC(), a64.Triple+"-g++"
	add := func(name, compiler, out string, flags ...string) {
		programs[name] = cc(compiler, out, flags...)
	}
	add("a64-static", gcc, "crash", append([]string{"-g", "-O1", "crossarch.c", "-lpthread"}, a64Static...)...)
	add("a64-nofp", gcc, "crash", append([]string{"-g", "-O2", "-fomit-frame-pointer", "crossarch.c", "-lpthread"}, a64Static...)...)
	add("a64-pac", gcc, "crash", append([]string{"-g", "-O2", "-fomit-frame-pointer", "-mbranch-protection=standard", "crossarch.c", "-lpthread"}, a64Static...)...)
	// Dynamic: the libraries come from the link map (qemu cores have no
	// NT_FILE) and the cross sysroot. -z separate-code keeps the PIE's
	// headers in the core, which gdb needs to relocate it.
	add("a64-dyn", gcc, "crash", "-g", "-O1", "-Wl,-z,separate-code", "crossarch.c", "-lpthread")
	add("a64-nullfn", gcc, "nullfn", append([]string{"-g", "-O2", "nullfn.c"}, a64Static...)...)
	add("a64-reraise", gcc, "reraise", append([]string{"-g", "-O1", "reraise.c"}, a64Static...)...)
	add("a64-exception", gxx, "exception", append([]string{"-g", "-O1", "exception.cc"}, a64Static...)...)
	// Functions without CFI: with frame records, and without (their
	// prologue saves only x30: the frame-record chain would skip them).
	programs["a64-nocfi"] = nocfiBuild(a64.Triple+"-", nil, a64Static)
	programs["a64-nocfi-nofp"] = nocfiBuild(a64.Triple+"-", []string{"-fomit-frame-pointer"}, a64Static)
}

// a64Crash crashes a built program under qemu-aarch64.
func a64Crash(t *testing.T, prog string, args ...string) crash {
	t.Helper()
	return qemuCrash(t, a64, prog, args...)
}

// a64GDB is gdb-multiarch on an aarch64 core, with the cross C library as
// the sysroot. Frame arguments are not printed: gdb 13 spins forever
// computing entry values across qemu's signal frames.
func a64GDB(t *testing.T, exe, core string) map[int]*refbt.Thread {
	t.Helper()
	g, _ := runGDBTool(t, "gdb-multiarch", exe, core, "-iex", "set sysroot "+a64.Sysroot(), "-iex", "set print frame-arguments none")
	return g
}

// TestAArch64ElfutilsCores: two cores written by arm64 kernels for
// elfutils' backtrace-child (static; the .fp one built with frame
// pointers and without CFI for its own functions). gdb and eu-stack are
// the references, PC for PC on every thread: one of them must be a prefix
// of the other, and coreunwind must equal the longer. Before comparing,
// eu-stack's repeated frames are dropped: its aarch64 fallback takes the
// link register again after CFI already returned through it (sigusr2 and
// main twice in the .fp core, _start twice in the other), which gdb does
// not do. gdb stops early where eu-stack does not (main of the .fp core:
// "previous frame identical") and the other way round (clone after
// start_thread in the .fp core).
func TestAArch64ElfutilsCores(t *testing.T) {
	t.Parallel()
	testenv.NeedTool(t, "gdb-multiarch")
	for _, name := range []string{"backtrace.aarch64", "backtrace.aarch64.fp"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			core := testenv.ElfutilsFile(t, name+".core")
			exe := testenv.ElfutilsFile(t, name+".exec")
			eu, _ := runEuStack(t, exe, core)
			eu = dedupRef(eu)
			g := a64GDB(t, exe, core)
			rep, _ := unwindJSON(t, nil, core, exe)
			compareWithReferences(t, g, eu, rep)
			for tid, th := range eu {
				cu := rep.thread(tid)
				if cu == nil || g[tid] == nil {
					t.Errorf("thread %d missing: coreunwind %v, gdb %v", tid, cu, g[tid])
					continue
				}
				want, other := pcList(th.Frames), pcList(g[tid].Frames)
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
		})
	}
}

// dedupRef is a copy of a reference without frames that repeat the pc of
// the frame before them.
func dedupRef(ref map[int]*refbt.Thread) map[int]*refbt.Thread {
	out := map[int]*refbt.Thread{}
	for tid, th := range ref {
		c := &refbt.Thread{TID: tid}
		for _, f := range th.Frames {
			if n := len(c.Frames); n == 0 || c.Frames[n-1].PC != f.PC {
				c.Frames = append(c.Frames, f)
			}
		}
		out[tid] = c
	}
	return out
}

// pcList lists a reference's pcs.
func pcList(fs []refbt.Frame) []uint64 {
	var out []uint64
	for _, f := range fs {
		out = append(out, f.PC)
	}
	return out
}

// TestAArch64Qemu: qemu-user cores of programs built here, compared with
// gdb-multiarch and eu-stack on the same core. The dynamic program's
// libraries are found through the link map and --sysroot; eu-stack has no
// sysroot option, so gdb is its only reference (it is used as both, pcs
// only), as for the programs without CFI.
func TestAArch64Qemu(t *testing.T) {
	t.Parallel()
	testenv.NeedTool(t, "gdb-multiarch")
	cases := []struct {
		name, prog, mode string
		sig              int
		funcs            []string
	}{
		{"static-segv", "a64-static", "segv", 11, []string{"crash_leaf", "crash_mid", "crash_top", "worker", "start_thread"}},
		{"static-abort", "a64-static", "abort", 6, []string{"raise", "abort", "crash_leaf", "crash_mid", "crash_top", "worker"}},
		{"O2-nofp-segv", "a64-nofp", "segv", 11, []string{"crash_leaf", "crash_mid", "crash_top", "worker"}},
		{"dynamic-abort", "a64-dyn", "abort", 6, []string{"raise", "abort", "crash_leaf", "crash_mid", "crash_top", "worker"}},
		{"null-function-pointer", "a64-nullfn", "", 11, []string{"dispatch", "main"}},
		{"cxx-terminate", "a64-exception", "", 6, []string{"abort", "std::terminate", "shop::Basket::checkout", "shop::process", "main"}},
		{"no-cfi", "a64-nocfi", "", 11, []string{"crash_cb", "nocfi_c", "nocfi_b", "nocfi_a", "main"}},
		{"no-cfi-no-frame-records", "a64-nocfi-nofp", "", 11, []string{"crash_cb", "nocfi_c", "nocfi_b", "nocfi_a", "main"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var args []string
			if tc.mode != "" {
				args = append(args, tc.mode)
			}
			c := a64Crash(t, tc.prog, args...)
			g := a64GDB(t, c.Exe, c.Core)
			var flags []string
			eu := pcsOnly(g)
			switch tc.prog {
			case "a64-dyn":
				flags = []string{"--sysroot", a64.Sysroot()}
			case "a64-nocfi", "a64-nocfi-nofp":
				// eu-stack repeats frames and then walks into garbage
				// here; gdb's prologue analyzer is the reference (as for
				// x86-64's TestNoCFI).
				expectNoFDE(t, c.Exe, "nocfi_a", "nocfi_b", "nocfi_c")
			default:
				eu, _ = runEuStack(t, c.Exe, c.Core)
			}
			rep, _ := unwindJSON(t, flags, c.Core, c.Exe)
			compareWithReferences(t, g, eu, rep)
			expectCrashedThread(t, rep, "aarch64", tc.sig, tc.funcs...)
		})
	}
}

// pcsOnly is a copy of a reference without function names: gdb used as
// its own second reference checks pcs, not which of two aliases at one
// address (clone, __clone) is printed.
func pcsOnly(ref map[int]*refbt.Thread) map[int]*refbt.Thread {
	out := map[int]*refbt.Thread{}
	for tid, th := range ref {
		c := &refbt.Thread{TID: tid}
		for _, f := range th.Frames {
			f.Func = ""
			c.Frames = append(c.Frames, f)
		}
		out[tid] = c
	}
	return out
}

// TestAArch64SignalHandlerCrash: the worker raises SIGUSR1 and the
// handler crashes, so the core holds qemu's rt_sigreturn trampoline and
// the signal context. gdb-multiarch cannot pass qemu's signal frame (on
// the core it spins; live it stops with "Invalid vector length in signal
// frame") and eu-stack does not know the trampoline, so the reference is a
// live gdb through qemu's gdbstub, stopped twice in the same run (qemu-user
// has no address randomization): when SIGUSR1 arrives, the thread's stack
// is exactly what the signal context must give below the signal frame;
// when SIGSEGV arrives in the handler, gdb's frames up to the trampoline
// are the frames above it.
func TestAArch64SignalHandlerCrash(t *testing.T) {
	t.Parallel()
	testenv.NeedTool(t, "gdb-multiarch")
	c := a64Crash(t, "a64-static", "signal")
	rep, _ := unwindJSON(t, nil, c.Core, c.Exe)
	live := a64LiveStops(t, c.Exe, []string{"signal"}, 2)
	atSignal, inHandler := live[0], live[1]
	th := rep.thread(rep.Core.CrashedTID)
	// Frame 2 is qemu's page holding "mov x8, #139; svc #0".
	expectSignalHandlerFrames(t, c, th, inHandler, atSignal, "0xd2801168\t0xd4000001")
	expectFunctions(t, th, "handler_crash", "on_usr1", "raise", "crash_leaf", "crash_mid", "crash_top", "worker")
}

// a64LiveStops is qemuLiveStops under qemu-aarch64.
func a64LiveStops(t *testing.T, exe string, args []string, stops int) [][]refbt.Frame {
	t.Helper()
	return qemuLiveStops(t, a64, exe, args, stops)
}

// TestAArch64PointerAuthentication: built with -mbranch-protection=standard,
// whose functions sign their return addresses (paciasp). qemu's "max" CPU
// implements PAC, so the saved return addresses in the core are signed;
// qemu writes no NT_ARM_PAC_MASK, so coreunwind strips by the 48-bit user
// address space. gdb-multiarch spins on these cores and prints signed
// addresses live; eu-stack prints signed addresses and then loses frames.
// The references are therefore eu-stack's frames with bits 48–63 cleared
// (each must appear in coreunwind's thread, in order), the proof that some
// were signed, and the disassembly: every caller frame's pc must follow a
// call instruction (bl or blr; a bl's target is the function of the frame
// below).
func TestAArch64PointerAuthentication(t *testing.T) {
	t.Parallel()
	objdump := testenv.NeedTool(t, a64.Triple+"-objdump")
	for _, mode := range []string{"segv", "abort"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			c := a64Crash(t, "a64-pac", mode)
			eu, _ := runEuStack(t, c.Exe, c.Core)
			rep, _ := unwindJSON(t, nil, c.Core, c.Exe)
			signed := 0
			for tid, th := range eu {
				cu := rep.thread(tid)
				if cu == nil {
					t.Fatalf("thread %d missing", tid)
				}
				var strip []uint64
				for _, f := range th.Frames {
					if f.PC>>48 != 0 {
						signed++
						f.PC &^= 0xffff << 48
					}
					if len(strip) == 0 || strip[len(strip)-1] != f.PC {
						strip = append(strip, f.PC)
					}
				}
				k := 0
				for _, f := range cu.Frames {
					if pc, _ := f.pc(); k < len(strip) && pc == strip[k] {
						k++
					}
				}
				if k < len(strip) {
					t.Errorf("thread %d: eu-stack's pc %#x (signature stripped) is not in coreunwind's frames after %x\n%s", tid, strip[k], strip[:k], formatFrames(cu, 20))
				}
				for i := 1; i < len(cu.Frames); i++ {
					a64CheckCall(t, objdump, c.Exe, cu, i)
				}
			}
			if signed == 0 {
				t.Errorf("eu-stack shows no signed return address: PAC was not in effect, the test proves nothing")
			}
			th := rep.thread(rep.Core.CrashedTID)
			if th == nil {
				t.Fatal("no crashed thread")
			}
			expectFunctions(t, th, "crash_leaf", "crash_mid", "crash_top", "worker", "start_thread")
		})
	}
}

var objdumpCallRE = regexp.MustCompile(`:\s+[0-9a-f]{8}\s+(bl|blr|blraa|blrab|blraaz|blrabz)\s+([0-9a-f]+ <([^>+]+)[^>]*>)?`)

// a64CheckCall checks that frame i of th returns just after a call. (Which
// function a bl targets is not checked: tail calls and aliases, such as
// pthread_join's jump to __pthread_clockjoin_ex, make it differ from the
// frame below.)
func a64CheckCall(t *testing.T, objdump, exe string, th *reportThread, i int) {
	t.Helper()
	pc, _ := th.Frames[i].pc()
	out, err := exec.Command(objdump, "-d", fmt.Sprintf("--start-address=%#x", pc-4), fmt.Sprintf("--stop-address=%#x", pc), exe).Output()
	if err != nil {
		t.Fatalf("objdump: %v", err)
	}
	m := objdumpCallRE.FindStringSubmatch(string(out))
	if m == nil {
		t.Errorf("thread %d frame %d: the instruction before pc %#x is not a call:\n%s", th.TID, i, pc, out)
		return
	}
}

// TestAArch64PprofAndTriage: the other outputs on an aarch64 core. The
// pprof profile, read back by Go's own pprof, holds the crashed thread's
// stack exactly as the JSON report names it (frame 0 first); triage puts
// the core in a bucket whose signature is the crash site, the JSON
// report's frame 0.
func TestAArch64PprofAndTriage(t *testing.T) {
	t.Parallel()
	c := a64Crash(t, "a64-static", "segv")
	checkPprofAndTriage(t, c, "SIGSEGV")
}
