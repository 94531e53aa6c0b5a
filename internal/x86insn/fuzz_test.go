package x86insn

import "testing"

// FuzzDecode: any bytes, in either mode, decode or fail, never panic;
// a decoded length fits in the bytes and a 32-bit address in 32 bits.
func FuzzDecode(f *testing.F) {
	for _, s := range [][]byte{{0x8b, 0x40, 0x18}, {0xf3, 0x0f, 0x1e, 0xfa}, {0xc5, 0xf8, 0x77}, {0x0f, 0x0b},
		{0xf7, 0x7d, 0xf8}, {0x89, 0xbd, 0xfc, 0xfd, 0xff, 0xff}, {0x67, 0x8b, 0x04, 0x8b}, {0xe8, 0x40, 0x04, 0, 0},
		{0x64, 0x48, 0x8b, 0x04, 0x25, 0x28, 0, 0, 0}, {0xff, 0xd0}, {0x50}, {0xc3}} {
		f.Add(s, uint64(0x401000), false)
		f.Add(s, uint64(0x8048000), true)
	}
	modes := map[bool]*Mode{
		false: {Bits: 64, PC: 16, SP: 7, Regs: []int{0, 2, 1, 3, 7, 6, 4, 5, 8, 9, 10, 11, 12, 13, 14, 15}},
		true:  {Bits: 32, PC: 8, SP: 4, Regs: []int{0, 1, 2, 3, 4, 5, 6, 7}},
	}
	f.Fuzz(func(t *testing.T, code []byte, pc uint64, is32 bool) {
		md := modes[is32]
		in, err := md.Decode(code, pc, func(r int) (uint64, bool) { return uint64(r)*0x11111111 + 0xfffffff0, r%3 != 0 })
		if err != nil {
			return
		}
		if in.Len <= 0 || in.Len > len(code) {
			t.Fatalf("length %d of %d bytes", in.Len, len(code))
		}
		if is32 && in.HasMemAddr && in.MemAddr > 0xffffffff {
			t.Fatalf("32-bit address %#x", in.MemAddr)
		}
	})
}
