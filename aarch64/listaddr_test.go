package aarch64_test

import (
	"testing"

	"github.com/coreunwind/coreunwind/aarch64"
	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/unwind/unwindtest"
)

// TestDynListAddr builds libunwind's accessor the way gcc compiles it for
// aarch64 (adrp+add without -fPIC; adrp+ldr from the GOT with it; after a
// bti landing pad with branch protection) and checks the decoded address
// against the symbol table's _U_dyn_info_list.
func TestDynListAddr(t *testing.T) {
	for name, flags := range map[string][]string{
		"adrp-add":     {"-O2", "-static"},
		"adrp-ldr-got": {"-O2", "-fPIC", "-static"},
		"bti":          {"-O2", "-fPIC", "-static", "-mbranch-protection=standard"},
	} {
		t.Run(name, func(t *testing.T) {
			exe := testenv.BuildCross(t, testenv.AArch64, t.TempDir(), "dl", unwindtest.DynListSource, flags...)
			unwindtest.CheckDynListAddr(t, aarch64.Arch{}, exe)
		})
	}
}
