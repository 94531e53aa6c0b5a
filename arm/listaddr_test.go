package arm_test

import (
	"testing"

	"github.com/coreunwind/coreunwind/arm"
	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/unwind/unwindtest"
)

// TestDynListAddr builds libunwind's accessor as gcc compiles it for
// armhf, in Thumb (Debian's default) and ARM code, PIE (the literal
// pool's offset added to the pc), -fPIC (the address loaded from the
// GOT) and without PIE (movw/movt), and checks the decoded address
// against the symbol table's _U_dyn_info_list.
func TestDynListAddr(t *testing.T) {
	for name, flags := range map[string][]string{
		"thumb":       {"-O2", "-static"},
		"thumb-fPIC":  {"-O2", "-fPIC", "-static"},
		"thumb-nopie": {"-O2", "-fno-pie", "-no-pie", "-static"},
		"arm":         {"-marm", "-O2", "-static"},
		"arm-fPIC":    {"-marm", "-O2", "-fPIC", "-static"},
		"arm-nopie":   {"-marm", "-O2", "-fno-pie", "-no-pie", "-static"},
	} {
		t.Run(name, func(t *testing.T) {
			exe := testenv.BuildCross(t, testenv.ARMHF, t.TempDir(), "dl", unwindtest.DynListSource, flags...)
			unwindtest.CheckDynListAddr(t, arm.Arch{}, exe)
		})
	}
}

// FuzzDynListAddr: any code at _U_dyn_info_list_addr, ARM or Thumb,
// gives an address or an error.
func FuzzDynListAddr(f *testing.F) {
	f.Add([]byte{0x01, 0x48, 0x78, 0x44, 0x70, 0x47, 0x00, 0xbf, 0x5a, 0x8f, 0x05, 0x00}, true) // ldr r0,[pc,#4]; add r0,pc; bx lr
	f.Add([]byte{0x04, 0x00, 0x9f, 0xe5, 0x00, 0x00, 0x8f, 0xe0, 0x1e, 0xff, 0x2f, 0xe1, 0x50, 0x8f, 0x05, 0x00}, false)
	f.Add([]byte{0x49, 0xf2, 0xa4, 0x30, 0xc0, 0xf2, 0x06, 0x00, 0x70, 0x47}, true) // movw; movt; bx lr
	f.Fuzz(func(t *testing.T, code []byte, thumb bool) {
		const at = 0x10000
		as := &unwindtest.Space{Mem: []unwindtest.Region{{Addr: at, Data: code}}}
		fn := uint64(at)
		if thumb {
			fn |= 1
		}
		_, _ = arm.Arch{}.DynListAddr(as, nil, 0, fn)
	})
}
