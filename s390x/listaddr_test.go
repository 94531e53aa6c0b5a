package s390x_test

import (
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/s390x"
	"github.com/coreunwind/coreunwind/unwind/unwindtest"
)

// TestDynListAddr builds libunwind's accessor the way gcc compiles it for
// s390x (larl without -fPIC; the GOT slot with it, lgrl, unless the
// linker relaxed it) and checks the decoded address against the symbol
// table's _U_dyn_info_list.
func TestDynListAddr(t *testing.T) {
	for name, flags := range map[string][]string{
		"larl":     {"-O2", "-static"},
		"lgrl-got": {"-O2", "-fPIC", "-static", "-Wl,--no-relax"},
	} {
		t.Run(name, func(t *testing.T) {
			exe := testenv.BuildCross(t, testenv.S390X, t.TempDir(), "dl", unwindtest.DynListSource, flags...)
			unwindtest.CheckDynListAddr(t, s390x.Arch{}, exe)
		})
	}
}
