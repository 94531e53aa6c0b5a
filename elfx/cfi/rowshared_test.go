package cfi

import (
	"encoding/binary"
	"testing"
)

// TestRowAtShared: a row asked again is the FDE's kept one, given
// without a copy of its register rules to a caller that only reads it
// (a batch asks the same rows core after core: the copies were a
// twentieth of a warm triage's CPU); RowAt still gives each caller its
// own copy, which changes no later answer.
func TestRowAtShared(t *testing.T) {
	// x86-64's CIE: CFA = rsp+8, return address at CFA-8; then, from
	// begin+1, CFA = rsp+16 and rbp (6) at CFA-16.
	initial := []byte{0x0c, 7, 8, 0x11, 16, 0x78}
	body := []byte{0x41, 0x0e, 16, 0x11, 6, 0x70}
	f := Synthesize(16, binary.LittleEndian, 8, 0x1000, 0x1100, initial, body)
	const pc = 0x1010
	first, err := f.RowAtShared(pc)
	if err != nil {
		t.Fatal(err)
	}
	if first.CFA.Reg != 7 || first.CFA.Offset != 16 || first.Rule(6).Kind != Offset || first.Rule(16).Kind != Offset {
		t.Fatalf("row at %#x: CFA %+v, rbp %+v, ra %+v", pc, first.CFA, first.Rule(6), first.Rule(16))
	}
	if n := testing.AllocsPerRun(100, func() { _, _ = f.RowAtShared(pc) }); n != 0 {
		t.Errorf("RowAtShared of a kept row allocates %.0f times: its rules are copied", n)
	}
	own, err := f.RowAt(pc)
	if err != nil {
		t.Fatal(err)
	}
	own.Regs[6] = Rule{Kind: Undefined}
	if again, _ := f.RowAtShared(pc); again.Rule(6).Kind != Offset || &again.Regs[0] != &first.Regs[0] {
		t.Errorf("after a change to RowAt's copy: rbp %+v, the kept row replaced: %v", again.Rule(6), &again.Regs[0] != &first.Regs[0])
	}
}
