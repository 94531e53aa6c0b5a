package e2e

import (
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// TestSparc64ElfutilsCore: the core a real sparc64 kernel wrote for
// elfutils' backtrace-child (static, big-endian, two threads, SIGABRT;
// register windows with the 2047-byte stack bias, DW_CFA_GNU_window_save
// CFI, return addresses %o7 + 8). gdb-multiarch finds no general
// registers in it and qemu-sparc64 writes no core, so eu-stack is the
// reference, pc for pc on both threads: to __thread_start and _start,
// where glibc clears %fp (eu-stack stops there with an error, coreunwind
// at the outermost frame).
func TestSparc64ElfutilsCore(t *testing.T) {
	t.Parallel()
	core := testenv.ElfutilsFile(t, "backtrace.sparc.core")
	exe := testenv.ElfutilsFile(t, "backtrace.sparc.exec")
	eu, _ := runEuStack(t, exe, core)
	rep, _ := unwindJSON(t, nil, core, exe)
	if rep.Core.Arch != "sparc64" {
		t.Errorf("arch = %q, want sparc64", rep.Core.Arch)
	}
	compareWithReferences(t, nil, eu, rep)
	expectEuStackPCs(t, eu, rep)
	expectFunctions(t, rep.thread(rep.Core.CrashedTID), "raise", "sigusr2", "stdarg", "backtracegen", "start", "start_thread", "__thread_start")
	expectFunctions(t, rep.thread(rep.Core.PID), "pthread_join", "main", "__libc_start_main", "_start")
	for _, th := range rep.Threads {
		if th.Error != nil {
			t.Errorf("thread %d: %s", th.TID, *th.Error)
		}
	}
}
