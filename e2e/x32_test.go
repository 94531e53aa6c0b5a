package e2e

import (
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// TestX32ElfutilsCore: the core a real x86-64 kernel wrote for elfutils'
// backtrace-child built for the x32 ABI (ELFCLASS32, EM_X86_64: 64-bit
// registers in a 32-bit prstatus, 4-byte pointers, 8-byte stack slots;
// static, two threads, SIGABRT). This machine's kernel runs no x32
// program, so this core is the real input: eu-stack is the reference, pc
// for pc on both threads, and gdb-multiarch agrees where it prints frames.
func TestX32ElfutilsCore(t *testing.T) {
	t.Parallel()
	gdb := testenv.NeedTool(t, "gdb-multiarch")
	core := testenv.ElfutilsFile(t, "backtrace.x32.core")
	exe := testenv.ElfutilsFile(t, "backtrace.x32.exec")
	eu, _ := runEuStack(t, exe, core)
	g, _ := runGDBTool(t, gdb, exe, core)
	rep, _ := unwindJSON(t, nil, core, exe)
	if rep.Core.Arch != "x32" {
		t.Errorf("arch = %q, want x32", rep.Core.Arch)
	}
	compareWithReferences(t, g, eu, rep)
	expectEuStackPCs(t, eu, rep)
	expectFunctions(t, rep.thread(rep.Core.CrashedTID), "raise", "sigusr2", "stdarg", "backtracegen", "start", "start_thread", "__clone")
	expectFunctions(t, rep.thread(rep.Core.PID), "pthread_join", "main", "__libc_start_main", "_start")
}
