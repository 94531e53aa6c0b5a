package x86_64_test

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/x86_64"
)

// insnCase is one instruction: its source for gas, and what decoding it
// with the registers of insnRegs must give.
type insnCase struct {
	asm     string
	mem     unwind.MemAccess
	memAddr uint64 // when mem != MemNone
	class   unwind.InsnClass
	divisor int // -1: none
	regs    []int
}

// insnRegs are the register values the cases compute addresses with.
var insnRegs = map[int]uint64{x86_64.RAX: 0, x86_64.RBX: 0x1000, x86_64.RCX: 3, x86_64.RSP: 0x7ffc0000, x86_64.RBP: 0x7ffc0100, x86_64.RSI: 0x2000}

var insnCases = []insnCase{
	{asm: "mov 0x18(%rax),%eax", mem: unwind.MemRead, memAddr: 0x18, divisor: -1, regs: []int{x86_64.RAX}},
	{asm: "movl $0x2a,0x18(%rax)", mem: unwind.MemWrite, memAddr: 0x18, divisor: -1, regs: []int{x86_64.RAX}},
	{asm: "addq $1,0x8(%rbx,%rcx,8)", mem: unwind.MemReadWrite, memAddr: 0x1000 + 8 + 24, divisor: -1, regs: []int{x86_64.RBX, x86_64.RCX}},
	{asm: "mov %edi,-0x204(%rbp)", mem: unwind.MemWrite, memAddr: 0x7ffc0100 - 0x204, divisor: -1, regs: []int{x86_64.RBP, x86_64.RDI}},
	{asm: "cmpb $0,(%rsi)", mem: unwind.MemRead, memAddr: 0x2000, divisor: -1, regs: []int{x86_64.RSI}},
	{asm: "push %rbp", mem: unwind.MemWrite, memAddr: 0x7ffc0000 - 8, class: unwind.InsnPush, divisor: -1, regs: []int{x86_64.RBP, x86_64.RSP}},
	{asm: "call 0x10", mem: unwind.MemWrite, memAddr: 0x7ffc0000 - 8, class: unwind.InsnCall, divisor: -1, regs: []int{x86_64.RSP}},
	{asm: "call *%rax", mem: unwind.MemWrite, memAddr: 0x7ffc0000 - 8, class: unwind.InsnCall, divisor: -1, regs: []int{x86_64.RAX, x86_64.RSP}},
	{asm: "call *0x10(%rbx)", mem: unwind.MemRead, memAddr: 0x1010, class: unwind.InsnCall, divisor: -1, regs: []int{x86_64.RBX}},
	{asm: "idivl -0x8(%rbp)", mem: unwind.MemRead, memAddr: 0x7ffc0100 - 8, class: unwind.InsnDivide, divisor: -1, regs: []int{x86_64.RBP}},
	{asm: "div %rcx", class: unwind.InsnDivide, divisor: x86_64.RCX, regs: []int{x86_64.RCX}},
	{asm: "ud2", class: unwind.InsnTrap, divisor: -1},
	{asm: "lea 0x8(%rbx),%rdi", mem: unwind.MemNone, divisor: -1, regs: []int{x86_64.RDI, x86_64.RBX}},
	{asm: "ret", mem: unwind.MemRead, memAddr: 0x7ffc0000, class: unwind.InsnReturn, divisor: -1, regs: []int{x86_64.RSP}},
	{asm: "endbr64", divisor: -1},
}

// TestDecodeInsn assembles the cases with gas and checks each decoded
// instruction's length and text against objdump's, and its memory
// operand and registers against the case.
func TestDecodeInsn(t *testing.T) {
	as, objdump := testenv.NeedTool(t, "as"), testenv.NeedTool(t, "objdump")
	dir := t.TempDir()
	src := filepath.Join(dir, "insns.s")
	obj := filepath.Join(dir, "insns.o")
	var b strings.Builder
	b.WriteString(".text\n")
	for _, c := range insnCases {
		b.WriteString(c.asm + "\n")
	}
	if err := os.WriteFile(src, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(as, "--64", "-o", obj, src).CombinedOutput(); err != nil {
		t.Fatalf("as: %v\n%s", err, out)
	}
	out, err := exec.Command(objdump, "-d", "--no-show-raw-insn", obj).Output()
	if err != nil {
		t.Fatalf("objdump: %v", err)
	}
	type dumped struct {
		addr uint64
		text string
	}
	var want []dumped
	line := regexp.MustCompile(`(?m)^\s*([0-9a-f]+):\s+(.*)$`)
	for _, m := range line.FindAllStringSubmatch(string(out), -1) {
		var a uint64
		for _, c := range m[1] {
			a = a*16 + uint64(strings.IndexRune("0123456789abcdef", c))
		}
		want = append(want, dumped{a, strings.Join(strings.Fields(m[2]), " ")})
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
	var arch x86_64.Arch
	for i, c := range insnCases {
		end := uint64(len(text))
		if i+1 < len(want) {
			end = want[i+1].addr
		}
		code := text[want[i].addr:min(end+8, uint64(len(text)))] // more bytes than it takes
		in, err := arch.DecodeInsn(code, want[i].addr, reg)
		if err != nil {
			t.Errorf("%s: %v", c.asm, err)
			continue
		}
		if uint64(in.Len) != end-want[i].addr {
			t.Errorf("%s: length %d, objdump says %d", c.asm, in.Len, end-want[i].addr)
		}
		got := strings.Join(strings.Fields(in.Text), " ")
		if got != want[i].text {
			t.Errorf("%s: text %q, objdump says %q", c.asm, in.Text, want[i].text)
		}
		if in.Mem != c.mem || (c.mem != unwind.MemNone && (!in.HasMemAddr || in.MemAddr != c.memAddr)) {
			t.Errorf("%s: memory %v at %#x (known %v), want %v at %#x", c.asm, in.Mem, in.MemAddr, in.HasMemAddr, c.mem, c.memAddr)
		}
		if in.Class != c.class || in.Divisor != c.divisor {
			t.Errorf("%s: class %v divisor %d, want %v %d", c.asm, in.Class, in.Divisor, c.class, c.divisor)
		}
		if strings.Trim(strings.Join(regNames(in.Regs), ","), ",") != strings.Join(regNames(c.regs), ",") {
			t.Errorf("%s: registers %v, want %v", c.asm, regNames(in.Regs), regNames(c.regs))
		}
	}
}

func regNames(rs []int) []string {
	var out []string
	for _, r := range rs {
		out = append(out, x86_64.RegName(uint64(r)))
	}
	return out
}
