package ia64_test

import (
	"debug/elf"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/ia64"
	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/unwind"
)

// slotCase is what decoding one slot of testdata/insns.s must give;
// undecoded slots (nop.i, nop.f) must fail.
type slotCase struct {
	mem       unwind.MemAccess
	addr      uint64
	class     unwind.InsnClass
	regs      string
	undecoded bool
}

var insnRegs = map[int]uint64{12: 0x7ffc0000, 14: 0x1000, 2: 0x2000, 33: 0, 15: 7}

var slotCases = []slotCase{
	{mem: unwind.MemRead, addr: 0, regs: "r9"},
	{mem: unwind.MemWrite, addr: 0x1000, regs: "r14,r15"},
	{undecoded: true},
	{mem: unwind.MemRead, addr: 0x7ffc0000, regs: "r3,r12"},
	{mem: unwind.MemWrite, addr: 0x7ffc0000, regs: "r12,r32"},
	{undecoded: true},
	{mem: unwind.MemRead, addr: 0x2000, regs: "r4,r2"},
	{mem: unwind.MemWrite, addr: 0x2000, regs: "r2,r4"},
	{undecoded: true},
	{mem: unwind.MemRead, addr: 0, regs: "r3,r33,r34"},
	{mem: unwind.MemRead, addr: 0, regs: "r3,r33"},
	{class: unwind.InsnReturn, regs: "b0"},
	{mem: unwind.MemWrite, addr: 0, regs: "r33,r3"},
	{undecoded: true},
	{class: unwind.InsnCall, regs: "b0,b6"},
	{mem: unwind.MemReadWrite, addr: 0, regs: "r8,r33,r34"},
	{mem: unwind.MemReadWrite, addr: 0, regs: "r8,r33,r34"},
	{class: unwind.InsnTrap},
	{mem: unwind.MemReadWrite, addr: 0, regs: "r8,r33"},
	{mem: unwind.MemRead, addr: 0, regs: "r3,r33"},
	{undecoded: true},
	{class: unwind.InsnTrap},
	{undecoded: true},
	{class: unwind.InsnJump, regs: "b6"},
}

var objdumpSlot = regexp.MustCompile(`(?m)^\s*([0-9a-f]+):\t(?:[0-9a-f]{2} )+\s*\t(?:\[[A-Z]+\])?\s*(.*?)(?:;;)?$`)

// TestDecodeInsn assembles testdata/insns.s and decodes every slot of
// every bundle, checking the text against objdump's (without the
// template and stop marks) and the memory operand, class and registers
// against the cases.
func TestDecodeInsn(t *testing.T) {
	as, objdump := testenv.NeedTool(t, "ia64-linux-gnu-as"), testenv.NeedTool(t, "ia64-linux-gnu-objdump")
	obj := filepath.Join(t.TempDir(), "insns.o")
	if out, err := exec.Command(as, "-o", obj, "testdata/insns.s").CombinedOutput(); err != nil {
		t.Fatalf("as: %v\n%s", err, out)
	}
	out, err := exec.Command(objdump, "-d", obj).Output()
	if err != nil {
		t.Fatal(err)
	}
	lines := objdumpSlot.FindAllStringSubmatch(string(out), -1)
	if len(lines) != len(slotCases) {
		t.Fatalf("objdump shows %d slots, want %d:\n%s", len(lines), len(slotCases), out)
	}
	f, err := elf.Open(obj)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	text, err := f.Section(".text").Data()
	if err != nil {
		t.Fatal(err)
	}
	reg := func(r int) (uint64, bool) { v, ok := insnRegs[r]; return v, ok }
	var arch ia64.Arch
	for i, c := range slotCases {
		off, _ := strconv.ParseUint(lines[i][1], 16, 64)
		pc := off&^0xf | uint64(i%3)
		if arch.InsnCodeAddr(pc) != off&^0xf {
			t.Fatalf("slot %d: code at %#x", i, arch.InsnCodeAddr(pc))
		}
		in, err := arch.DecodeInsn(text[off&^0xf:], pc, reg)
		want := strings.TrimSpace(lines[i][2])
		if c.undecoded {
			if err == nil {
				t.Errorf("slot %#x %q: decoded as %q", pc, want, in.Text)
			}
			continue
		}
		if err != nil {
			t.Errorf("slot %#x %q: %v", pc, want, err)
			continue
		}
		if in.Text != want || in.Len != 16 {
			t.Errorf("slot %#x: %q (%d bytes); objdump says %q", pc, in.Text, in.Len, want)
		}
		if in.Mem != c.mem || (c.mem != unwind.MemNone && (!in.HasMemAddr || in.MemAddr != c.addr)) {
			t.Errorf("slot %#x %q: memory %v at %#x (known %v), want %v at %#x", pc, want, in.Mem, in.MemAddr, in.HasMemAddr, c.mem, c.addr)
		}
		if in.Class != c.class {
			t.Errorf("slot %#x %q: class %v, want %v", pc, want, in.Class, c.class)
		}
		var names []string
		for _, r := range in.Regs {
			names = append(names, ia64.RegName(r))
		}
		if strings.Join(names, ",") != c.regs {
			t.Errorf("slot %#x %q: registers %v, want %s", pc, want, names, c.regs)
		}
	}
}

// FuzzDecodeInsn: any bundle and slot decode or fail, never panic.
func FuzzDecodeInsn(f *testing.F) {
	f.Add([]byte{0x09, 0x48, 0x00, 0x00, 0x18, 0x10, 0x00, 0x78, 0x38, 0x20, 0x23, 0x00, 0x00, 0x00, 0x04, 0x00}, uint64(0x4000000000000001))
	f.Add([]byte{0x11, 0x00, 0x0c, 0x42, 0xa8, 0x11, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x68, 0x00, 0x80, 0x10}, uint64(0x4000000000000002))
	var arch ia64.Arch
	f.Fuzz(func(t *testing.T, code []byte, pc uint64) {
		in, err := arch.DecodeInsn(code, pc, func(r int) (uint64, bool) { return uint64(r) * 0x1111, r%3 != 0 })
		if err == nil && in.Len != 16 {
			t.Fatalf("length %d", in.Len)
		}
	})
}
