package analyze

import (
	"bytes"
	"testing"
)

// TestBreakpadCFIInstructions: the postfix forms dump_syms writes for
// DWARF's rules become the call frame instructions they came from; any
// other expression is refused (the range is not used).
func TestBreakpadCFIInstructions(t *testing.T) {
	x := breakpadRegs()["x86_64"]
	tests := []struct {
		rules string
		want  []byte // nil: refused
	}{
		{".cfa: $rsp 8 + .ra: .cfa -8 + ^", []byte{dwCFADefCFASF, 7, 8, dwCFAOffsetExtSF, 16, 0x78}},
		{".cfa: $rbp 16 + $rbp: .cfa -16 + ^", []byte{dwCFADefCFASF, 6, 16, dwCFAOffsetExtSF, 6, 0x70}},
		{".cfa: $rsp 24 -", []byte{dwCFADefCFASF, 7, 0x68}},
		{".cfa: $rsp", []byte{dwCFADefCFA, 7, 0}},
		{"$rbx: $rbx $r12: $rax", []byte{dwCFASameValue, 3, dwCFARegister, 12, 0}},
		{"$rbx: .cfa 8 +", []byte{dwCFAValOffsetSF, 3, 8}},
		{"$rbx: .undef", []byte{dwCFAUndefined, 3}},
		{".cfa: $rsp 8 + 4 *", nil},
		{".cfa: $xmm0 8 +", nil},
		{"$rbx: .cfa -8 + ^ ^", nil},
		{"$nope: .cfa -8 + ^", nil},
		{".cfa:", nil},
	}
	for _, tc := range tests {
		got, err := cfiInstructions(nil, tc.rules, x.regs, x.ra)
		if tc.want == nil {
			if err == nil {
				t.Errorf("%q: accepted as % x", tc.rules, got)
			}
			continue
		}
		if err != nil || !bytes.Equal(got, tc.want) {
			t.Errorf("%q: % x, %v; want % x", tc.rules, got, err, tc.want)
		}
	}
}
