package riscv64

import (
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/unwind/unwindtest"
)

// TestDynListAddr builds libunwind's accessor as gcc compiles it for
// riscv64: relaxed to gp ("addi a0,gp,off") in a static non-PIE program,
// "auipc; addi" without relaxation, "auipc; ld" from the GOT with -fPIC,
// and checks the decoded address against the symbol table's
// _U_dyn_info_list.
func TestDynListAddr(t *testing.T) {
	for name, flags := range map[string][]string{
		"gp":    {"-O2", "-static"},
		"pcrel": {"-O2", "-static", "-Wl,--no-relax"},
		"got":   {"-O2", "-fPIC", "-static", "-Wl,--no-relax"},
	} {
		t.Run(name, func(t *testing.T) {
			exe := testenv.BuildCross(t, testenv.RISCV64, t.TempDir(), "dl", unwindtest.DynListSource, flags...)
			unwindtest.CheckDynListAddr(t, Arch{}, exe)
		})
	}
}

// FuzzDynListAddr: any code at _U_dyn_info_list_addr gives an address
// or an error.
func FuzzDynListAddr(f *testing.F) {
	f.Add([]byte{0x17, 0x75, 0x06, 0x00, 0x03, 0x35, 0x65, 0xd4, 0x82, 0x80}) // auipc a0; ld a0; ret
	f.Add([]byte{0x13, 0x85, 0x01, 0x84, 0x82, 0x80})                         // addi a0,gp,-1984; ret
	f.Fuzz(func(t *testing.T, code []byte) {
		const at = 0x10000
		as := &unwindtest.Space{Mem: []unwindtest.Region{{Addr: at, Data: code}}}
		_, _ = Arch{}.DynListAddr(as, nil, 0, at)
	})
}
