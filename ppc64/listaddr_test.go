package ppc64_test

import (
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/unwind/unwindtest"
)

// TestDynListAddr builds libunwind's accessor as gcc compiles it for
// each Power ABI and checks the decoded address against the symbol
// table's _U_dyn_info_list: ELFv2 computing its TOC pointer at the global
// entry point, absolute ("lis r2") in a static program, from r12 in a
// shared object; ELFv1 through its function descriptor; 32-bit through
// the GOT pointer from bcl/mflr; and the address loaded from the GOT
// where the linker does not turn the load into an addi
// (--no-toc-optimize).
func TestDynListAddr(t *testing.T) {
	got := []string{"-O2", "-fPIC", "-static", "-Wl,--no-toc-optimize"}
	for _, tc := range []struct {
		arch  testenv.CrossArch
		name  string
		flags []string
	}{
		{testenv.PPC64LE, "static", []string{"-O2", "-static"}},
		{testenv.PPC64LE, "got", got},
		{testenv.PPC64LE, "shared-r12", []string{"-O2", "-fPIC", "-shared", "-Wl,-Bsymbolic"}},
		{testenv.PPC64, "descriptor", []string{"-O2", "-static"}},
		{testenv.PPC64, "descriptor-got", got},
		{testenv.PPC, "static", []string{"-O2", "-static"}},
		{testenv.PPC, "fPIC", []string{"-O2", "-fPIC", "-static", "-Wl,--no-relax"}},
	} {
		t.Run(tc.arch.Name+"/"+tc.name, func(t *testing.T) {
			exe := testenv.BuildCross(t, tc.arch, t.TempDir(), "dl", unwindtest.DynListSource, tc.flags...)
			unwindtest.CheckDynListAddr(t, lookupArch(t, tc.arch.Name), exe)
		})
	}
}
