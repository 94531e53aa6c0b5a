package mips

import (
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/unwind/unwindtest"
)

// TestDynListAddr builds libunwind's accessor as gcc compiles it for
// o32 (both byte orders) and n64, static with and without -fPIC, and
// checks the decoded address against the symbol table's
// _U_dyn_info_list.
func TestDynListAddr(t *testing.T) {
	for _, tc := range []struct {
		cross testenv.CrossArch
		arch  Arch
	}{
		{testenv.MIPS, Arch{big: true}},
		{testenv.MIPSEL, Arch{}},
		{testenv.MIPS64EL, Arch{wide: true}},
	} {
		for name, flags := range map[string][]string{
			"static": {"-O2", "-static"},
			"pic":    {"-O2", "-fPIC", "-static"},
		} {
			t.Run(tc.arch.Name()+"/"+name, func(t *testing.T) {
				exe := testenv.BuildCross(t, tc.cross, t.TempDir(), "dl", unwindtest.DynListSource, flags...)
				unwindtest.CheckDynListAddr(t, tc.arch, exe)
			})
		}
	}
}
