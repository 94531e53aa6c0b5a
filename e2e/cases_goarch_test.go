package e2e

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// Go programs of the other arches Go targets, cross-built here and
// crashed under qemu-user with GOTRACEBACK=crash: the runtime prints
// every goroutine, then qemu writes the core. qemu-riscv64 7.2 writes no
// core: riscv64's is written from gdb's snapshot through qemu's stub
// (riscv64_test.go), which takes every writable mapping of the program,
// the Go heap the parked goroutines' stacks live in among them
// (TestGoroutinesRISCV64).

// goCrossArches are the arches TestGoroutinesCrossArch crashes goparked
// on: by default arm64 (the one with a frame pointer in its gobuf) and
// s390x (big-endian); COREUNWIND_GO_ARCHES=all adds arm and ppc64le
// (bench/goarches.sh runs them all).
func goCrossArches() []testenv.CrossArch {
	if os.Getenv("COREUNWIND_GO_ARCHES") == "all" {
		return []testenv.CrossArch{testenv.AArch64, testenv.S390X, testenv.ARMHF, testenv.PPC64LE}
	}
	return []testenv.CrossArch{testenv.AArch64, testenv.S390X}
}

// goArchOf is GOARCH for a qemu-user arch.
var goArchOf = map[string]string{"aarch64": "arm64", "arm": "arm", "ppc64le": "ppc64le", "s390x": "s390x"}

func init() {
	for _, goarch := range goArchOf {
		programs[goarch+"-goparked"] = goBuild("goparked", goarch)
	}
}

// TestGoroutinesCrossArch: on each arch, coreunwind's goroutines are
// the ones the runtime printed at the crash (ids, wait reasons, frames
// with their lines and pcs), the crashed one found through the runtime's
// signal handler (sigtramp, whose unwind info ends the walk on these
// arches) and its fake call to sigpanic (the faulting frame's link
// register and sp saved below it), the parked ones from their gobufs.
func TestGoroutinesCrossArch(t *testing.T) {
	t.Parallel()
	for _, arch := range goCrossArches() {
		for _, mode := range []string{"nilptr", "nilmap"} {
			t.Run(arch.Name+"-"+mode, func(t *testing.T) {
				t.Parallel()
				c := qemuCrashEnv(t, arch, []string{"GOTRACEBACK=crash"}, goArchOf[arch.Name]+"-goparked", mode)
				rep, _ := unwindJSON(t, nil, c.Core, c.Exe)
				gs := parseGoDump(c.Output)
				if len(gs) < 5 {
					t.Fatalf("the runtime printed %d goroutines, want at least 5; output:\n%s", len(gs), truncate(c.Output, 4000))
				}
				if rep.Core.Arch != arch.Name {
					t.Errorf("arch %q, want %q", rep.Core.Arch, arch.Name)
				}
				expectRuntimeGoroutines(t, rep, c.Output, gs)
				// The faulting frame's pc is exact (the runtime's pc=),
				// found by CFI, not a scan.
				if mode == "nilptr" {
					g := rep.Goroutines[0]
					f := frameOfGoroutine(&g, "main.deref")
					if f == nil || f.Trust == "scan" {
						t.Errorf("main.deref missing or found by scan:\n%s", formatGoroutine(&g))
					}
				}
			})
		}
	}
}

// expectRuntimeGoroutines checks rep's goroutines against gs, the ones
// the runtime printed (out) at the crash: the same ids and states, the
// crashed one (the runtime prints it first) first and no other, none
// with an error, each one's frames the runtime's in order
// (compareGoroutineFrames), and the value the crashed goroutine
// panicked with, if it panicked, as a crash detail.
func expectRuntimeGoroutines(t *testing.T, rep *report, out string, gs []goDump) {
	t.Helper()
	got := map[uint64]*reportGoroutine{}
	for i := range rep.Goroutines {
		got[rep.Goroutines[i].ID] = &rep.Goroutines[i]
	}
	// "goroutine 0": the system stack of another thread (g0), which the
	// runtime prints on a crash in C; coreunwind has it as a thread.
	gs = slices.DeleteFunc(slices.Clone(gs), func(g goDump) bool { return g.ID == 0 })
	if len(got) != len(gs) {
		t.Errorf("coreunwind reports %d goroutines, the runtime printed %d", len(got), len(gs))
	}
	if len(rep.Goroutines) > 0 && !rep.Goroutines[0].Crashed {
		t.Errorf("the first goroutine, %d, is not the crashed one", rep.Goroutines[0].ID)
	}
	for _, want := range gs {
		g := got[uint64(want.ID)]
		if g == nil {
			t.Errorf("goroutine %d [%s] missing", want.ID, want.Status)
			continue
		}
		if g.State != want.Status {
			t.Errorf("goroutine %d: state %q, the runtime says %q", want.ID, g.State, want.Status)
		}
		if g.Crashed != (want.ID == gs[0].ID) {
			t.Errorf("goroutine %d [%s]: crashed = %v", want.ID, want.Status, g.Crashed)
		}
		if g.Error != nil {
			t.Errorf("goroutine %d: %s", want.ID, *g.Error)
		}
		compareGoroutineFrames(t, want, g)
	}
	_, after, panicked := strings.Cut(out, "panic: ")
	if !panicked {
		return
	}
	msg, _, _ := strings.Cut(after, "\n")
	detail := fmt.Sprintf("goroutine %d panicked: %s", gs[0].ID, msg)
	if rep.Crash == nil || !slices.Contains(rep.Crash.Details, detail) {
		t.Errorf("crash details lack %q: %+v", detail, rep.Crash)
	}
}

func init() {
	for _, goarch := range goArchOf {
		programs[goarch+"-goparked-stripped"] = goBuild("goparked", goarch, "-ldflags=-s -w")
	}
}

// TestGoroutinesStrippedAArch64: an arm64 Go program stripped of its
// symbols and DWARF (-ldflags=-s -w) still has every goroutine the
// runtime printed: runtime.allgs comes from runtime.allgadd's code (its
// ADRP-relative loads and stores of the slice), the layouts from the
// generated table, names and lines from pclntab.
func TestGoroutinesStrippedAArch64(t *testing.T) {
	t.Parallel()
	expectStrippedGoroutines(t, testenv.AArch64)
}

// TestGoroutinesStrippedCrossArch is TestGoroutinesStrippedAArch64 on
// the arches whose runtime.allgadd no decoder reads (arm, the 32-bit
// one; s390x, big-endian; ppc64le with COREUNWIND_GO_ARCHES=all):
// runtime.allgs is the one slice of plausible g's in the executable's
// writable data. They gave no goroutines before.
func TestGoroutinesStrippedCrossArch(t *testing.T) {
	t.Parallel()
	arches := []testenv.CrossArch{testenv.ARMHF, testenv.S390X}
	if os.Getenv("COREUNWIND_GO_ARCHES") == "all" {
		arches = append(arches, testenv.PPC64LE)
	}
	for _, arch := range arches {
		t.Run(arch.Name, func(t *testing.T) {
			t.Parallel()
			expectStrippedGoroutines(t, arch)
		})
	}
}

// expectStrippedGoroutines crashes the stripped goparked of arch and
// checks coreunwind's goroutines against the runtime's.
func expectStrippedGoroutines(t *testing.T, arch testenv.CrossArch) {
	t.Helper()
	c := qemuCrashEnv(t, arch, []string{"GOTRACEBACK=crash"}, goArchOf[arch.Name]+"-goparked-stripped", "nilmap")
	rep, _ := unwindJSON(t, nil, c.Core, c.Exe)
	gs := parseGoDump(c.Output)
	if len(gs) < 5 {
		t.Fatalf("the runtime printed %d goroutines, want at least 5; output:\n%s", len(gs), truncate(c.Output, 4000))
	}
	expectRuntimeGoroutines(t, rep, c.Output, gs)
}

func init() {
	programs["riscv64-goparked"] = goBuild("goparked", "riscv64")
}

// TestGoroutinesRISCV64 is TestGoroutinesCrossArch on riscv64, whose
// core is written from the snapshot gdb takes through qemu-riscv64's
// stub at the fatal SIGABRT.
func TestGoroutinesRISCV64(t *testing.T) {
	t.Parallel()
	// gdb stops at each signal: nilptr's SIGSEGV (the runtime's
	// handler makes it a panic) comes before the fatal SIGABRT.
	for mode, stops := range map[string]int{"nilptr": 2, "nilmap": 1} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			live := rvLiveCoreEnv(t, []string{"GOTRACEBACK=crash"}, "riscv64-goparked", stops, mode)
			rep, _ := unwindJSON(t, nil, live.Core, live.Exe)
			gs := parseGoDump(live.Output)
			if len(gs) < 5 {
				t.Fatalf("the runtime printed %d goroutines, want at least 5; output:\n%s", len(gs), truncate(live.Output, 4000))
			}
			if rep.Core.Arch != "riscv64" {
				t.Errorf("arch %q, want riscv64", rep.Core.Arch)
			}
			expectRuntimeGoroutines(t, rep, live.Output, gs)
		})
	}
}
