package minidump

import "testing"

// TestGRegsLayouts: each CPU's context registers land in the kernel's
// elf_gregset_t slots (asm/user_64.h, asm/user_32.h, arm's and arm64's
// asm/ptrace.h): the pc, the stack pointer and one callee-saved register
// per CPU, read back at their slot.
func TestGRegsLayouts(t *testing.T) {
	tests := []struct {
		cpu   CPU
		set   map[string]int // context register -> its elf_gregset_t slot
		width int
	}{
		{CPUAMD64, map[string]int{"rip": 16, "rsp": 19, "rbp": 4, "rbx": 5, "r15": 0}, 8},
		{CPUX86, map[string]int{"eip": 12, "esp": 15, "ebp": 5, "ebx": 0}, 4},
		{CPUARM, map[string]int{"pc": 15, "sp": 13, "lr": 14, "r11": 11, "cpsr": 16}, 4},
		{CPUARM64, map[string]int{"pc": 32, "sp": 31, "fp": 29, "lr": 30, "x19": 19}, 8},
		{CPUARM64Old, map[string]int{"pc": 32, "sp": 31, "fp": 29, "lr": 30, "x19": 19}, 8},
	}
	for _, tc := range tests {
		l := layoutFor(tc.cpu)
		raw := make([]byte, l.size)
		for i, r := range l.regs {
			v := uint64(0x1000 + i)
			switch r.size {
			case 8:
				le.PutUint64(raw[r.off:], v)
			case 4:
				le.PutUint32(raw[r.off:], uint32(v))
			}
		}
		ctx, err := parseContext(tc.cpu, raw, 0)
		if err != nil {
			t.Fatalf("%v: %v", tc.cpu, err)
		}
		g, err := ctx.GRegs()
		if err != nil {
			t.Fatalf("%v: %v", tc.cpu, err)
		}
		for name, slot := range tc.set {
			want, _ := ctx.Reg(name)
			var got uint64
			if tc.width == 8 {
				got = le.Uint64(g[8*slot:])
			} else {
				got = uint64(le.Uint32(g[4*slot:]))
			}
			if got != want || want == 0 {
				t.Errorf("%v: %s in slot %d = %#x, the context has %#x", tc.cpu, name, slot, got, want)
			}
		}
	}
}
