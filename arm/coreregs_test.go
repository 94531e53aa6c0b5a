package arm_test

import (
	"encoding/binary"
	"testing"

	"github.com/coreunwind/coreunwind/arm"
	"github.com/coreunwind/coreunwind/arm/exidx"
	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/unwindtest"
)

// TestFrameFromThreadUnrecordedCPSR: Breakpad's minidumps of arm
// processes (core2md, and every thread but the crashing one of its
// client's) have cpsr 0. Frame 0's T bit then comes from the pc (only
// halfword-aligned: Thumb) or from the function's EHABI index entry; a
// recorded cpsr is kept as it is.
func TestFrameFromThreadUnrecordedCPSR(t *testing.T) {
	const thumbFunc, armFunc = 0x10000, 0x20000
	as := &unwindtest.Space{Ptr: 4, Procs: func(ip uint64) (*unwind.ProcInfo, error) {
		switch {
		case ip-thumbFunc < 0x100:
			return &unwind.ProcInfo{StartIP: thumbFunc, EndIP: thumbFunc + 0x100, Format: unwind.FormatUnwindTable, Info: &exidx.Entry{Start: thumbFunc, Thumb: true}}, nil
		case ip-armFunc < 0x100:
			return &unwind.ProcInfo{StartIP: armFunc, EndIP: armFunc + 0x100, Format: unwind.FormatUnwindTable, Info: &exidx.Entry{Start: armFunc}}, nil
		}
		return nil, unwind.ErrNoInfo
	}}
	for _, tc := range []struct {
		name      string
		pc, cpsr  uint64
		wantThumb bool
	}{
		{"halfword-aligned pc", 0x30006, 0, true},
		{"Thumb function by its index entry", thumbFunc + 0x10, 0, true},
		{"ARM function by its index entry", armFunc + 0x10, 0, false},
		{"recorded ARM state kept", thumbFunc + 0x10, 0x10, false},
		{"recorded Thumb state kept", armFunc + 0x10, 0x30, true},
	} {
		gregs := make([]byte, 18*4)
		binary.LittleEndian.PutUint32(gregs[arm.PC*4:], uint32(tc.pc))
		binary.LittleEndian.PutUint32(gregs[arm.CPSR*4:], uint32(tc.cpsr))
		f, err := arm.Arch{}.FrameFromThread(&unwind.ThreadState{GRegs: gregs, Order: binary.LittleEndian, Mem: as})
		if err != nil {
			t.Fatal(err)
		}
		cpsr, _ := f.Get(arm.CPSR)
		if got := cpsr&(1<<5) != 0; got != tc.wantThumb || cpsr&0x1f != 0x10 {
			t.Errorf("%s: cpsr %#x, want user mode and Thumb %v", tc.name, cpsr, tc.wantThumb)
		}
	}
}
