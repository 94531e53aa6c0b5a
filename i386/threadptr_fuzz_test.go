package i386_test

import (
	"encoding/binary"
	"testing"

	"github.com/coreunwind/coreunwind/i386"
	"github.com/coreunwind/coreunwind/unwind"
)

// FuzzThreadPointer: any NT_PRSTATUS registers and NT_386_TLS bytes
// give a thread pointer or none, never a panic; a found one is the
// base_addr of a descriptor whose entry_number is gs's index.
func FuzzThreadPointer(f *testing.F) {
	gregs := make([]byte, 17*4)
	binary.LittleEndian.PutUint32(gregs[10*4:], 12<<3|3) // gs: GDT entry 12, RPL 3
	tls := make([]byte, 3*16)
	for i := range 3 {
		binary.LittleEndian.PutUint32(tls[i*16:], uint32(12+i))
		binary.LittleEndian.PutUint32(tls[i*16+4:], uint32(0xf7d8a740+i*0x1000))
	}
	f.Add(gregs, tls)
	f.Add(gregs, tls[:20])
	f.Add(gregs[:40], tls)
	f.Fuzz(func(t *testing.T, gregs, tls []byte) {
		th := &unwind.ThreadState{GRegs: gregs, Notes: map[uint32][]byte{0x200: tls}, Order: binary.LittleEndian}
		tp, ok := i386.Arch{}.ThreadPointer(th)
		if !ok {
			return
		}
		idx := binary.LittleEndian.Uint32(gregs[40:]) & 0xffff >> 3
		for off := 0; off+16 <= len(tls); off += 16 {
			if binary.LittleEndian.Uint32(tls[off:]) == idx {
				if want := uint64(binary.LittleEndian.Uint32(tls[off+4:])); tp != want {
					t.Fatalf("thread pointer %#x, the descriptor of entry %d says %#x", tp, idx, want)
				}
				return
			}
		}
		t.Fatalf("thread pointer %#x, but no descriptor has entry %d", tp, idx)
	})
}
