package sh

import (
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/unwind/unwindtest"
)

// TestDynListAddr builds libunwind's accessor as gcc compiles it for
// sh4, static with and without -fPIC (the literal-pool load; mova, the
// GOTPC literal and the GOT entry), and checks the decoded address
// against the symbol table's _U_dyn_info_list.
func TestDynListAddr(t *testing.T) {
	for name, flags := range map[string][]string{
		"static": {"-O2", "-static"},
		"pic":    {"-O2", "-fPIC", "-static"},
	} {
		t.Run(name, func(t *testing.T) {
			exe := testenv.BuildCross(t, testenv.SH4, t.TempDir(), "dl", unwindtest.DynListSource, flags...)
			unwindtest.CheckDynListAddr(t, Arch{}, exe)
		})
	}
}
