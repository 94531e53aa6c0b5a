package crashinfo

import (
	"testing"

	"github.com/coreunwind/coreunwind/arm"
	"github.com/coreunwind/coreunwind/unwind"
)

// TestIllegalOnlyWhenInvalid: a SIGILL at Thumb code is an
// illegal_instruction only when the bytes are no instruction; bytes the
// partial Thumb decoder does not cover (a VFP add: valid, perhaps not on
// that CPU) prove nothing, and UDF is a trap instruction. The bytes'
// meaning is arm-linux-gnueabihf-objdump's.
func TestIllegalOnlyWhenInvalid(t *testing.T) {
	for _, tc := range []struct {
		name string
		code []byte
		kind string
	}{
		{"vadd.f32 s0, s0, s0 (not covered)", []byte{0x30, 0xee, 0x00, 0x0a}, "signal"},
		{"udf #255", []byte{0xff, 0xde}, "trap_instruction"},
	} {
		f := unwind.NewFrame(arm.NumRegs)
		f.Set(arm.PC, memBase, unwind.SaveLoc{Kind: unwind.LocSame})
		f.Set(arm.CPSR, 1<<5, unwind.SaveLoc{Kind: unwind.LocSame})
		c := Analyze(&Input{Arch: arm.Arch{}, Mem: &fakeMem{memBase, tc.code}, Signal: Signal{Name: "SIGILL"}, Frame0: f})
		if c == nil || c.Kind != tc.kind {
			t.Errorf("%s: %+v, want kind %s", tc.name, c, tc.kind)
		}
	}
}
