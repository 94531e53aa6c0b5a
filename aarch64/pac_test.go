package aarch64

import (
	"testing"

	"github.com/coreunwind/coreunwind/unwind"
)

// TestStripPAC: the kernel's user PAC mask for 48-bit addresses is
// GENMASK(54, 48) (arch/arm64/include/asm/pointer_auth.h,
// ptrauth_user_pac_mask); a signed return address has its code there and
// possibly a tag in the top byte. Kernel addresses (bit 55) are restored
// by setting the bits. Without the note, bits 48–63 are not address bits.
func TestStripPAC(t *testing.T) {
	const noteMask = 0x007f_0000_0000_0000 // GENMASK(54, 48)
	withNote := unwind.NewFrame(NumRegs)
	withNote.Set(PACMask, noteMask, unwind.SaveLoc{Kind: unwind.LocValue})
	without := unwind.NewFrame(NumRegs)
	for _, tc := range []struct {
		f        *unwind.Frame
		ra, want uint64
	}{
		{withNote, 0x0035_aaaa_c5e4_0b18, 0x0000_aaaa_c5e4_0b18}, // signed, as eu-stack prints from an arm64 kernel core
		{withNote, 0x0000_aaaa_c5e4_0b18, 0x0000_aaaa_c5e4_0b18}, // unsigned: unchanged
		{withNote, 0xff80_8000_1000_2000, 0xffff_8000_1000_2000}, // kernel half
		{without, 0x004c_0055_0010_1000, 0x0000_0055_0010_1000},  // qemu-user's signed address, no note
		{without, 0x0000_0055_0010_1000, 0x0000_0055_0010_1000},
	} {
		if got := stripPAC(tc.f, tc.ra); got != tc.want {
			t.Errorf("stripPAC(%#x) = %#x, want %#x", tc.ra, got, tc.want)
		}
	}
}
