package aarch64_test

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/aarch64"
	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/unwind"
)

// insnCase is one instruction: its source for gas, and what decoding it
// with the registers of insnRegs must give.
type insnCase struct {
	asm     string
	mem     unwind.MemAccess
	memAddr uint64 // when mem != MemNone
	class   unwind.InsnClass
	regs    []int
}

var insnRegs = map[int]uint64{0: 0, 1: 0x1000, 2: 3, 3: 0xfffffffffffffffe, aarch64.SP: 0x7ffc0000, aarch64.X29: 0x7ffc0100}

var insnCases = []insnCase{
	{asm: "ldr w0, [x0, #24]", mem: unwind.MemRead, memAddr: 24, regs: []int{0}},
	{asm: "str x2, [x1, #8]", mem: unwind.MemWrite, memAddr: 0x1008, regs: []int{2, 1}},
	{asm: "stp x29, x30, [sp, #-32]!", mem: unwind.MemWrite, memAddr: 0x7ffc0000 - 32, regs: []int{29, 30, aarch64.SP}},
	{asm: "ldp x29, x30, [sp], #16", mem: unwind.MemRead, memAddr: 0x7ffc0000, regs: []int{29, 30, aarch64.SP}},
	{asm: "ldr x0, [x1, x2, lsl #3]", mem: unwind.MemRead, memAddr: 0x1000 + 24, regs: []int{0, 1, 2}},
	{asm: "ldrb w0, [x1, w3, sxtw]", mem: unwind.MemRead, memAddr: 0x1000 - 2, regs: []int{0, 1, 3}},
	{asm: "strb w2, [x0]", mem: unwind.MemWrite, memAddr: 0, regs: []int{2, 0}},
	{asm: "stxr w3, x2, [x1]", mem: unwind.MemWrite, memAddr: 0x1000, regs: []int{3, 2, 1}},
	{asm: "blr x1", class: unwind.InsnCall, regs: []int{1}},
	{asm: "ret", class: unwind.InsnReturn, regs: []int{30}},
	{asm: "brk #0x3e8", class: unwind.InsnTrap},
	{asm: "add x0, x1, #4", regs: []int{0, 1}},
}

// TestDecodeInsn assembles the cases with gas and checks each decoded
// instruction's text against objdump's, and its memory operand and
// registers against the case.
func TestDecodeInsn(t *testing.T) {
	as, objdump := testenv.NeedTool(t, "aarch64-linux-gnu-as"), testenv.NeedTool(t, "aarch64-linux-gnu-objdump")
	dir := t.TempDir()
	src, obj := filepath.Join(dir, "insns.s"), filepath.Join(dir, "insns.o")
	var b strings.Builder
	b.WriteString(".arch armv8.1-a\n.text\n")
	for _, c := range insnCases {
		b.WriteString(c.asm + "\n")
	}
	if err := os.WriteFile(src, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(as, "-o", obj, src).CombinedOutput(); err != nil {
		t.Fatalf("as: %v\n%s", err, out)
	}
	out, err := exec.Command(objdump, "-d", "--no-show-raw-insn", obj).Output()
	if err != nil {
		t.Fatalf("objdump: %v", err)
	}
	var want []string
	for _, m := range regexp.MustCompile(`(?m)^\s*[0-9a-f]+:\s+(.*)$`).FindAllStringSubmatch(string(out), -1) {
		want = append(want, normA64(m[1]))
	}
	if len(want) != len(insnCases) {
		t.Fatalf("objdump shows %d instructions, want %d:\n%s", len(want), len(insnCases), out)
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
	var arch aarch64.Arch
	for i, c := range insnCases {
		in, err := arch.DecodeInsn(text[4*i:], uint64(4*i), reg)
		if err != nil {
			t.Errorf("%s: %v", c.asm, err)
			continue
		}
		if normA64(in.Text) != want[i] {
			t.Errorf("%s: text %q, objdump says %q", c.asm, in.Text, want[i])
		}
		if in.Mem != c.mem || (c.mem != unwind.MemNone && (!in.HasMemAddr || in.MemAddr != c.memAddr)) {
			t.Errorf("%s: memory %v at %#x (known %v), want %v at %#x", c.asm, in.Mem, in.MemAddr, in.HasMemAddr, c.mem, c.memAddr)
		}
		if in.Class != c.class {
			t.Errorf("%s: class %v, want %v", c.asm, in.Class, c.class)
		}
		if strings.Join(names(in.Regs), ",") != strings.Join(names(c.regs), ",") {
			t.Errorf("%s: registers %v, want %v", c.asm, names(in.Regs), names(c.regs))
		}
	}
}

// normA64 makes objdump's and arm64asm's texts comparable: lower case,
// no "//" comments, no space after commas, one space elsewhere.
func normA64(s string) string {
	if i := strings.Index(s, "//"); i >= 0 {
		s = s[:i]
	}
	s = strings.Join(strings.Fields(strings.ToLower(s)), " ")
	return strings.ReplaceAll(s, ", ", ",")
}

func names(rs []int) []string {
	var out []string
	for _, r := range rs {
		out = append(out, aarch64.RegName(uint64(r)))
	}
	return out
}

// FuzzDecodeInsn: any 4 bytes decode or fail, never panic.
func FuzzDecodeInsn(f *testing.F) {
	for _, s := range [][]byte{{0x00, 0x18, 0x40, 0xb9}, {0xfd, 0x7b, 0xbe, 0xa9}, {0x00, 0x7d, 0x20, 0xd4}, {0x20, 0x00, 0x3f, 0xd6}, {0x20, 0x78, 0x62, 0xf8}} {
		f.Add(s, uint64(0x400000))
	}
	var arch aarch64.Arch
	f.Fuzz(func(t *testing.T, code []byte, pc uint64) {
		in, err := arch.DecodeInsn(code, pc, func(r int) (uint64, bool) { return uint64(r) * 0x1111, r%3 != 0 })
		if err == nil && in.Len != 4 {
			t.Fatalf("length %d", in.Len)
		}
	})
}
