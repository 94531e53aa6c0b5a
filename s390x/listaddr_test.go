package s390x_test

import (
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/s390x"
	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/unwindtest"
)

// TestDynListAddr builds libunwind's accessor the way gcc compiles it for
// s390x (larl without -fPIC; the GOT slot with it, lgrl, unless the
// linker relaxed it) and checks the decoded address against the symbol
// table's _U_dyn_info_list; and for 31-bit s390 (-m31: larl, or with
// -fPIC larl of the GOT slot into r1 and l of r2 from it).
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
	s390, err := unwind.LookupArch("s390")
	if err != nil {
		t.Fatal(err)
	}
	for name, flags := range map[string][]string{
		"31-bit-larl":   {"-m31", "-O2", "-static"},
		"31-bit-got-r1": {"-m31", "-O2", "-fPIC", "-static", "-Wl,--no-relax"},
	} {
		t.Run(name, func(t *testing.T) {
			exe := testenv.BuildCross(t, testenv.S390X, t.TempDir(), "dl", unwindtest.DynListSource, flags...)
			unwindtest.CheckDynListAddr(t, s390, exe)
		})
	}
}
